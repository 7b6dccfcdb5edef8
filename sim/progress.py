"""The progress bar of every long run: one tqdm bar on stderr, counting matches or hands."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(total: int, enabled: bool = True, unit: str = "match", desc: str | None = None,
                 initial: int = 0) -> tqdm:
    """A tqdm bar over ``total`` units with the rate shown (``unit``/s); inert when not ``enabled``.

    Every bar of the project is made here, so that they all look alike: on
    stderr (stdout stays for results), SI-scaled counts, a smoothed rate and
    the terminal's width. ``initial`` units count as done (resumed shards).
    """
    return tqdm(total=total, initial=initial, unit=unit, unit_scale=True, desc=desc,
                file=sys.stderr, disable=not enabled, smoothing=0.1, dynamic_ncols=True)
