"""A backend for tests: shards run here, but each job's config crosses a JSON wire first."""

from __future__ import annotations

import json

from sim.scale.backends import Backend


class WireBackend(Backend):
    """Runs every shard in this process after a JSON round trip of its job's config, and keeps
    the configs the jobs got (:attr:`configs`).

    A remote worker (dask) gets only what the config carries: a run option the
    config loses, or one that is not JSON-ready, shows here without a cluster.
    Not named ``"local"``, so the runner checks the configs as it does for dask.
    """

    name = "wire"

    def __init__(self):
        self.configs: list[dict] = []

    def run(self, fn, calls):
        for index, kwargs in calls:
            config = json.loads(json.dumps(kwargs["config"]))
            self.configs.append(config)
            yield index, fn(**{**kwargs, "config": config})
