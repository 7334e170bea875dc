"""Files installed with tradeoff: the shipped scenarios and their candidate pools.

In a checkout they are the repository's ``scenarios/`` folder; in an installed wheel they
are package data (``tradeoff/shipped``), so the default command works from anywhere.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def shipped_scenarios() -> Path:
    """The folder of shipped scenario files (``*.toml``, with ``pools/`` beside them)."""
    return Path(str(resources.files("tradeoff") / "shipped"))
