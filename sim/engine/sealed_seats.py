"""Sealed Python seats: each Python strategy of a sealed run in a process of its own.

In-process Python strategies are the fast default, and trusted code: they run
in the engine's process, so they could read its memory (the workspace with
every hand, the seed and the match are on their call stack and in ``gc``).
Under ``sealed=True`` (``--sealed``) every Python seat gets a
:class:`SealedSeat`: a fresh interpreter (``python -m strategies.sealed_seat``)
that imports the strategy by its spec and is handed, per decision, the fields
of its :class:`strategies.python_view.PythonView` and nothing else; it answers
with the row and its stream counter in a fixed binary frame that is parsed,
never unpickled. The engine plays the match as for an in-process seat, so the
frames are the same (with the same secret).

A seat of a strategy defined in a notebook or ``__main__`` cannot be sealed
(there is nothing to import in another process): the run is refused in one
line. ``decision_timeout`` stops a seat that takes longer for one decision.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from multiprocessing.connection import Connection

from strategies.sealed_seat import MAX_ERROR_BYTES, REPLY_ERROR, REPLY_ROW, ROW_FRAME

CHILD_MODULE = "strategies.sealed_seat"
"""The module a sealed seat's process runs."""

STOP_SECONDS = 5.0
"""How long :meth:`SealedSeat.close` waits for the process to end before killing it."""


class SealedSeatError(RuntimeError):
    """A sealed seat failed: it raised, timed out, or its process ended (one line)."""


class SealedSeat:
    """One Python seat's process (see the module docstring).

    Parameters
    ----------
    spec : str
        What the process resolves (:func:`strategies.catalogue.reference`).
    timeout : float or None
        Seconds allowed per decision.
    """

    def __init__(self, spec: str, timeout: float | None = None):
        self.spec = spec
        self.timeout = timeout
        ours, theirs = socket.socketpair()
        environment = dict(os.environ)
        # The process imports the strategy as this one did: the same import path and directory.
        environment["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", CHILD_MODULE, "--fd", str(theirs.fileno()), spec],
                pass_fds=(theirs.fileno(),), env=environment, stdin=subprocess.DEVNULL)
        finally:
            theirs.close()
        self.connection = Connection(os.dup(ours.fileno()))
        ours.close()

    def choose(self, fields: tuple) -> tuple[int, int]:
        """The row the strategy chooses on a view (its fields, in :class:`PythonView` order) and its
        stream counter after the choice.

        Raises
        ------
        SealedSeatError
            The strategy raised or returned something that is not an integer (its
            text), took longer than the timeout, or its process ended.
        """
        try:
            self.connection.send(fields)
            if self.timeout is not None and not self.connection.poll(self.timeout):
                self.kill()
                raise SealedSeatError(f"took longer than {self.timeout:g} s to decide (the decision timeout)")
            reply = self.connection.recv_bytes(MAX_ERROR_BYTES + 1)
        except (EOFError, OSError):
            code = self.process.poll()
            raise SealedSeatError(f"its sealed process ended (exit status {code})") from None
        if reply[:1] == bytes([REPLY_ERROR]):
            raise SealedSeatError(reply[1:].decode("utf-8", "replace"))
        if len(reply) != ROW_FRAME.size or reply[0] != REPLY_ROW:
            raise SealedSeatError("its sealed process sent a reply that is not a row")
        _, row, counter = ROW_FRAME.unpack(reply)
        return row, counter

    def kill(self) -> None:
        """Stop the process at once."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.connection.close()

    def close(self) -> None:
        """Ask the process to end; kill it if it does not within :data:`STOP_SECONDS`."""
        if self.process.poll() is None:
            try:
                self.connection.send(None)
                self.process.wait(STOP_SECONDS)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
