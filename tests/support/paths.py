"""Where the repository's folders are, for tests that read its files or run its commands there."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The repository's top folder."""

EXAMPLES = REPO / "examples"
NOTEBOOKS = REPO / "notebooks"
