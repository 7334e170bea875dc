"""`session show` names the pick the questions stopped on, with the same number `select`
shows for the same session (one number everywhere), and says when it is provisional."""

from __future__ import annotations

from pathlib import Path

import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import recorded_pool
from tradeoff.choose.decide import decide
from tradeoff.choose.pick_text import selection_text
from tradeoff.cli.app import format_session
from tradeoff.record.summary import summarise
from tradeoff.simulation.oracles import Noise, SimulatedOracle
from tradeoff.study.opening import start_session
from tradeoff.text import probability_words

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core


def record(folder: Path, who: str, truth: tuple[float, ...], stop_after: int | None) -> Path:
    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    rec = start_session(loaded, who, folder, seed=3)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, truth, noise=Noise("flip", 0.1), seed=3)
    with rec:
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
            if stop_after is not None and rec.engine.answered >= stop_after:
                break
        if stop_after is None:
            rec.finish()
    return rec.path


@pytest.mark.parametrize(
    ("truth", "stop_after"), [((0.3, 0.5, 0.1, 0.1), None), ((0.2, 0.2, 0.3, 0.3), 4)]
)
def test_session_show_and_select_state_one_pick_and_one_number(
    tmp_path: Path, truth: tuple[float, ...], stop_after: int | None
) -> None:
    path = record(tmp_path, "dr-kim", truth, stop_after)
    summary = summarise(path)
    verdict = summary.verdict
    assert verdict is not None
    h = summary.log.header
    found = recorded_pool(h.scenario, h.candidate_array(), summary.result.priors)
    names = None if found is None else found[1]
    assert names is not None and len(names) == len(h.candidates or ())
    shown = format_session(summary)
    decision = decide([path])
    rec = decision.recommendations[0]
    assert rec.name == names[verdict.pick]
    assert rec.stated == pytest.approx(verdict.stated, abs=1e-12)
    said = probability_words(verdict.stated)
    pick_line = next(x for x in shown.splitlines() if x.startswith("The pick the questions"))
    assert rec.name in pick_line and said in pick_line
    assert said in selection_text(decision.selection)
    data = summary.to_dict()
    assert data["pick"]["candidate"] == verdict.pick
    assert data["pick"]["stated_probability"] == verdict.stated
    if stop_after is None:
        assert "stopped on" in pick_line and "Unfinished" not in shown
    else:
        assert "stand on now" in pick_line and "Unfinished" in shown
        assert "Unfinished" in selection_text(decision.selection)


def test_candidate_names_need_the_recorded_rows(tmp_path: Path) -> None:
    """A pool that changed since the session was recorded gives no names (not wrong ones)."""
    path = record(tmp_path, "dr-lee", (0.3, 0.5, 0.1, 0.1), 2)
    summary = summarise(path)
    h = summary.log.header
    rows = h.candidate_array()
    assert rows is not None
    assert recorded_pool(h.scenario, rows, summary.result.priors) is not None
    assert recorded_pool(h.scenario, rows + 0.01, summary.result.priors) is None
    assert recorded_pool(h.scenario, None, summary.result.priors) is None


def test_session_show_names_the_pick_from_a_scenario_of_ones_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scenario and its pool in a folder of one's own (not scenarios/): `session show`
    reads the pool beside the scenario file the session was recorded from, and names the
    pick (it said "candidate 2 of the recorded pool")."""
    import shutil

    own = tmp_path / "own"
    (own / "pools").mkdir(parents=True)
    text = (SCENARIOS / "breast-cancer-triage.toml").read_text(encoding="utf-8")
    text = text.replace("breast-cancer-triage", "my-triage").replace("breast-cancer.csv", "my.csv")
    (own / "triage.toml").write_text(text)
    shutil.copy(SCENARIOS / "pools" / "breast-cancer.csv", own / "pools" / "my.csv")
    loaded = load_scenario(own / "triage.toml")
    assert loaded.scenario.id == "my-triage"
    rec = start_session(loaded, "dr-kim", tmp_path / "sessions", seed=3)
    oracle = SimulatedOracle.for_scenario(loaded.scenario, (0.3, 0.5, 0.1, 0.1))
    with rec:
        for _ in range(3):
            query = rec.engine.next_query()
            assert query is not None
            rec.answer(oracle.choose(query))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    summary = summarise(rec.path)
    assert summary.verdict is not None
    pick_line = next(
        x for x in format_session(summary).splitlines() if x.startswith("The pick the questions")
    )
    assert "candidate" not in pick_line
    assert decide([rec.path]).recommendations[0].name in pick_line


def test_session_show_says_when_the_pick_rests_on_one_answer(tmp_path: Path) -> None:
    """Five questions, the one about latency answered the wrong way round by a person who
    weighs latency most: the pick stands at P(best) ≥ 0.95 on that one answer, and
    `session show` says so, naming latency (text and JSON)."""
    from tradeoff.ask.shown import card_lines
    from tradeoff.learn import Choice
    from tradeoff.learn.verdict import one_answer_words

    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    sc = loaded.scenario
    spec = sc.elicitation.override(strategy="joint", budget=5)
    rec = start_session(loaded, "dr-kim", tmp_path, spec=spec, seed=0)
    oracle = SimulatedOracle.for_scenario(sc, (0.364832, 0.003555, 0.630419, 0.001194))
    turned = {Choice.LEFT: Choice.RIGHT, Choice.RIGHT: Choice.LEFT}
    reversed_once = False
    with rec:
        while (q := rec.engine.next_query()) is not None:
            choice = oracle.choose(q)
            if card_lines(sc, q.left, q.right)[2].differs and not reversed_once:
                choice, reversed_once = turned.get(choice, choice), True
            rec.answer(choice)
        rec.finish()
    summary = summarise(rec.path)
    verdict = summary.verdict
    assert verdict is not None and verdict.stated >= 0.95 and 2 in verdict.one_answer
    names = summary.result.names
    assert set(verdict.one_answer) == set(verdict.thin + verdict.unsure).union(*verdict.held)
    said = one_answer_words(
        [names[j] for j in verdict.thin],
        [[names[j] for j in held] for held in verdict.held],
        len(names),
        unsure=[names[j] for j in verdict.unsure],
        need=verdict.agreeing,
    )
    assert said and said == verdict.rests_words(names)
    assert said in format_session(summary).splitlines()
    pick = summary.to_dict()["pick"]
    assert "latency" in pick["rests_on_one_answer"]
    assert pick["settled_by_fewer_than_two"] == [names[j] for j in verdict.thin]
    assert pick["agreeing_answers_asked"] == verdict.agreeing
    assert pick["settled_by_fewer_than_asked"] == [names[j] for j in verdict.unsure]
