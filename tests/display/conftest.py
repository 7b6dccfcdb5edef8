"""Fixtures of the display tests: the browser session of :mod:`tests.support.browser`."""

from tests.support.browser import browser, chromium  # noqa: F401  (fixtures, found by name)
