"""A study comparing two arms (joint against bisection) end to end: 40 participants come
in at once through ``tradeoff study serve --workers 2`` (two worker processes assigning
under the study's lock), are answered by simulated people, and ``study status``,
``study export`` and ``study report`` show each arm's results side by side."""

from __future__ import annotations

import asyncio
import csv
import json
import shutil
from pathlib import Path

import pytest

from tradeoff.ask.metric import normalise
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.cli import main
from tradeoff.record.log import read_session
from tradeoff.simulation.oracles import SimulatedOracle
from tradeoff.simulation.simulate import score_run
from tradeoff.study.arm_specs import ArmSpec
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.opening import resume_session

from ..conftest import ROOT, small_scenario_file
from ..web.test_web_processes import start, stop
from ..webclient import Participant
from .test_arms_race import counts_in_order

pytestmark = pytest.mark.e2e

PEOPLE = [f"p{n:02d}" for n in range(1, 41)]


def true_weights(n: int) -> tuple[float, ...]:
    """A simulated participant's true weights (per unit, the scenario's order)."""
    return ((0.5, 0.3, 0.1, 0.1), (0.3, 0.5, 0.1, 0.1), (0.2, 0.2, 0.3, 0.3))[n % 3]


async def enter_all(base: str, codes: dict[str, str]) -> list[str]:
    """Every participant enters their code at once; the heading of the page each lands on."""

    async def one(code: str) -> str:
        p = Participant(base)
        try:
            return (await p.enter(code)).h1
        finally:
            await p.close()

    return await asyncio.gather(*(one(codes[pid]) for pid in PEOPLE))


def answer_all(study: Study) -> dict[str, str]:
    """Each participant's session answered by a simulated person to the end and finished;
    the right pick of each, from their true weights."""
    sc = load_scenario(study.scenario_path).scenario
    pool = scenario_pool(sc, study.scenario_path.parent)
    rights = {}
    for n, pid in enumerate(PEOPLE):
        [path] = sorted((study.sessions_dir / pid).glob("*.jsonl"))
        oracle = SimulatedOracle.for_scenario(sc, true_weights(n), seed=n)
        truth = tuple(float(x) for x in normalise(true_weights(n)))
        with resume_session(path, cache_dir=study.cache_dir) as rec:
            while (q := rec.engine.next_query()) is not None:
                rec.answer(oracle.choose(q))
            rights[pid] = score_run(sc, pool, rec.engine, truth).truth_best
            rec.finish()
    return rights


def test_two_arms_over_two_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    smaller = {"budget = 30": "budget = 6", "seed = 569": "seed = 569\nsamples = 20000"}
    scenario = small_scenario_file(tmp_path, "breast-cancer-triage", **smaller)
    shutil.copytree(ROOT / "scenarios" / "pools", tmp_path / "pools")
    study, codes = create_study(
        scenario,
        PEOPLE,
        tmp_path / "study",
        arms=[ArmSpec("joint", None, "joint"), ArmSpec("bisection", None, "bisection")],
    )
    server, base = start(study, "--workers", "2")
    try:
        headings = asyncio.run(enter_all(base, codes))
    finally:
        code, err = stop(server)
    assert code == 0 and "Traceback" not in err, err
    assert headings == ["Question 1"] * 40
    # balanced within one at every moment, each participant assigned once
    for counts in counts_in_order(study.path):
        assert abs(counts.get("joint", 0) - counts.get("bisection", 0)) <= 1, counts
    study = load_study(study.path)
    strategies = {}
    for pid in PEOPLE:
        [path] = sorted((study.sessions_dir / pid).glob("*.jsonl"))
        strategies[pid] = read_session(path).header.spec.strategy
    assert sorted(strategies.values()) == ["bisection"] * 20 + ["joint"] * 20
    rights = answer_all(study)

    assert main(["study", "status", str(study.path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert {a: c["complete"] for a, c in status["arms"].items()} == {"joint": 20, "bisection": 20}
    assert all(r["arm"] == strategies[r["participant"]] for r in status["rows"])

    out = tmp_path / "answers.csv"
    assert main(["study", "export", str(study.path), "--out", str(out), "--json"]) == 0
    capsys.readouterr()
    people = list(csv.DictReader((tmp_path / "answers.participants.csv").open()))
    assert {r["participant"]: r["arm"] for r in people} == strategies
    answers = list(csv.DictReader(out.open()))
    assert {r["arm"] for r in answers} == {"joint", "bisection"}
    assert all(r["arm"] == strategies[r["participant"]] for r in answers)
    codebook = (tmp_path / "answers.csv.codebook.csv").read_text()
    assert codebook.count("\narm,") + codebook.count(",arm,") >= 2

    truths = tmp_path / "truths.csv"
    truths.write_text("participant,right_pick\n" + "".join(f"{p},{r}\n" for p, r in rights.items()))
    report = tmp_path / "report"
    argv = ["study", "report", str(study.path), "--out", str(report), "--truths", str(truths)]
    assert main(argv) == 0
    said = capsys.readouterr().out
    assert "| joint | 20 | 20 |" in said and "| bisection | 20 | 20 |" in said
    compared = json.loads((report / "arms.json").read_text())
    by_arm = {a["arm"]: a for a in compared["arms"]}
    picks = {r["participant"]: r["final_pick"] for r in people}
    for arm in ("joint", "bisection"):
        mine = [p for p in PEOPLE if strategies[p] == arm]
        assert by_arm[arm]["right_picks"] == sum(picks[p] == rights[p] for p in mine)
        assert by_arm[arm]["with_known_right_pick"] == 20
    [diff] = compared["differences"]
    r = diff["right_picks"]
    assert r["low"] <= r["difference"] <= r["high"]
    q = diff["median_questions"]
    assert q["low"] <= q["difference"] <= q["high"]
