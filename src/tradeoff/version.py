"""The installed version of tradeoff, read from the package's metadata (``pyproject.toml``
is the one place it is written). Sessions record it; a session of another version replays
with that version named.

>>> from tradeoff.version import __version__
>>> __version__.count(".") >= 2
True
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tradeoff")
except PackageNotFoundError:  # pragma: no cover - run from a source tree never installed
    __version__ = "0.0.0+unknown"
