"""MLflow read as carefully as Optuna: a mistyped local tracking URI creates nothing and
says the file is missing (a typo made an empty database and then said the experiment was
'Default'); a FAILED run is left out and counted (a crashed logging left a duplicate
that failed the pool); a refused pool does not name its unwritten output as the culprit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tradeoff.cli import main

pytestmark = pytest.mark.e2e

RUNS = (("logreg", 0.9, 0.95), ("forest", 0.93, 0.9), ("stump", 0.8, 0.96))
MAP = ["--map", "recall_malignant=metrics.recall_m", "--map", "recall_benign=metrics.recall_b"]


def _mlflow() -> Any:
    return pytest.importorskip("mlflow", reason="the mlflow extra is not installed")


def _run(client: Any, experiment: str, name: str, rm: float, rb: float, status: str) -> str:
    rid: str = client.create_run(experiment, run_name=name).info.run_id
    client.log_metric(rid, "recall_m", rm)
    client.log_metric(rid, "recall_b", rb)
    client.set_terminated(rid, status=status)
    return rid


@pytest.fixture
def store(tmp_path: Path) -> tuple[str, list[str]]:
    """A SQLite store whose experiment has three finished runs and a FAILED duplicate of
    the first (its logging crashed; it was run again)."""
    pytest.importorskip("sqlalchemy")
    mlflow = _mlflow()
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = mlflow.MlflowClient(tracking_uri=uri)
    experiment = client.create_experiment(
        "fraud", artifact_location=(tmp_path / "artifacts").as_uri()
    )
    failed = _run(client, experiment, "logreg", 0.5, 0.5, "FAILED")
    ids = [_run(client, experiment, name, rm, rb, "FINISHED") for name, rm, rb in RUNS]
    return uri, [failed, *ids]


def test_a_mistyped_sqlite_uri_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _mlflow()
    monkeypatch.chdir(tmp_path)
    argv = ["pool", "from-mlflow", "--tracking-uri", "sqlite:///mlfow.db", "--experiment", "x"]
    assert main([*argv, *MAP, "--out", "p.csv"]) == 2
    err = capsys.readouterr().err
    assert "sqlite:///mlfow.db: tracking URI: the SQLite file 'mlfow.db' does not exist" in err
    assert "'Default'" not in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # no database, no pool


def test_a_missing_file_store_folder_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _mlflow()
    folder = tmp_path / "mlrnus"
    argv = ["pool", "from-mlflow", "--tracking-uri", folder.as_uri(), "--experiment", "x"]
    assert main([*argv, *MAP, "--out", str(tmp_path / "p.csv")]) == 2
    assert "of a file store does not exist" in capsys.readouterr().err
    assert not folder.exists()


def test_failed_runs_are_left_out_and_counted(
    store: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uri, ids = store
    out = tmp_path / "runs.csv"
    argv = ["pool", "from-mlflow", "--tracking-uri", uri, "--experiment", "fraud", *MAP]
    assert main([*argv, "--out", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["models"] == ["logreg", "forest", "stump"]
    said = f"1 FAILED run of 'fraud' left out (a failed run is no candidate): logreg ({ids[0]})"
    assert said in captured.err
    provenance = json.loads(out.with_suffix(".provenance.json").read_text())
    assert provenance["failed_runs_left_out"] == [f"logreg ({ids[0]})"]


def test_a_refused_pool_does_not_blame_its_unwritten_output(
    store: tuple[str, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two finished runs of one name: the error says the pool read from MLflow has them,
    and that nothing was written, not that the output file holds them."""
    uri, _ = store
    mlflow = _mlflow()
    client = mlflow.MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("fraud").experiment_id
    _run(client, experiment, "forest", 0.91, 0.9, "FINISHED")
    out = tmp_path / "runs.csv"
    argv = ["pool", "from-mlflow", "--tracking-uri", uri, "--experiment", "fraud", *MAP]
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "forest" in err and "not written" in err
    assert not err.startswith(str(out))
    assert not out.exists()
