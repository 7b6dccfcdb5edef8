"""The process of one sealed Python seat: it receives only its views and returns only its rows.

``python -m strategies.sealed_seat --fd N SPEC`` is started by
:class:`sim.engine.sealed_seats.SealedSeat` for each Python seat of a sealed
run. It resolves ``SPEC`` (a built-in name, ``MODULE:NAME`` or
``FILE.py:NAME``, as :func:`strategies.catalogue.resolve` reads it) and then
answers one request at a time on the socket ``N``: the fields of a
:class:`strategies.python_view.PythonView` in, the row chosen and the seat's
stream counter out. Nothing else of the run ever reaches this process: no
seed, no match number, no workspace, no other seat's view; the engine's
modules are not even imported. Replies are fixed binary frames, never pickles,
so that nothing the strategy sends can run code in the engine's process.

Reply frames
------------
``REPLY_ROW``: ``<B q Q``: kind, the row, the stream counter after the choice.
``REPLY_ERROR``: ``<B`` then the UTF-8 text of one line (what the strategy raised).
"""

from __future__ import annotations

import argparse
import signal
import struct
import sys
from multiprocessing.connection import Connection

import numpy as np

from strategies.catalogue import resolve
from strategies.python_view import PythonView, frozen

REPLY_ROW = 0
"""A reply holding the row chosen and the stream counter."""
REPLY_ERROR = 1
"""A reply holding one line of error text."""

ROW_FRAME = struct.Struct("<BqQ")
"""Layout of a ``REPLY_ROW`` frame."""

MAX_ERROR_BYTES = 2000
"""Longest error text sent back (it is shown as one line)."""


def error_frame(text: str) -> bytes:
    """A ``REPLY_ERROR`` frame of ``text`` (one line, at most :data:`MAX_ERROR_BYTES`)."""
    line = " ".join(text.split())
    return bytes([REPLY_ERROR]) + line.encode("utf-8", "replace")[:MAX_ERROR_BYTES]


def view_of(fields: tuple) -> PythonView:
    """The strategy's view from the fields the engine sent: every array read-only except ``rng``
    (its own stream, a writable copy)."""
    values = []
    for name, value in zip(PythonView._fields, fields):
        if name == "rng":
            values.append(np.array(value, dtype=np.uint64, copy=True))
        elif isinstance(value, np.ndarray):
            values.append(frozen(value))
        else:
            values.append(int(value))
    return PythonView(*values)


def answer(function, fields: tuple) -> bytes:
    """Call the strategy on one view; the reply frame."""
    view = view_of(fields)
    try:
        choice = function(view)
    except Exception as error:  # a user's code: report it, keep serving until told to stop
        message = str(error).splitlines()[0] if str(error) else ""
        return error_frame(f"raised {type(error).__name__}: {message}" if message
                           else f"raised {type(error).__name__}")
    if isinstance(choice, (bool, np.bool_)) or not isinstance(choice, (int, np.integer)):
        return error_frame(f"returned {choice!r:.80}, not a row index of view.cands")
    if not -2**63 <= int(choice) < 2**63:
        return error_frame(f"returned row {int(choice)}, not one of its {view.n_candidates} candidates")
    return ROW_FRAME.pack(REPLY_ROW, int(choice), int(view.rng[1]))


def serve(connection: Connection, spec: str) -> None:
    """Answer requests until the engine sends None or goes away."""
    # Ctrl-C reaches the whole process group; the engine's process stops this one itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        function = resolve(spec).choose
        failure = None
    except Exception as error:
        function, failure = None, f"could not be loaded in its sealed process: {' '.join(str(error).split())}"
    while True:
        try:
            fields = connection.recv()
        except (EOFError, OSError):
            return
        if fields is None:
            return
        connection.send_bytes(error_frame(failure) if function is None else answer(function, fields))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the seat's process."""
    parser = argparse.ArgumentParser(prog="python -m strategies.sealed_seat")
    parser.add_argument("--fd", type=int, required=True, help="socket to the engine's process")
    parser.add_argument("spec", help="the strategy (built-in name, MODULE:NAME or FILE.py:NAME)")
    args = parser.parse_args(argv)
    serve(Connection(args.fd), args.spec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
