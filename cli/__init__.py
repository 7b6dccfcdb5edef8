"""The command line, the top layer: every ``five-up`` subcommand in one place.

- :mod:`cli.main`         the ``five-up`` parser and :func:`~cli.main.main`
- :mod:`cli.arguments`    options shared by the subcommands; the one-line-error parser
- :mod:`cli.failures`     exit statuses, the error line, failures of long sharded runs
- :mod:`cli.simulate`     ``five-up simulate`` and ``five-up record``
- :mod:`cli.verify`       ``five-up verify``
- :mod:`cli.reference`    ``five-up reference``
- :mod:`cli.tournament`   ``five-up tournament``
- :mod:`cli.strategies`   ``five-up strategies``
- :mod:`cli.experiments`  ``five-up overshoot``, ``settlement``, ``openings``, ``seats``
"""
