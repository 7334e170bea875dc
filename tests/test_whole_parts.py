"""What a practitioner reads, in its parts: shares of one whole add up to 100 % as shown
(largest remainder, through ``tradeoff.stable``); a count per 1,000 says of which class's
cases; COPA's table says that a lower score is better and marks a tie; ``pick`` names the
pool file it read; a dataset whose classes are text labels is told to rename them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tradeoff.ask.narrative import tradeoff_sentences, tradeoffs
from tradeoff.ask.scenario import load_scenario
from tradeoff.ask.words import difference_words
from tradeoff.choose.copa import tied
from tradeoff.choose.pick_text import pool_line
from tradeoff.choose.rank import rank_pool
from tradeoff.choose.words import acceptability_words, order_words
from tradeoff.cli.rank import format_rank
from tradeoff.data import shipped_scenarios
from tradeoff.pool import Objective, load_pool
from tradeoff.stable import whole_parts, whole_percents

from .conftest import ROOT, SCENARIOS

pytestmark = pytest.mark.core

TRIAGE = SCENARIOS / "breast-cancer-triage.toml"


def _number(text: str) -> float:
    return float(text.rstrip("%"))


def test_the_oncologists_shares_read_100_not_101() -> None:
    # Their swing weights: 60.9 %, 36.8 %, 1.5 % and 0.8 % read 61 + 37 + 2 + 1 = 101.
    shares = [0.6086, 0.3675, 0.0156, 0.0083]
    assert sum(round(100 * s) for s in shares) == 101
    shown = whole_percents(shares)
    assert sum(_number(p) for p in shown if p) == 100
    assert sum(_number(p) for p in whole_percents(shares, decimals=1) if p) == pytest.approx(100)


def test_parts_add_up_and_none_moves_by_a_whole_unit_of_the_last_digit() -> None:
    rng = np.random.default_rng(7)
    for k in (2, 3, 4, 7):
        for decimals in (0, 1):
            for shares in rng.dirichlet(np.full(k, 0.4), size=200):
                parts = whole_parts(shares.tolist(), decimals)
                units = 100 * 10**decimals
                assert sum(p for p in parts if p is not None) == units
                exact = shares * units
                assert all(
                    abs(p - x) < 1 for p, x in zip(parts, exact, strict=True) if p is not None
                )


def test_parts_do_not_hang_on_the_last_bits_of_a_float() -> None:
    a = whole_parts([0.125, 0.125, 0.75])
    b = whole_parts([0.125 + 1e-17, 0.125 - 1e-17, 0.75])
    assert a == b == (13, 12, 75)  # equal remainders: the first listed is rounded up


def test_a_list_of_every_models_chance_adds_up_to_100() -> None:
    table = np.array([[0.425, 0.5], [0.425, 0.4], [0.15, 0.1]])
    said = acceptability_words(table, ["a", "b", "c"]).partition(": ")[2]
    numbers = [int(n) for n in re.findall(r" (\d+)%", said.partition(";")[0])]
    assert sum(numbers) == 100, said
    # a list that leaves models out is not a whole: its numbers stay as they are
    four = np.array([[0.425, 0.5], [0.425, 0.4], [0.1, 0.1], [0.05, 0.0]])
    assert "c 10%" in acceptability_words(four, ["a", "b", "c", "d"])


def test_every_count_per_1000_says_of_which_class() -> None:
    sc = load_scenario(TRIAGE).scenario
    w = np.array([0.5, 0.3, 0.1, 0.1]) / np.array([0.37, 0.63, 1.0, 1.0])
    wide = np.tile(w, (100, 1)) * np.geomspace(0.01, 3.0, 100)[:, None] ** np.array([0, 1, 0, 0])
    said = tradeoff_sentences(sc, w, [0.37, 0.63])
    said += [t.text for t in tradeoffs(sc, w, [0.37, 0.63], wide)]
    said += difference_words(sc, [0.95, 0.90, 0.2, 10.0], [0.93, 0.91, 0.2, 10.0])
    labels = "|".join(re.escape(c.label) for c in sc.classes)
    for sentence in said:
        for found in re.finditer(r"per 1,000(?! (" + labels + "))", sentence):
            pytest.fail(f"a count per 1,000 of no class at {found.start()}: {sentence}")
    assert any(
        "cleared benign lumps per 1,000 benign lumps" in s
        and "flagged malignant lumps per 1,000 malignant lumps" in s
        for s in said
    )


def test_the_copa_table_says_lower_is_better_and_marks_ties() -> None:
    pool = load_pool(
        SCENARIOS / "pools" / "breast-cancer.csv",
        [
            Objective.parse(o)
            for o in ("recall_malignant:max", "recall_benign:max", "latency_ms:min")
        ],
    )
    outcome = rank_pool(pool, weights=[1 / 3, 1 / 3, 1 / 3], top=8)
    text = format_rank(outcome, pool.labels)
    assert order_words() in " ".join(text.splitlines()) and "a lower score is better" in text
    said = [line for line in text.splitlines() if "score" in line and "#" not in line]
    assert said and all(len(line) <= 80 for line in said)  # a sentence, wrapped for 80 columns
    rows = [line for line in text.splitlines() if re.match(r"\s+\d+ ", line)]
    marked = [line.split()[1] for line in rows if re.search(r"\d=\s", line)]
    assert marked == ["svm-rbf-C10", "logreg-C1-t0.35"]  # 0.1765 both
    scores = [float(line.split()[2].rstrip("=")) for line in rows]
    assert scores == sorted(scores)
    data = outcome.to_dict()
    assert data["lower_is_better"] is True
    assert [r["name"] for r in data["ranking"] if r["tied"]] == marked
    assert tied([0.1, 0.2, 0.3]) == (False, False, False)


def test_pick_names_the_pool_it_read() -> None:
    shipped = shipped_scenarios() / "pools" / "breast-cancer.csv"
    assert pool_line("mine.csv", given=True) == "Pool: mine.csv"
    assert "as shipped with tradeoff" in pool_line(str(shipped), given=False)
    checkout = str(ROOT / "scenarios" / "pools" / "breast-cancer.csv")
    assert pool_line(checkout, given=False) == f"Pool: {checkout} (the scenario's [pool])"


def test_text_labels_are_told_to_be_renamed_not_the_session_recorded_again(
    tmp_path: Path,
) -> None:
    from tradeoff.choose.scorer import tuning_for
    from tradeoff.errors import InputError
    from tradeoff.pool.measuring import Dataset

    session = next((ROOT / "sessions" / "examples" / "example-oncologist").glob("*.jsonl"))
    data = Dataset(
        np.zeros((4, 1)),
        np.array(["M", "B", "M", "B"]),
        {"B": "B", "M": "M"},
        "wdbc.csv, target column 'diagnosis'",
        str(tmp_path / "wdbc.csv"),
    )
    with pytest.raises(InputError) as caught:
        tuning_for(session, data)
    said = str(caught.value)
    assert said.startswith(f"{tmp_path / 'wdbc.csv'}: target column 'diagnosis': ")
    assert "rename the values of the target column ('B' → 'benign', 'M' → 'malignant')" in said
    assert "need not be recorded again" in said


def test_a_session_on_a_shipped_scenario_reads_the_shipped_pool_wherever_it_was_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recorded from a copy of the shipped scenario in another folder (another checkout's,
    another machine's), whose pool was edited since, a session reads the pool shipped with
    tradeoff; recorded on a scenario that is not as shipped, the pool beside it."""
    import shutil

    from tradeoff.cli import main
    from tradeoff.learn.engine import truth_from_dirichlet
    from tradeoff.simulation.oracles import SimulatedOracle
    from tradeoff.study.opening import start_session

    def session(folder: Path, edit: str = "") -> Path:
        (folder / "pools").mkdir(parents=True)
        shutil.copy(SCENARIOS / "pools" / "breast-cancer.csv", folder / "pools")
        text = (SCENARIOS / "breast-cancer-triage.toml").read_text()
        (folder / "breast-cancer-triage.toml").write_text(
            text.replace("budget = 30", edit or "budget = 30", 1)
        )
        pool = (folder / "pools" / "breast-cancer.csv").read_text().splitlines()
        (folder / "pools" / "breast-cancer.csv").write_text("\n".join(pool[:4]) + "\n")
        loaded = load_scenario(folder / "breast-cancer-triage.toml")
        rec = start_session(loaded, "p01", folder / "sessions", seed=1)
        spans = rec.engine.space.spans
        oracle = SimulatedOracle.for_scenario(
            loaded.scenario, truth_from_dirichlet(spans, np.random.default_rng(1)), seed=1
        )
        with rec:
            for _ in range(2):
                query = rec.engine.next_query()
                assert query is not None
                rec.answer(oracle.choose(query))
        return rec.path

    as_shipped = session(tmp_path / "copy")
    assert main(["pick", "--session", str(as_shipped), "--json"]) == 0
    import json

    said = json.loads(capsys.readouterr().out)
    assert Path(said["pool"]) == shipped_scenarios() / "pools" / "breast-cancer.csv"
    edited = session(tmp_path / "edited", "budget = 29")  # not the shipped scenario
    main(["pick", "--session", str(edited), "--json"])
    out = capsys.readouterr().out
    assert str(tmp_path / "edited" / "pools" / "breast-cancer.csv") in out
