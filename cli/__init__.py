"""The command line, the top layer: every ``five-up`` subcommand in one place.

Each subcommand group is one ``*_command.py`` module (so that no file name repeats the module
of ``experiments/`` or ``sim/`` it runs):

- :mod:`cli.main`                ``five-up``'s parser and :func:`~cli.main.main`
- :mod:`cli.arguments`           exit statuses, the one-line-error parser, the scale-out options
- :mod:`cli.options`             the options as tables (one row per option) and the shared rows
- :mod:`cli.sealing`             ``--sealed``, ``--secret``, ``--decision-timeout``
- :mod:`cli.failures`            exit statuses, the error line, failures of long sharded runs
- :mod:`cli.result_lines`        the key numbers and shipped table a finished run prints
- :mod:`cli.simulate_command`    ``five-up simulate`` and ``five-up record``
- :mod:`cli.verify_command`      ``five-up verify``
- :mod:`cli.reference_command`   ``five-up reference``
- :mod:`cli.show_command`        ``five-up show``
- :mod:`cli.play_command`        ``five-up play``
- :mod:`cli.strategies_command`  ``five-up strategies``
- :mod:`cli.tournament_command`  ``five-up tournament``
- :mod:`cli.strength_command`    ``five-up strength``
- :mod:`cli.tune_command`        ``five-up tune``
- :mod:`cli.studies_command`     ``five-up overshoot``, ``settlement``, ``openings``, ``seats``,
  ``lengths``
- :mod:`cli.winprob_command`     ``five-up winprob``
- :mod:`cli.results_command`     ``five-up results``
"""
