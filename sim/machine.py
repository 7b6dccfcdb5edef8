"""What machine and software ran a measurement: the line benchmarks print and result manifests keep."""

from __future__ import annotations

import os
import platform
from importlib import metadata
from pathlib import Path

PACKAGES = ("numpy", "numba", "pandas", "matplotlib", "dask", "open_spiel", "cma")
"""Packages whose versions a manifest records (those installed)."""


def cpu_model() -> str:
    """The processor's model name (``/proc/cpuinfo``), else what :mod:`platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> str:
    """One line: ``"<cpu model>, N logical cores, Linux x86_64"``."""
    return f"{cpu_model()}, {os.cpu_count()} logical cores, {platform.system()} {platform.machine()}"


def machine_facts() -> dict:
    """The machine and software as JSON-ready facts: cpu, cores, system, Python and the
    versions of :data:`PACKAGES` that are installed (a missing one is left out)."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name.replace("_", "-"))
        except metadata.PackageNotFoundError:
            continue
    return {"cpu": cpu_model(), "logical_cores": os.cpu_count(),
            "system": f"{platform.system()} {platform.release()} {platform.machine()}",
            "python": platform.python_version(), "packages": versions}
