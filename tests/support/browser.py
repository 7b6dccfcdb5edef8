"""Test setup for browser tests: Debian's Chromium, installed on demand, driven by Playwright.

The project's browser tests run in a real headless Chromium from the system's
packages (``/usr/bin/chromium``). CI runs the tests as root on a clean Debian
machine, so when Chromium is missing and this process is root with ``apt-get``
at hand, :func:`ensure_chromium` installs Debian's ``chromium`` package (about
half a minute to a few minutes, once per machine). Anywhere else a missing
Chromium or a missing ``playwright`` package skips the browser tests with the
reason. Playwright only drives the system's Chromium: it never downloads a
browser of its own.

Fixtures (registered by ``tests/display/conftest.py``):

``chromium``
    Session: the path of the Chromium executable (installed if need be).
``browser``
    Session: a Playwright ``Browser`` running that Chromium headless.

Screenshots and other artifacts go to :func:`artifact_directory`:
``$FIVE_UP_TEST_ARTIFACTS`` if set, else ``tests/artifacts`` (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.paths import REPO

CHROMIUM = Path("/usr/bin/chromium")
"""Where Debian's ``chromium`` package puts the browser."""

APT_PACKAGES = ("chromium",)
"""Debian packages the browser tests need (Playwright needs no chromium-driver)."""

INSTALL_TIMEOUT_SECONDS = 1800
"""Upper bound on ``apt-get update`` plus the install, on a slow mirror."""

LOCK_WAIT_SECONDS = 600
"""How long apt-get waits for the package database lock held by another apt run."""

ARTIFACTS_VARIABLE = "FIVE_UP_TEST_ARTIFACTS"
"""Environment variable naming the directory that receives test artifacts (screenshots)."""

DEFAULT_ARTIFACTS = REPO / "tests" / "artifacts"
"""Artifact directory when :data:`ARTIFACTS_VARIABLE` is unset (git-ignored)."""

CHROMIUM_FLAGS = (
    # Root has no user namespace sandbox here; the closed network refuses Chromium's
    # background connections, so switch every one of them off.
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
"""Command-line flags for headless Chromium on this project's machines."""


def install_command() -> str:
    """The shell command that installs :data:`APT_PACKAGES` (Debian, as root)."""
    packages = " ".join(APT_PACKAGES)
    # Wait for a lock that another apt run holds (a second test run installing at once).
    wait = f"-o DPkg::Lock::Timeout={LOCK_WAIT_SECONDS}"
    return f"apt-get {wait} update && apt-get {wait} install -y --no-install-recommends {packages}"


def ensure_chromium() -> tuple[Path | None, str]:
    """Find Chromium, installing Debian's package when possible.

    Returns
    -------
    (Path or None, str)
        The executable and how it was found (``"installed in 41 s"``), or None
        and why it cannot be had (the skip reason).
    """
    if CHROMIUM.exists():
        return CHROMIUM, "already installed"
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None, f"{CHROMIUM} is missing and installing it needs root: {install_command()}"
    if shutil.which("apt-get") is None:
        return None, f"{CHROMIUM} is missing and there is no apt-get to install {APT_PACKAGES}"
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    start = time.monotonic()
    try:
        run = subprocess.run(["sh", "-c", install_command()], capture_output=True, text=True,
                             env=environment, timeout=INSTALL_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        return None, f"installing {APT_PACKAGES} took over {INSTALL_TIMEOUT_SECONDS} s"
    seconds = time.monotonic() - start
    if run.returncode != 0 or not CHROMIUM.exists():
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"`{install_command()}` failed (status {run.returncode}): {last}"
    return CHROMIUM, f"installed in {seconds:.0f} s"


def artifact_directory() -> Path:
    """The directory for test artifacts (created): ``$FIVE_UP_TEST_ARTIFACTS`` or ``tests/artifacts``."""
    directory = Path(os.environ.get(ARTIFACTS_VARIABLE) or DEFAULT_ARTIFACTS)
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.fixture(scope="session")
def chromium(pytestconfig) -> Path:
    """The Chromium executable, installed with apt-get if missing (as root); else skip.

    Says in the test log where Chromium is and how it was found (an install's duration).
    """
    path, how = ensure_chromium()
    if path is None:
        pytest.skip(how)
    reporter = pytestconfig.pluginmanager.get_plugin("terminalreporter")
    capture = pytestconfig.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():  # past the capture, into the run's log
            reporter.write_line(f"browser tests: {path} ({how})")
    return path


@pytest.fixture(scope="session")
def browser(chromium):
    """A headless Playwright Chromium ``Browser`` on the system's Chromium, for the session."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="the test extra's playwright package is not installed")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(chromium), headless=True,
                                              args=list(CHROMIUM_FLAGS))
        try:
            yield launched
        finally:
            launched.close()
