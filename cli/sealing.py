"""``--sealed``, ``--secret``, ``--decision-timeout``: the options of a run with strategies one does
not trust, shared by every command that plays a user's strategies.

Apart from :mod:`cli.arguments` so that commands that play nothing (``--help``, ``verify``)
never import the engine.
"""

from __future__ import annotations

from cli import options
from cli.options import Switch, Text
from sim.engine.spec import checked_seal_options
from sim.files import recorded_secret


def add_seal_arguments(parser) -> None:
    """``--sealed``, ``--secret`` and ``--decision-timeout``: every command that plays strategies
    a user brings (:func:`seal_options` checks them)."""
    options.add(parser.add_argument_group("sealing (strategies you do not trust)"), (
        Switch("--sealed",
               "run every Python strategy (compiled=False) in a process of its own that receives "
               "only its view and returns only its row, and key every decision stream with a "
               "random 128-bit run secret (written to the manifest and the records) so that no "
               "strategy can compute the streams from a small seed; results are the same as "
               "unsealed with the same secret"),
        Text("--secret", "HEX",
             "the run secret (32 hexadecimal digits) keying the decision streams: give a sealed "
             "run's secret (its manifest or records) to replay it exactly; a resumed sealed run "
             "reads it back from its manifest"),
        Text("--decision-timeout", "S",
             "with --sealed: seconds a Python strategy may take for one decision; beyond it the "
             "run stops with one line naming strategy, match and seat"),
    ))


def seal_options(args, *manifests) -> dict:
    """The run options of :func:`add_seal_arguments` (``sealed``, ``secret``,
    ``decision_timeout`` where set; nothing for an ordinary run, so that its settings are what
    they were).

    A sealed run without ``--secret`` takes the secret recorded in the first of
    ``manifests`` that holds one (the same run, resumed), else a fresh random one.

    Raises
    ------
    ValueError
        One line naming the option.
    """
    secret = args.secret
    if secret is None and args.sealed:
        secret = recorded_secret(*manifests)
    try:
        return checked_seal_options(bool(args.sealed), secret, args.decision_timeout)
    except ValueError as exc:
        raise ValueError(str(exc).replace("decision_timeout", "--decision-timeout")
                         .replace("sealed=True (--sealed)", "--sealed")
                         .replace("secret must", "--secret must")) from None
