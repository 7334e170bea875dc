"""No pool file can poison a result: pools are checked against what their columns mean,
the pool writers (`pool from-sklearn`, `pool from-mlflow`) write only what the reader
accepts, text cells are safe in a spreadsheet and read back as written, and MLflow's
aliases and servers are handled with located messages, within seconds.

Real objects only: the shipped scenario and pool, scikit-learn's bundled data and a local
MLflow store made in the test (each part skips, saying why, when its extra is missing)."""

from __future__ import annotations

import math
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.pool import Measured, Objective, load_pool

from ..conftest import SCENARIOS
from .test_pool_sources import BREAST, _sessions, store  # noqa: F401 (store is a fixture)

pytestmark = pytest.mark.e2e

# --- The reader: values against their meaning -------------------------------------------


def _triage_with(tmp_path: Path, row: int, **values: float) -> Path:
    """The shipped triage scenario and its pool, with ``values`` written into data row
    ``row`` (1-based); returns the scenario file."""
    shutil.copy(SCENARIOS / f"{BREAST}.toml", tmp_path)
    shutil.copytree(SCENARIOS / "pools", tmp_path / "pools")
    path = tmp_path / "pools" / "breast-cancer.csv"
    frame = pd.read_csv(path)
    for column, value in values.items():
        frame.loc[row - 1, column] = value
    frame.to_csv(path, index=False)
    return tmp_path / f"{BREAST}.toml"


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("recall_benign", 7.0, "is 7; the recall of benign lumps must lie in [0, 1]"),
        ("recall_malignant", -0.25, "is -0.25; the recall of malignant lumps"),
        ("latency_ms", -0.5, "is -0.5; the cost 'latency' (ms)"),
        ("size_kb", 1.7976931348623157e308, "is 1.79769e+308, beyond ±1e+12"),
    ],
)
def test_a_value_its_column_cannot_hold_is_refused_with_row_model_column_and_fix(
    tmp_path: Path, column: str, value: float, said: str
) -> None:
    scenario_file = _triage_with(tmp_path, 3, **{column: value})
    scenario = load_scenario(scenario_file).scenario
    with pytest.raises(InputError) as err:
        scenario_pool(scenario, tmp_path)
    message = err.value.message()
    model = pd.read_csv(tmp_path / "pools" / "breast-cancer.csv")["model"][2]
    assert message.startswith(str(tmp_path / "pools" / "breast-cancer.csv"))
    assert f"line 4 (model {model!r}), column {column!r}" in message
    assert said in message and "Fix: " in message


