"""The pick walk: the rooms one ``tradeoff pick`` (once ``select``) passes through, and how
often it comes back to a room it has left.

Run: ``.venv/bin/python -m benchmarks.walk`` (writes benchmarks/results/walk.md).

``tradeoff pick`` runs in this process (``tradeoff.cli.main``) with the example of
sessions/README.md: the shipped pool and the two example sessions. Every Python call is
traced (``sys.setprofile``) and mapped to its room: the first folder under ``tradeoff``
(ask, learn, record, judge, choose, pool, study, cli, ...) or, for a module of its own,
its name (text, stable, ...); calls outside the package keep the room of their caller.
Consecutive calls in one room are one visit. A *return* is a visit to a room visited
before and left since: a walk that finishes each room's work before moving on has none.
A second count folds the shared rooms (the layers under ``ask`` in pyproject's layers
contract: limits, errors, text, stable, ...), used by every stage as tools, into the room
that calls them. A third follows only each function's first call (the reader's walk: the
rooms one passes reading the code in the order it runs, each function once), so a loop
over answers or models does not count each of its turns.

A comprehension's or generator expression's frame (``<listcomp>``, ``<genexpr>``,
``<dictcomp>``, ``<setcomp>``) is part of the function that contains it: Python 3.12
inlines comprehensions (PEP 709), and a generator expression is read where it is written.
Its calls (and a generator's every resumption) are therefore not calls of a function of
their own: they count as the enclosing function, already entered, and are left out of
every walk.

All of the package is imported first, so the walk is the command's, not the imports';
the first walk starts with an empty cache folder (what a new machine does: it builds the
population), the second reuses what the first kept.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import pkgutil
import sys
import tempfile
import threading
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from benchmarks._table import markdown, write

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "sessions" / "examples"
#: The example of sessions/README.md.
SELECT = [
    "pick",
    str(ROOT / "scenarios" / "pools" / "breast-cancer.csv"),
    "--session",
    *map(str, sorted(EXAMPLES.glob("example-oncologist/*.jsonl"))),
    "--session",
    *map(str, sorted(EXAMPLES.glob("example-lab-manager/*.jsonl"))),
]


#: The code names of comprehensions and generator expressions: part of their enclosing function.
COMPREHENSIONS = frozenset({"<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>"})


def room_of(module: str) -> str | None:
    """The room of a module: ``tradeoff.choose.decide`` → ``choose``, ``tradeoff.text`` →
    ``text``; None outside the package.

    >>> room_of("tradeoff.choose.decide"), room_of("tradeoff.text"), room_of("numpy.linalg")
    ('choose', 'text', None)
    """
    if module == "tradeoff":
        return "tradeoff"
    if not module.startswith("tradeoff."):
        return None
    return module.split(".")[1]


@dataclass
class Walk:
    """The rooms visited in order (consecutive calls in one room are one visit)."""

    calls: int = 0
    visits: list[str] = field(default_factory=list)
    returns: Counter[tuple[str, str]] = field(default_factory=Counter)
    seen: set[str] = field(default_factory=set)

    def enter(self, room: str) -> None:
        """A call in ``room``.

        >>> walk = Walk()
        >>> for room in ["cli", "choose", "choose", "pool", "choose", "pool", "study"]:
        ...     walk.enter(room)
        >>> walk.visits, walk.transitions, walk.total_returns
        (['cli', 'choose', 'pool', 'choose', 'pool', 'study'], 5, 2)
        """
        self.calls += 1
        if self.visits and self.visits[-1] == room:
            return
        if room in self.seen:  # entered before, and left since (it is not the last)
            self.returns[(self.visits[-1], room)] += 1
        self.seen.add(room)
        self.visits.append(room)

    @property
    def transitions(self) -> int:
        return max(0, len(self.visits) - 1)

    @property
    def total_returns(self) -> int:
        return sum(self.returns.values())


def shared_rooms() -> set[str]:
    """The rooms under ``ask`` in pyproject's layers contract (used by every stage).

    >>> {"stable", "text", "errors"} <= shared_rooms() and "ask" not in shared_rooms()
    True
    """
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    (layers,) = [
        c["layers"]
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "layers" and c.get("containers") == ["tradeoff"]
    ]
    below = layers[layers.index("ask") + 1 :]
    return {room.strip() for layer in below for room in layer.split("|")}


def walk_of(argv: list[str]) -> tuple[Walk, Walk, Walk]:
    """The walk of ``tradeoff <argv>`` run in this process; the walk with the shared rooms
    (:func:`shared_rooms`) folded into their callers; and the reader's walk: that folded
    walk through each function's first call only (the rooms a reader passes following the
    code in the order it runs, each function read once)."""
    from tradeoff.cli import main

    walk, folded, first = Walk(), Walk(), Walk()
    shared = shared_rooms()
    read: set[tuple[str, int, str]] = set()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name not in COMPREHENSIONS:
            room = room_of(frame.f_globals.get("__name__", ""))
            if room is not None:
                walk.enter(room)
                if room not in shared:
                    folded.enter(room)
                    code = frame.f_code
                    key = (code.co_filename, code.co_firstlineno, code.co_name)
                    if key not in read:
                        read.add(key)
                        first.enter(room)

    out = io.StringIO()
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(argv)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    if code != 0:
        raise SystemExit(f"tradeoff {' '.join(argv)} failed ({code}):\n{out.getvalue()}")
    return walk, folded, first


def import_everything() -> None:
    """Import every module of the package (so no import runs inside the walk)."""
    import tradeoff

    for info in pkgutil.walk_packages(tradeoff.__path__, "tradeoff."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)


def report(walks: dict[str, Walk]) -> str:
    rows = [
        [
            name,
            f"{w.calls:,}",
            len(set(w.visits)),
            f"{w.transitions:,}",
            f"{w.total_returns:,}",
            len(w.returns),
        ]
        for name, w in walks.items()
    ]
    body = markdown(
        ["walk", "calls", "rooms", "transitions", "returns", "room → room pairs that return"],
        rows,
    )
    for name, w in walks.items():
        top = [[f"{a} → {b}", n] for (a, b), n in w.returns.most_common(10)]
        if not w.returns:
            continue
        body += f"\n\nThe ten most frequent returns, {name}:\n\n"
        body += markdown(["from → back to", "returns"], top)
        rooms = Counter(w.visits)
        body += f"\n\nVisits per room, {name}: " + ", ".join(
            f"{room} {n:,}" for room, n in rooms.most_common()
        )
    return body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--verb",
        default="pick",
        help="the command's name (select in versions before pick was its name)",
    )
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    args = parser.parse_args()
    SELECT[0] = args.verb
    with tempfile.TemporaryDirectory(prefix="tradeoff-walk-") as cache:
        os.environ["TRADEOFF_CACHE_DIR"] = cache
        import_everything()
        walks = {}
        for name in ("first (empty cache)", "again (cache kept)"):
            walk, folded, first = walk_of(SELECT)
            walks[name] = walk
            walks[f"{name}, shared rooms folded"] = folded
            walks[f"{name}, shared rooms folded, each function's first call"] = first
    command = "tradeoff " + " ".join(a.replace(str(ROOT) + "/", "") for a in SELECT)
    intro = (
        f"`{command}` run in one process, every Python call traced and mapped to its room "
        "(the first folder under `tradeoff`, or a module of its own); consecutive calls in "
        "one room are one visit; a return is a visit to a room visited before and left "
        "since.\n\n"
    )
    if args.no_write:
        print(intro + report(walks))
    else:
        write("walk", "The pick walk: rooms and returns", intro + report(walks))


if __name__ == "__main__":
    main()
