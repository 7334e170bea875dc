"""Numbers checked against what they mean, in every pool reader and writer: a count of cases
is a whole number from 1 to a billion (a count of 10⁴⁰ held `select` for minutes), no
column that has a meaning takes a yes/no value (`True` was one case), a standard error is
at most 1e12, a model name is never empty (an empty one ended `select` in a TypeError), and
the numbers that tie a row to its Optuna trial or MLflow version are whole numbers. Each
refusal names the file, the row, the model, the column, the value, the range and the fix.

Fast: tables of a few rows, loaded and written in the test."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_objectives
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.pool import Measured, load_pool
from tradeoff.pool.meaning import CASES, MAX_CASES, column_meaning, row_number
from tradeoff.pool.optuna_pick import record_pick

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core

SC = load_scenario(SCENARIOS / "breast-cancer-triage.toml").scenario
OBJECTIVES = metric_objectives(SC)
SHIPPED = SCENARIOS / "pools" / "breast-cancer.csv"


def _pool(tmp_path: Path, suffix: str = ".csv", **columns: object) -> Path:
    """The shipped triage pool with ``columns`` set (a list per column, or one value)."""
    frame = pd.read_csv(SHIPPED)
    for name, values in columns.items():
        frame[name] = values
    path = tmp_path / f"pool{suffix}"
    if suffix == ".parquet":
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return path


def _refused(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_pool(path, OBJECTIVES, name_column="model")
    message = caught.value.message()
    assert message.startswith(str(path)) and "Fix: " in message
    return message


def _counts(n: int, row: int, value: object) -> list[object]:
    counts: list[object] = [300] * n
    counts[row - 1] = value
    return counts


@pytest.mark.parametrize("count", [1e40, 1e12, float(MAX_CASES + 1)])
def test_a_count_beyond_a_billion_cases_is_refused_with_its_range(
    tmp_path: Path, count: float
) -> None:
    """10⁴⁰ cases was accepted, and `select` then spent minutes inverting its Beta
    posterior; a count is a whole number from 1 to 1,000,000,000."""
    n = len(pd.read_csv(SHIPPED))
    path = _pool(tmp_path, recall_malignant_cases=_counts(n, 4, count))
    started = time.perf_counter()
    message = _refused(path)
    assert time.perf_counter() - started < 5
    assert "line 5 (model 'logreg-C10'), column 'recall_malignant_cases'" in message
    assert "at most 1,000,000,000" in message and "from 1 to 1,000,000,000" in message


def test_a_billion_cases_is_the_largest_count(tmp_path: Path) -> None:
    n = len(pd.read_csv(SHIPPED))
    path = _pool(tmp_path, recall_malignant_cases=_counts(n, 4, MAX_CASES))
    pool = load_pool(path, OBJECTIVES, name_column="model")
    assert pool.uncertainty is not None and pool.uncertainty.cases[3, 0] == MAX_CASES
    assert CASES.allows(float(MAX_CASES)) and not CASES.allows(float(MAX_CASES) + 1)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_count_of_true_is_refused(tmp_path: Path, suffix: str) -> None:
    """A column of True/False (CSV or Parquet) was read as counts of 1 and 0 cases."""
    n = len(pd.read_csv(SHIPPED))
    path = _pool(tmp_path, suffix, recall_benign_cases=[True] * n)
    message = _refused(path)
    row = "line 2" if suffix == ".csv" else "row 1"  # a Parquet file has no lines
    assert f"{row} (model 'logreg-C0.01'), column 'recall_benign_cases': is True, a yes/no" in (
        message
    )
    assert "a whole number from 1 to 1,000,000,000" in message


def test_a_yes_no_value_in_an_objective_with_a_meaning_is_refused(tmp_path: Path) -> None:
    """A recall of True was a recall of 1."""
    frame = pd.read_csv(SHIPPED).astype({"recall_benign": object})
    frame.loc[1, "recall_benign"] = True
    with pytest.raises(InputError) as caught:
        load_pool("frame.csv", OBJECTIVES, frame=frame, name_column="model")
    message = caught.value.message()
    assert "row 2 (model 'logreg-C0.1'), column 'recall_benign': is True, a yes/no value" in (
        message
    )


def test_a_standard_error_beyond_1e12_is_refused(tmp_path: Path) -> None:
    n = len(pd.read_csv(SHIPPED))
    path = _pool(tmp_path, latency_ms_se=_counts(n, 2, 1e300))
    message = _refused(path)
    assert "line 3 (model 'logreg-C0.1'), column 'latency_ms_se': is 1e+300" in message


@pytest.mark.parametrize("name", ["", "   "])
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_an_empty_model_name_is_a_located_error(tmp_path: Path, name: str, suffix: str) -> None:
    """An empty name (which `pool from-optuna --name user_attrs.name` wrote for an empty
    attribute) ended `select` in `TypeError: 'float' object is not subscriptable`."""
    names = pd.read_csv(SHIPPED)["model"].tolist()
    names[2] = name
    path = _pool(tmp_path, suffix, model=names)
    message = _refused(path)
    row = "line 4" if suffix == ".csv" else "row 3"  # a Parquet file has no lines
    assert f"{row}, column 'model': the model name is empty. Fix: give every model a name." in (
        message
    )


def test_the_writers_refuse_what_the_reader_refuses(tmp_path: Path) -> None:
    """An empty name, a count of 2.5 or of True, a trial number of 1.5: a writer wrote them
    (the reader then refused or crashed); now the writer refuses, naming each."""
    frame = pd.DataFrame(
        {
            "model": ["a", "", "c"],
            "recall_a": [0.9, 0.8, 0.7],
            "recall_a_cases": pd.Series([300, 2.5, True], dtype=object),
            "optuna_trial": [0, 1.5, 2],
        }
    )
    out = tmp_path / "w.csv"
    with pytest.raises(InputError) as caught:
        Measured(frame).write(out)
    message = caught.value.message()
    assert "row 2, column 'model': the model name is empty" in message
    assert "row 2 (model ''), column 'recall_a_cases': is 2.5" in message
    assert "must be a whole number in [1, 1,000,000,000]" in message
    assert "row 3 (model 'c'), column 'recall_a_cases': is True, a yes/no value" in message
    assert "row 2 (model ''), column 'optuna_trial': is 1.5" in message
    assert not out.exists()


@pytest.mark.parametrize("number", [True, 1.5, float("inf"), -1, 1e40, "7", np.True_])
def test_a_trial_number_that_is_no_whole_number_is_refused_before_writing(
    tmp_path: Path, number: object
) -> None:
    """`select --optuna-storage` wrote the pick of trial 1 for a trial number of True (and
    of trial 1 for 1.5); an infinite one ended in OverflowError. Refused first, naming the
    pool, the model, the column, the range and the fix."""
    row = {"model": "m", "optuna_trial": number}
    with pytest.raises(InputError) as caught:
        record_pick("sqlite:///nowhere.db", None, row, {}, source=tmp_path / "pool.csv")
    message = caught.value.message()
    assert message.startswith(str(tmp_path / "pool.csv"))
    assert "row of model 'm', column 'optuna_trial'" in message
    assert "must be a whole number in [0, 1e+12]" in message and "Fix: " in message
    assert "nothing was written" in message


def test_the_numbers_that_tie_a_row_to_its_source() -> None:
    assert row_number({"optuna_trial": 7.0}, "optuna_trial", "p") == 7
    assert row_number({"mlflow_version": np.int64(3)}, "mlflow_version", "p") == 3
    with pytest.raises(InputError, match=r"in \[1, 1e\+12\]"):
        row_number({"mlflow_version": 0}, "mlflow_version", "p")
    assert column_meaning("mlflow_version").whole and column_meaning("optuna_trial").whole


def test_pool_rank_without_a_scenario_reads_recalls_as_shares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a scenario a recall_* column is still a share: pool rank refuses 1.3 with
    the row, model, column and fix (it ranked that model first)."""
    pool = tmp_path / "p.csv"
    pool.write_text("model,recall_malignant,recall_benign\na,0.9,0.9\nb,1.3,0.99\n")
    args = ["pool", "rank", str(pool), "--objective", "recall_malignant:max"]
    assert main([*args, "--objective", "recall_benign:max"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "line 3 (model 'b'), column 'recall_malignant': is 1.3" in err
    assert "the recall of malignant (column recall_malignant) must lie in [0, 1]" in err
    assert "Traceback" not in err


def test_recalls_named_by_other_class_names_are_said_so(tmp_path: Path) -> None:
    """A pool measured on 0/1 labels has recall_0 and recall_1: the scenario's
    recall_malignant is not "perhaps recall_1_se" (a standard error is never a recall)."""
    sc = load_scenario("breast-cancer-triage").scenario
    pool = tmp_path / "p.csv"
    pool.write_text(
        "model,recall_0,recall_1,latency_ms,size_kb,recall_0_se,recall_1_se\n"
        "a,0.9,0.8,1,2,0.01,0.02\nb,0.8,0.9,1,2,0.01,0.02\n"
    )
    with pytest.raises(InputError) as info:
        load_pool(pool, metric_objectives(sc), name_column="model")
    said = info.value.message()
    assert "the file's recalls are recall_0, recall_1: its classes are named otherwise" in said
    assert "_se" not in said.split("Fix:", 1)[1]


def test_a_slip_in_a_recall_column_is_a_slip_and_another_scenarios_pool_is_named_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``recall_benigm`` for ``recall_benign`` is a slip of the keyboard ("did you mean"),
    not a class named otherwise (the advice to rename the file's column to the slip); a
    pool with none of the columns asked for and other classes' recalls (glaucoma's pool
    for a triage session) is said to be another scenario's, once, not column by column."""
    pool = str(SCENARIOS / "pools" / "breast-cancer.csv")
    args = ["pool", "rank", pool, "--objective", "recall_malignant:max"]
    assert main([*args, "--objective", "recall_benigm:max"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "column 'recall_benigm': objective column not found in the file. Fix: did you " in err
    assert "mean 'recall_benign'?" in err and "Rename" not in err
    example = next((SCENARIOS.parent / "sessions" / "examples" / "example-oncologist").iterdir())
    other = str(SCENARIOS / "pools" / "glaucoma.csv")
    assert main(["pick", other, "--session", str(example)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{other}: columns: holds none of the columns its scenario needs" in err, err
    assert "this looks like the pool of another scenario" in err and "problems" not in err


def test_a_slip_in_a_pool_the_scenario_reads_is_the_files_to_rename(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scenario names its columns: a slip in the file's header is to be renamed in the
    file ("did you mean" the file's own slip would be advice backwards); a pool with none
    of the scenario's columns, even without recall columns (glaucoma's names its classes
    'glaucoma' and 'healthy'), is said to be another scenario's, once."""
    frame = pd.read_csv(SHIPPED).rename(columns={"recall_malignant": "recall_malignat"})
    pool = tmp_path / "slip.csv"
    frame.to_csv(pool, index=False)
    example = next((SCENARIOS.parent / "sessions" / "examples" / "example-oncologist").iterdir())
    assert main(["pick", str(pool), "--session", str(example)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "column 'recall_malignant': not found in the file; the scenario needs it." in err
    assert "Fix: rename the file's column 'recall_malignat' to 'recall_malignant'." in err, err
    assert "did you mean" not in err
    glaucoma = load_scenario(SCENARIOS / "glaucoma-screening.toml").scenario
    with pytest.raises(InputError) as info:
        load_pool(SHIPPED, metric_objectives(glaucoma), scenario=True)
    err = info.value.message()
    assert "columns: holds none of the columns its scenario needs (" in err, err
    assert "pool of another scenario" in err and "problems" not in err


def test_a_missing_class_column_is_never_offered_another_class(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without recall_benign, "did you mean 'recall_malignant'?" would score one class's
    recall as the other's: another objective's column is never the fix; the columns are
    listed instead."""
    frame = pd.read_csv(SHIPPED).drop(columns=["recall_benign"])
    pool = tmp_path / "nobenign.csv"
    frame.to_csv(pool, index=False)
    example = next((SCENARIOS.parent / "sessions" / "examples" / "example-oncologist").iterdir())
    assert main(["pick", str(pool), "--session", str(example)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "column 'recall_benign': not found in the file; the scenario needs it." in err
    assert "did you mean 'recall_malignant'" not in err and "the columns are 'model'" in err
