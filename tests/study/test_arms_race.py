"""Arms stay balanced when several processes assign at once: 40 participants assigned by
four racing processes, each under the study's lock; after every assignment (in the order
of ``entries.jsonl``) the arms' counts differ by at most one, and every participant is
assigned once."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from tradeoff.study.arm_specs import ArmSpec
from tradeoff.study.arms import assign_arm, draw
from tradeoff.study.folder import create_study, load_study

from ..conftest import small_scenario_file

pytestmark = pytest.mark.e2e

PEOPLE = [f"p{n:02d}" for n in range(1, 41)]


def _assign_all(folder: str, people: list[str], start: object) -> None:
    study = load_study(folder)
    start.wait()  # type: ignore[attr-defined]
    for pid in people:
        assign_arm(study.path, study.arms, study.arm_seed, pid)


def counts_in_order(folder: Path) -> list[dict[str, int]]:
    """The arms' counts after each ``assigned`` line, in the file's order."""
    counts: dict[str, int] = {}
    out = []
    for line in (folder / "entries.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["event"] == "assigned":
            counts[record["arm"]] = counts.get(record["arm"], 0) + 1
            out.append(dict(counts))
    return out


@pytest.mark.parametrize("arms", [2, 3])
def test_racing_processes_keep_the_arms_balanced(tmp_path: Path, arms: int) -> None:
    specs = [ArmSpec("joint", None, "joint"), ArmSpec("bisection", None, "bisection")]
    specs += [ArmSpec("paper", None, "paper")][: arms - 2]
    study, _ = create_study(small_scenario_file(tmp_path), PEOPLE, tmp_path / "s", arms=specs)
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    # each process is given everyone, in its own order: they race for the same people too
    orders = [PEOPLE, PEOPLE[::-1], PEOPLE[::2] + PEOPLE[1::2], PEOPLE[1::2] + PEOPLE[::2]]
    workers = [
        context.Process(target=_assign_all, args=(str(study.path), order, start))
        for order in orders
    ]
    for w in workers:
        w.start()
    start.set()
    for w in workers:
        w.join(timeout=120)
        assert w.exitcode == 0
    lines = [json.loads(line) for line in (study.path / "entries.jsonl").read_text().splitlines()]
    assert sorted(r["participant"] for r in lines) == PEOPLE  # each once
    names = [s.name for s in specs]
    for counts in counts_in_order(study.path):
        values = [counts.get(name, 0) for name in names]
        assert max(values) - min(values) <= 1, counts
    assert [r["number"] for r in lines] == list(range(40))
    recount = dict.fromkeys(names, 0)
    for r in lines:  # each line's counts are the lines before it, and its arm a fewest
        assert r["counts"] == recount
        assert r["tied"] == [n for n in names if recount[n] == min(recount.values())]
        assert r["arm"] == draw(study.arm_seed, r["number"], r["tied"])
        recount[r["arm"]] += 1
