"""Files installed with tradeoff: the shipped scenarios and their candidate pools.

In a checkout they are the repository's ``scenarios/`` folder; in an installed wheel they
are package data (``tradeoff/shipped``), so the default command works from anywhere, and
every command that takes a scenario file also takes a shipped scenario's id
(:func:`resolve_scenario`).
"""

from __future__ import annotations

import difflib
from importlib import resources
from pathlib import Path


def shipped_scenarios() -> Path:
    """The folder of shipped scenario files (``*.toml``, with ``pools/`` beside them)."""
    return Path(str(resources.files("tradeoff") / "shipped"))


def shipped_ids() -> tuple[str, ...]:
    """The ids of the shipped scenarios (each file is ``<id>.toml``), sorted.

    >>> "glaucoma-screening" in shipped_ids()
    True
    """
    return tuple(sorted(p.stem for p in shipped_scenarios().glob("*.toml")))


def resolve_scenario(path: str | Path) -> Path:
    """The scenario file a user means: ``path`` when it exists, else the shipped scenario
    of that id (``glaucoma-screening`` or ``glaucoma-screening.toml``), else ``path``
    unchanged (reading it then reports the missing file, see :func:`missing_scenario_fix`).

    >>> resolve_scenario("glaucoma-screening").name
    'glaucoma-screening.toml'
    >>> resolve_scenario("no/such/file.toml").as_posix()
    'no/such/file.toml'
    """
    p = Path(path)
    if p.exists() or len(p.parts) != 1:
        return p
    name = p.name[: -len(".toml")] if p.name.endswith(".toml") else p.name
    if name in shipped_ids():
        return shipped_scenarios() / f"{name}.toml"
    return p


def missing_scenario_fix(path: str | Path) -> str:
    """How to fix a scenario path that names no file: the shipped ids, the closest first.

    >>> missing_scenario_fix("glaucoma")  # doctest: +ELLIPSIS
    "check the path, or give a shipped scenario's id (did you mean glaucoma-screening?); ..."
    """
    ids = shipped_ids()
    stem = Path(path).name.removesuffix(".toml")
    close = difflib.get_close_matches(stem, ids, n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return (
        f"check the path, or give a shipped scenario's id{hint}; `tradeoff scenario list` "
        f"shows them: {', '.join(ids)}."
    )


def said_scenario(path: str | Path) -> str:
    """How a message names the scenario file at ``path``: a shipped scenario by its id
    ("the shipped scenario 'train-trips'", wherever the package is installed), any other
    by its path.

    >>> said_scenario(shipped_scenarios() / "train-trips.toml")
    "the shipped scenario 'train-trips'"
    >>> said_scenario("my/own.toml")
    'my/own.toml'
    """
    p = Path(path)
    if p.suffix == ".toml" and p.resolve().parent == shipped_scenarios().resolve():
        return f"the shipped scenario {p.stem!r}"
    return str(path)