def test_select_refuses_a_recall_of_seven_instead_of_recommending_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row of recall_benign = 7.0 was recommended at 100 % ("clears 6,007 more benign
    lumps per 1,000"); now `select` stops with exit 2 and the located message."""
    scenario, sessions = _sessions(tmp_path, [(0.1, 0.6, 0.2, 0.1)])
    pool = tmp_path / "pools" / "breast-cancer.csv"
    frame = pd.read_csv(pool)
    frame.loc[0, "recall_benign"] = 7.0
    frame.to_csv(pool, index=False)
    capsys.readouterr()
    assert main(["select", "--scenario", str(scenario), "--session", str(sessions[0])]) == 2
    err = capsys.readouterr().err
    assert f"{pool}: line 2 (model 'logreg-C0.01'), column 'recall_benign': is 7;" in err
    assert "Traceback" not in err


# --- The writers: one check, safe text cells ----------------------------------------------

HOSTILE = ['=HYPERLINK("http://evil/")', "+1+1", "@SUM(1)", "-2+3", "esc\x1b[31m", "two\nlines"]


def test_pool_writers_check_values_and_write_text_cells_a_spreadsheet_cannot_run(
    tmp_path: Path,
) -> None:
    names = [*HOSTILE, "'=already quoted", "plain"]
    frame = pd.DataFrame(
        {
            "model": names,
            "recall_a": [0.9] * len(names),
            "recall_b": [0.8 - i / 100 for i in range(len(names))],
            "latency_ms": [1.0 + i for i in range(len(names))],
        }
    )
    out = tmp_path / "pool.csv"
    Measured(frame).write(out)
    text = out.read_text()
    assert "\x1b" not in text and text.count("\n") == len(names) + 1
    cells = pd.read_csv(out, dtype=str)["model"].tolist()
    assert not [c for c in cells if c[:1] in "=+-@"], cells
    pool = load_pool(out, [Objective("recall_b", "max")], name_column="model")
    assert list(pool.names[:4]) == HOSTILE[:4]  # the names the person wrote
    assert pool.names[4:6] == ("esc?[31m", "two?lines")  # controls shown as ?
    assert pool.names[6:] == ("'=already quoted", "plain")

    bad = frame.assign(recall_a=[0.9, 7.0, math.nan, 0.9, 0.9, 0.9, 0.9, 0.9])
    with pytest.raises(InputError) as err:
        Measured(bad).write(tmp_path / "bad.csv")
    message = err.value.message()
    assert "row 2 (model '+1+1'), column 'recall_a': is 7" in message
    assert "row 3 (model '@SUM(1)'), column 'recall_a': is NaN" in message
    assert not (tmp_path / "bad.csv").exists()


# --- MLflow ------------------------------------------------------------------------------

POISON = (  # run name, recall_m, latency_ms
    ("good-1", 0.93, 0.23),
    ("good-2", 0.95, 9.5),
    ("nan", math.nan, 0.3),
    ("inf", 0.9, math.inf),
    ("negative", 0.9, -0.5),
    ("seven", 7.0, 0.2),
)


@pytest.fixture
def poisoned(tmp_path: Path) -> str:
    """A local MLflow store whose experiment 'poison' has two sound runs and four whose
    values are NaN, infinite, negative or a recall of 7, and an experiment 'all-nan'."""
    mlflow = pytest.importorskip("mlflow", reason="the mlflow extra is not installed")
    pytest.importorskip("sqlalchemy", reason="sqlalchemy is needed for a sqlite store")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = mlflow.MlflowClient(tracking_uri=uri)
    for experiment, runs in (("poison", POISON), ("all-nan", [("a", math.nan, 1.0)] * 3)):
        eid = client.create_experiment(experiment, (tmp_path / experiment).as_uri())
        for i, (name, recall, latency) in enumerate(runs):
            run = client.create_run(eid, run_name=name if experiment == "poison" else f"r{i}")
            client.log_metric(run.info.run_id, "recall_m", recall)
            client.log_metric(run.info.run_id, "recall_b", 0.9)
            client.log_metric(run.info.run_id, "latency_ms", latency)
            client.set_terminated(run.info.run_id)
    return uri


MAP = ["--map", "recall_malignant=metrics.recall_m", "--map", "recall_benign=metrics.recall_b"]
MAP += ["--map", "latency_ms=metrics.latency_ms"]


def test_from_mlflow_writes_no_impossible_value(
    poisoned: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["pool", "from-mlflow", "--tracking-uri", poisoned, *MAP]
    out = tmp_path / "pool.csv"
    assert main([*argv, "--experiment", "poison", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "run 'seven'" in err and "column 'recall_malignant': is 7" in err
    assert "run 'negative'" in err and "is -0.5" in err and "run 'nan'" in err
    assert not out.exists()

    assert main([*argv, "--experiment", "poison", "--skip-incomplete", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    for name in ("nan", "inf", "negative", "seven"):
        assert f"left out run {name!r}" in err
    assert pd.read_csv(out)["model"].tolist() == ["good-1", "good-2"]

    empty = tmp_path / "empty.csv"
    code = main([*argv, "--experiment", "all-nan", "--skip-incomplete", "--out", str(empty)])
    assert code == 2 and not empty.exists()
    assert "0 complete runs, 3 left out" in capsys.readouterr().err


def test_from_mlflow_refuses_a_name_no_run_has(
    poisoned: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["pool", "from-mlflow", "--tracking-uri", poisoned, *MAP, "--experiment", "poison"]
    out = tmp_path / "pool.csv"
    assert main([*argv, "--skip-incomplete", "--name", "tags.nope", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--name: 'tags.nope': no run of 'poison' has this tag" in err
    assert not out.exists()


def test_from_mlflow_refuses_an_empty_model_name(
    poisoned: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run whose name tag is empty or spaces was written as a model of no name (which
    `select` then could not read); now it is incomplete: named, or left out."""
    import mlflow

    client = mlflow.MlflowClient(tracking_uri=poisoned)
    runs = client.search_runs([client.get_experiment_by_name("poison").experiment_id])
    labels = {"good-1": "", "good-2": "   "}
    for run in runs:
        client.set_tag(run.info.run_id, "label", labels.get(run.info.run_name, "x"))
    argv = ["pool", "from-mlflow", "--tracking-uri", poisoned, *MAP, "--experiment", "poison"]
    out = tmp_path / "pool.csv"
    assert main([*argv, "--name", "tags.label", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    for name in ("good-1", "good-2"):
        assert f"run {name!r}" in err
    assert err.count("has no tags.label (the model name, --name; it is empty)") == 2
    assert main([*argv, "--name", "tags.label", "--skip-incomplete", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "gives 0 complete runs, 6 left out as incomplete or impossible" in err
    assert not out.exists()


def test_select_on_a_pool_with_an_empty_model_name_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It ended in `TypeError: 'float' object is not subscriptable` (meaning.read_cell)."""
    scenario, sessions = _sessions(tmp_path, [(0.1, 0.6, 0.2, 0.1)])
    pool = tmp_path / "pools" / "breast-cancer.csv"
    frame = pd.read_csv(pool)
    frame.loc[4, "model"] = ""
    frame.to_csv(pool, index=False)
    capsys.readouterr()
    assert main(["select", "--scenario", str(scenario), "--session", str(sessions[0])]) == 2
    err = capsys.readouterr().err
    assert f"{pool}: line 6, column 'model': the model name is empty." in err
    assert "Fix: give every model a name." in err and "Traceback" not in err


def test_from_mlflow_refuses_to_replace_a_recorded_pool(
    poisoned: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pool.csv"
    out.write_text("recorded\n")
    argv = ["pool", "from-mlflow", "--tracking-uri", poisoned, *MAP, "--experiment", "poison"]
    assert main([*argv, "--skip-incomplete", "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err and out.read_text() == "recorded\n"
    assert main([*argv, "--skip-incomplete", "--out", str(out), "--force"]) == 0
    assert out.read_text() != "recorded\n"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_tracking_server_fails_within_seconds_and_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mlflow", reason="the mlflow extra is not installed")
    for key in ("TIMEOUT", "MAX_RETRIES", "BACKOFF_FACTOR", "BACKOFF_JITTER"):
        monkeypatch.delenv(f"MLFLOW_HTTP_REQUEST_{key}", raising=False)
    uri = f"http://127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    argv = ["pool", "from-mlflow", "--tracking-uri", uri, "--experiment", "x", *MAP]
    assert main([*argv, "--out", str(tmp_path / "p.csv")]) == 2
    assert time.monotonic() - start < 30
    err = capsys.readouterr().err
    assert f"{uri}: tracking server: could not be reached" in err
    assert "--tracking-uri" in err and "Traceback" not in err

    from tradeoff.pool.mlflow_pick import record_decision

    start = time.monotonic()
    with pytest.raises(InputError, match="could not be reached"):
        record_decision("triage", {"mlflow_version": 1}, tracking_uri=uri)
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("alias", ["", "two\nlines", "v3", "latest", "a b", "x/y"])
def test_select_refuses_an_alias_mlflow_should_not_get(
    alias: str,
    store: tuple[str, list[str]],  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mlflow = pytest.importorskip("mlflow", reason="the mlflow extra is not installed")
    uri, _ = store
    pool = tmp_path / "versions.csv"
    argv = ["pool", "from-mlflow", "--tracking-uri", uri, "--registered-model", "triage"]
    argv += ["--scenario", BREAST, "--map", "malignant=metrics.recall_m"]
    assert main([*argv, "--map", "memory=params.size_kb", "--out", str(pool)]) == 0
    scenario, sessions = _sessions(tmp_path, [(0.4, 0.3, 0.2, 0.1)])
    capsys.readouterr()
    select = ["pick", str(pool), "--scenario", str(scenario), "--session", str(sessions[0])]
    flags = ["--mlflow-model", "triage", "--mlflow-tracking-uri", uri, "--alias", alias]
    assert main([*select, *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("--alias: ") and "Fix: " in err and "Traceback" not in err
    assert mlflow.MlflowClient(tracking_uri=uri).get_registered_model("triage").aliases == {}


# --- pool from-sklearn ---------------------------------------------------------------------

TWO = """
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
ESTIMATORS = [GaussianNB(), DecisionTreeClassifier(max_depth=2, random_state=0)]
"""


def _sklearn() -> Any:
    return pytest.importorskip("sklearn", reason="the sklearn extra is not installed")


def _from_sklearn(tmp_path: Path, *extra: str, models: str = TWO) -> int:
    (tmp_path / "models.py").write_text(models)
    argv = ["pool", "from-sklearn", "--estimators", str(tmp_path / "models.py")]
    argv += ["--dataset", "breast_cancer", "--latency-repeats", "2", *extra]
    if "--out" not in extra:
        argv += ["--out", str(tmp_path / "pool.csv")]
    return main(argv)


@pytest.mark.parametrize(
    "models",
    [
        "raise SystemExit(0)\n",
        "import sys\nsys.exit(3)\n",
        "def ESTIMATORS():\n    raise SystemExit(0)\n",
    ],
)
def test_an_estimators_file_that_exits_is_an_error_not_a_success(
    models: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sklearn()
    assert _from_sklearn(tmp_path, models=models) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "models.py") in err and "SystemExit" in err
    assert not (tmp_path / "pool.csv").exists()


def test_an_estimator_that_exits_while_fitting_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sklearn()
    models = TWO + (
        "class Quits(GaussianNB):\n"
        "    def fit(self, x, y):\n"
        "        raise SystemExit(0)\n"
        "ESTIMATORS = {'ok': GaussianNB(), 'quits': Quits()}\n"
    )
    assert _from_sklearn(tmp_path, models=models) == 2
    err = capsys.readouterr().err
    assert "estimator 'quits'" in err and "SystemExit" in err


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--folds", "0"], "--folds: must be from 2 to 100, got 0"),
        (["--folds", "1"], "cross-validation folds"),
        (["--latency-repeats", "1000000000"], "from 1 to 10,000"),
        (["--latency-repeats", "0"], "--latency-repeats: must be from 1 to 10,000, got 0"),
    ],
)
def test_numbers_from_sklearn_cannot_take_are_refused_with_their_bounds(
    flags: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sklearn()
    assert _from_sklearn(tmp_path, *flags) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "pool.csv").exists()


def test_from_sklearn_never_replaces_a_recorded_pool_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sklearn()
    out = tmp_path / "mine.csv"
    out.write_text("model,recall\nrecorded,1\n")
    assert _from_sklearn(tmp_path, "--out", str(out)) == 2
    assert "already exists" in capsys.readouterr().err
    assert out.read_text() == "model,recall\nrecorded,1\n"
    assert _from_sklearn(tmp_path, "--out", str(out), "--force") == 0
    assert pd.read_csv(out)["model"].tolist() == ["GaussianNB", "DecisionTreeClassifier"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a,b,label\n", "has a header but no cases"),
        ("a,b,label\n1,2,x\n3,4,x\n", "holds 1 class;"),
        (",".join(f"f{i}" for i in range(10_001)) + ",label\n" + "0," * 10_001 + "x\n", "10,001"),
    ],
)
def test_a_dataset_that_cannot_be_measured_is_a_located_error(
    text: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sklearn()
    cases = tmp_path / "cases.csv"
    cases.write_text(text)
    (tmp_path / "models.py").write_text(TWO)
    argv = ["pool", "from-sklearn", "--estimators", str(tmp_path / "models.py")]
    argv += ["--dataset", str(cases), "--target", "label", "--out", str(tmp_path / "p.csv")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(str(cases)) and said in err and "Traceback" not in err


# --- Files that are no pool at all --------------------------------------------------------

ONCOLOGIST = sorted(
    (SCENARIOS.parent / "sessions" / "examples" / "example-oncologist").glob("*.jsonl")
)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "is empty. Fix: give a CSV file with a header row and a row per model."),
        ("\n\n  \n", "is empty. Fix: give a CSV file with a header row and a row per model."),
        (
            None,  # the header alone
            "holds 0 models; a pool needs at least 2. Fix: add a row per model below the header.",
        ),
        (
            "extra",  # the third data row holds one cell more than the header
            "line 4: has 9 cells, the header 8. Fix: give every row one cell per column",
        ),
        (
            "session",
            "is a session file (JSON lines), not a pool of models. Fix: give it after --session",
        ),
    ],
    ids=["empty", "blank lines", "header only", "a cell too many", "a session"],
)
def test_a_file_that_is_no_pool_is_named_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None, said: str
) -> None:
    """An empty file, a header alone, a row with a cell too many (by its line) and a
    session file given where the pool goes: each a located error in the words of the
    pool, not the CSV reader's ("No columns to parse from file", "Error tokenizing data",
    "check the where condition" where none was given)."""
    lines = (SCENARIOS / "pools" / "breast-cancer.csv").read_text().splitlines()
    pool = tmp_path / "pool.csv"
    if text == "session":
        pool = ONCOLOGIST[0]
    elif text is None:
        pool.write_text(lines[0] + "\n")
    elif text == "extra":
        pool.write_text("\n".join([*lines[:3], lines[3] + ",1"]) + "\n")
    else:
        pool.write_text(text)
    assert main(["pick", str(pool), "--session", str(ONCOLOGIST[0])]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{pool}: {said}" in err, err
    assert "Traceback" not in err and "pandas" not in err and "tokenizing" not in err


def test_the_count_of_problems_counts_those_left_unlisted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every recall written as a percentage: the first ten are listed, the line after them
    counts the rest, and the count above them is the whole ("68 problems", not 11)."""
    frame = pd.read_csv(SCENARIOS / "pools" / "breast-cancer.csv")
    for column in ("recall_malignant", "recall_benign"):
        frame[column] = frame[column] * 100
    pool = tmp_path / "percent.csv"
    frame.to_csv(pool, index=False)
    assert main(["pick", str(pool), "--session", str(ONCOLOGIST[0])]) == 2
    err = capsys.readouterr().err.splitlines()
    listed = [line for line in err if line.startswith("  - line ")]
    total = 2 * len(frame) - int((frame["recall_benign"] == 0).sum())  # 0 % is a share too
    assert err[0] == f"{pool}: {total} problems:", err[0]
    assert len(listed) == 10 and err[11] == f"  - … and {total - 10} more problems like these."


@pytest.mark.parametrize(("sign", "name"), [(";", "semicolons"), ("\t", "tabs")])
def test_a_pool_separated_otherwise_and_a_folder_of_sessions_are_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sign: str, name: str
) -> None:
    """A spreadsheet's export with semicolons or tabs reads as one column: the error says
    how it is separated (not "did you mean 'model;family;…'"); a folder given as a session
    is a folder, not a file that was not found."""
    pool = tmp_path / "pool.csv"
    pool.write_text((SCENARIOS / "pools" / "breast-cancer.csv").read_text().replace(",", sign))
    assert main(["pick", str(pool), "--session", str(ONCOLOGIST[0])]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"line 1 (header): is separated by {name}, not commas. Fix: save it" in err, err
    assert "did you mean" not in err
    folder = ONCOLOGIST[0].parent
    assert main(["pick", "--session", str(folder)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"{folder}: is a folder, not a file. Fix: give the files in it" in err, err
