"""Learning from choices recorded elsewhere (``tradeoff choices``): the files are checked
with located errors, each held-out row gets the posterior predictive of the engine's own
answer model (symmetric in the sides, ½ for two options that read the same, learned from
the person's choices); ``fit``: tests/record/test_choices_fit.py."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from benchmarks.train_choices import converted, split
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.learn.choices import forced, learn_choices, pairs, predict_person, predictive
from tradeoff.study.choices import read_choices

from ..conftest import scenario

pytestmark = [pytest.mark.core, pytest.mark.other_path]

HEADER = "person,A_price,A_time,A_changes,A_discomfort,B_price,B_time,B_changes,B_discomfort"
CHEAP, FAST = "20,150,0,1", "40,120,0,1"


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def train_file(tmp_path: Path, people: dict[str, str]) -> Path:
    """Six choices per person between the cheap and the fast trip, each answered
    ``people[person]`` (A: the cheap one)."""
    rows = [f"{p},{CHEAP},{FAST},{a}" for p, a in people.items() for _ in range(6)]
    return write(tmp_path / "train.csv", [HEADER + ",answer", *rows])


@pytest.mark.parametrize(
    ("line", "where", "fragment"),
    [
        ("ana,20,150,0,1,40,120,0,1,maybe", "line 2, column 'answer'", "write A, B or can't"),
        ("ana,twenty,150,0,1,40,120,0,1,A", "line 2, column 'A_price'", "is not a number"),
        ("ana,20,150,0,1,40,999,0,1,A", "line 2, column 'B_time'", "lies outside the range"),
        (  # most often another unit: the unit is named, and where to widen the range
            "ana,2000,150,0,1,40,120,0,1,A",
            "line 2, column 'A_price'",
            "the range of price in ƒ ([1, 125] in the scenario). Fix: write price in ƒ within "
            "that range (check that the file writes it in the same unit), or widen the range "
            "in your own copy of the scenario.",
        ),
        ("a/b,20,150,0,1,40,120,0,1,A", "line 2, column 'person'", "not a usable person id"),
        ("ana,20,150,0,1,40,120,0,1", "line 2", "has 9 cells, the header 10"),
    ],
    ids=["answer", "not a number", "out of range", "another unit", "person", "short row"],
)
def test_mistakes_are_located(tmp_path: Path, line: str, where: str, fragment: str) -> None:
    path = write(tmp_path / "t.csv", [HEADER + ",answer", line])
    with pytest.raises(InputError) as info:
        read_choices(path, scenario("train-trips"), answers=True)
    message = info.value.message()
    assert str(path) in message and where in message and fragment in message
    assert "Fix:" in message


def test_lines_are_counted_as_an_editor_counts_them(tmp_path: Path) -> None:
    """Blank lines count; a cell the csv module refuses names its line, not a traceback."""
    good = "ana,20,150,0,1,40,120,0,1,A"
    path = write(tmp_path / "t.csv", ["", HEADER + ",answer", "", good, "", good[:-1] + "maybe"])
    with pytest.raises(InputError) as info:
        read_choices(path, scenario("train-trips"), answers=True)
    assert "line 6, column 'answer'" in info.value.message()
    path = write(tmp_path / "t.csv", [HEADER + ",answer", good, "ana," + "9" * 200_000])
    with pytest.raises(InputError) as info:
        read_choices(path, scenario("train-trips"), answers=True)
    assert f"{path}: line 3: has a cell longer than 131,072 characters" in info.value.message()
    path = write(tmp_path / "t.csv", ["", HEADER])
    with pytest.raises(InputError) as info:
        read_choices(path, scenario("train-trips"), answers=True)
    assert "line 2 (header): has no column 'answer'" in info.value.message()


def test_a_missing_column_names_the_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "t.csv", [HEADER, f"ana,{CHEAP},{FAST}"])
    args = ["choices", "fit", str(path), "--scenario", "train-trips"]
    assert main([*args, "--sessions-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "line 1 (header): has no column 'answer'" in err and "B_discomfort, answer" in err
    assert "Traceback" not in err
    assert "(the aspects as the shipped scenario 'train-trips' names them)" in err


def test_a_shipped_scenario_is_named_by_its_id_and_where_to_copy_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shipped scenario given by its id is named so in the messages (not by the folder
    the package is installed in), and the fix that widens a range says which file to copy;
    a scenario of the user's own is named by its path."""
    from tradeoff.data import shipped_scenarios

    path = write(tmp_path / "t.csv", [HEADER + ",answer", "ana,2000,150,0,1,40,120,0,1,A"])
    args = ["choices", "fit", str(path), "--sessions-dir", str(tmp_path / "s")]
    assert main([*args, "--scenario", "train-trips"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "([1, 125] in the shipped scenario 'train-trips')" in err
    shipped = shipped_scenarios() / "train-trips.toml"
    assert f"your own copy of the scenario (copy {shipped} and give --scenario the copy)" in err
    own = tmp_path / "mine.toml"
    own.write_bytes(shipped.read_bytes())
    assert main([*args, "--scenario", str(own)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"([1, 125] in {own})" in err and "give --scenario the copy" not in err


@pytest.mark.parametrize(
    ("header", "answers", "fragment"),
    [
        (
            HEADER.replace("A_time", "A_tme") + ",answer",
            True,
            "no column 'A_time' (perhaps the file's 'A_tme')",
        ),
        (
            HEADER.replace("A_time", "A_TIME") + ",answer",
            True,
            "no column 'A_time' (perhaps the file's 'A_TIME')",
        ),
        ("", True, "is empty: the file holds no header"),
        (HEADER.replace(",", ";") + ";answer", True, "separates its columns with ';'"),
        (HEADER + ",answer,answer", True, "names the column 'answer' more than once"),
        (HEADER + ",p_A", False, "has the column 'p_A', which the predictions add"),
    ],
    ids=["misspelt", "capitals", "empty", "semicolons", "answer twice", "p_A in holdout"],
)
def test_a_header_that_cannot_be_read_says_why(
    tmp_path: Path, header: str, answers: bool, fragment: str
) -> None:
    """Each header mistake is named as it is, not as a list of missing columns: a file
    written with semicolons, an empty file, a misspelt column (with the column meant), an
    answer column twice (which the rows would be read by silently), a holdout that already
    holds the column the predictions add (a header ``p_A,p_A`` in the output)."""
    row = f"ana,{CHEAP},{FAST}" + (",A" if answers else ",0.5")
    path = write(tmp_path / "t.csv", [header, row] if header else [])
    with pytest.raises(InputError) as info:
        read_choices(path, scenario("train-trips"), answers=answers)
    message = info.value.message()
    assert f"{path}: line 1 (header): " in message and fragment in message
    assert "Fix:" in message


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(1.0, 125.0), min_size=2, max_size=2),
    st.lists(st.floats(55.0, 250.0), min_size=2, max_size=2),
)
def test_the_prior_predictive_is_symmetric_in_the_sides(
    prices: list[float], times: list[float]
) -> None:
    sc = scenario("train-trips")
    engine = learn_choices(sc, [], [])
    a, b = [prices[0], times[0], 1.0, 1.0], [prices[1], times[1], 1.0, 1.0]
    p = predictive(engine, pairs(sc, [a, b, a], [b, a, a]))
    assert np.allclose(p.sum(axis=1), 1.0)
    assert forced(p)[0] == pytest.approx(1 - forced(p)[1], abs=1e-9)
    assert forced(p)[2] == pytest.approx(0.5)  # the same trip twice
    if prices[0] <= prices[1] and times[0] <= times[1] and a != b:  # A dominates
        assert forced(p)[0] > 0.5


def test_a_persons_choices_move_their_predictions(tmp_path: Path) -> None:
    sc = scenario("train-trips")
    cheap, fast = [20.0, 150, 0, 1], [40.0, 120, 0, 1]
    prior = forced(predict_person(sc, ([], [], []), ([cheap], [fast])))[0]
    saver = forced(predict_person(sc, ([cheap] * 6, [fast] * 6, ["left"] * 6), ([cheap], [fast])))
    hurried = predict_person(sc, ([cheap] * 6, [fast] * 6, ["right"] * 6), ([cheap], [fast]))
    assert saver[0] > 0.8 > prior > 0.2 > forced(hurried)[0]


def test_predict_writes_every_holdout_row_with_its_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    train = train_file(tmp_path, {"ana": "A", "bo": "B"})
    holdout = write(
        tmp_path / "holdout.csv",
        [
            HEADER + ",note",
            f"bo,{CHEAP},{FAST},=1+1",
            f"ana,{CHEAP},{FAST},second",
            f"cy,{CHEAP},{FAST},unseen",
        ],
    )
    out = tmp_path / "pred.csv"
    args = ["choices", "predict", str(train), str(holdout), "--scenario", "train-trips"]
    assert main([*args, "--out", str(out), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said == {
        "out": str(out),
        "rows": 3,
        "people": 3,
        "people_without_train": 1,
        "people_pooled": 0,
        "base_share": None,
        "train_people": 2,
        "train_lines_alike": [],
        "train_lines_chose_worse": [],
    }
    with out.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["person"] for r in rows] == ["bo", "ana", "cy"]  # the holdout's order
    assert [r["note"] for r in rows] == ["'=1+1", "second", "unseen"]  # kept, made safe
    assert [r["train_choices"] for r in rows] == ["6", "6", "0"]
    p = {r["person"]: float(r["p_A"]) for r in rows}
    assert p["ana"] > 0.8 and p["bo"] < 0.2 and 0.2 < p["cy"] < 0.8
    before = out.read_bytes()
    assert main([*args, "--out", str(out)]) == 2  # never overwritten
    assert "already exists" in capsys.readouterr().err and out.read_bytes() == before


def test_the_converter_keeps_every_train_choice() -> None:
    rows = converted()
    assert len(rows) == 2929 and len({r["person"] for r in rows}) == 235
    assert rows[0] == {
        "person": "t001",
        "choiceid": "1",
        "A_price": "24",
        "A_time": "150",
        "A_changes": "0",
        "A_discomfort": "1",
        "B_price": "40",
        "B_time": "150",
        "B_changes": "0",
        "B_discomfort": "1",
        "answer": "A",
    }
    train, held = split(rows, 3)
    assert len(held) == 3 * 235 and len(train) + len(held) == 2929


def test_a_classifier_scenarios_recalls_are_aspects_too() -> None:
    """In a scenario with classes each class's recall is an aspect (A_<class>): a person who
    took the tool finding more glaucoma cases is predicted to do so again."""
    sc = scenario("glaucoma-screening")
    finder, clearer = [0.95, 0.7, 0.3, 10.0], [0.8, 0.9, 0.3, 10.0]
    train = ([finder] * 4, [clearer] * 4, ["left"] * 4)
    p = forced(predict_person(sc, train, ([finder, clearer], [clearer, finder]), priors=(0.1, 0.9)))
    assert p[0] > 0.8 and p[1] == pytest.approx(1 - p[0], abs=1e-9)
