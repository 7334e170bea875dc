"""No credential in a URL given to `tradeoff` is printed or written: every error path of
`pool from-optuna --storage`, `select --optuna-storage`, `pool from-mlflow --tracking-uri`
and `select --mlflow-tracking-uri` that can be reached here runs with a password in the
URL's userinfo and in its query (`?password=`, `&token=`, ...), and the password is looked
for in stdout, stderr and every file the command wrote (a pool's provenance records the
storage and the command line). `sqlite:///x.db?password=…` was echoed whole.

Real objects only: SQLite storages and an MLflow store made in the test, a port nothing
listens on (each part skips, saying why, when its extra is missing)."""

from __future__ import annotations

import socket
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tradeoff.cli import main

from ..conftest import ROOT

pytestmark = pytest.mark.e2e

SECRET = "Pw9SECRETzz"
QUERIES = [
    f"password={SECRET}",
    f"PASSWD={SECRET}",
    f"pwd={SECRET}",
    f"token={SECRET}",
    f"secret={SECRET}",
    f"key={SECRET}",
    f"access_token={SECRET}",
    f"Api_Key={SECRET}",
]
SESSION = sorted((ROOT / "sessions" / "examples" / "example-oncologist").glob("*.jsonl"))[0]
POOL = ROOT / "scenarios" / "pools" / "breast-cancer.csv"
MAP = ["--map", "recall_malignant=values.0", "--map", "recall_benign=values.1"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _written(folder: Path) -> Iterator[tuple[Path, str]]:
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix in (".csv", ".json", ".md", ".html", ".txt"):
            yield path, path.read_text(encoding="utf-8", errors="replace")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str], folder: Path) -> tuple[int, str]:
    """Run the command; no SECRET in what it printed or wrote (files of ``folder``)."""
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert SECRET not in out + err, (argv, out, err)
    for path, text in _written(folder):
        assert SECRET not in text, path
    return code, err


def _optuna() -> Any:
    optuna = pytest.importorskip("optuna", reason="the optuna extra is not installed")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


@pytest.fixture
def storage(tmp_path: Path) -> Path:
    """An Optuna SQLite storage with one study of four completed trials (two recalls)."""
    optuna = _optuna()
    path = tmp_path / "study.db"
    study = optuna.create_study(
        storage=f"sqlite:///{path}", study_name="triage", directions=["maximize"] * 2
    )
    for a, b in ((0.9, 0.8), (0.8, 0.9), (0.85, 0.85), (0.7, 0.7)):
        study.add_trial(optuna.trial.create_trial(values=[a, b]))
    return path


@pytest.mark.filterwarnings("ignore::Warning")
def test_no_optuna_error_path_prints_a_password(
    storage: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    out = tmp_path / "out" / "pool.csv"
    out.parent.mkdir()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as con:
        con.execute("create table runs (id integer)")
    port = _closed_port()
    urls = [
        f"sqlite:///{tmp_path / 'missing.db'}?{QUERIES[0]}",
        f"sqlite:///{other}?{QUERIES[1]}&mode=ro",
        f"nosuchdb://ann:{SECRET}@h/x?{QUERIES[2]}",
        f"postgresql://ann:{SECRET}@127.0.0.1:{port}/x?{QUERIES[3]}",
        f"mysql://ann:{SECRET}@127.0.0.1:{port}/x?{QUERIES[4]}",
        f"sqlite:///{storage}?{QUERIES[5]}",  # a study named wrongly, below
        f"{storage}?{QUERIES[6]}",  # no URL at all
    ]
    for url in urls:
        study = ["--study", "nope"] if url.startswith(f"sqlite:///{storage}") else []
        code, err = _run(
            ["pool", "from-optuna", "--storage", url, *study, *MAP, "--out", str(out)],
            capsys,
            tmp_path,
        )
        assert code == 2 and "***" in err, (url, err)
        study = ["--optuna-study", "nope"] if study else []
        code, err = _run(
            ["select", str(POOL), "--session", str(SESSION), "--optuna-storage", url, *study],
            capsys,
            tmp_path,
        )
        assert code == 2 and "***" in err, (url, err)
    # a usage error repeats what was typed
    code, err = _run(["select", str(POOL), "--no-such", urls[0]], capsys, tmp_path)
    assert code == 2 and "unrecognized arguments" in err and "password=***" in err
    # read whole: the storage and the command line are recorded without the password
    good = f"sqlite:///{storage}?{QUERIES[7]}"
    argv = ["pool", "from-optuna", "--storage", good, *MAP, "--out", str(out), "--json"]
    assert _run(argv, capsys, tmp_path)[0] == 0
    provenance = out.with_suffix(".provenance.json").read_text()
    assert "Api_Key=***" in provenance and str(storage) in provenance
    # a mapping the study cannot give, and Optuna not installed
    bad_map = ["--map", "recall_malignant=values.7"]
    argv = ["pool", "from-optuna", "--storage", good, *bad_map, "--out", str(out), "--force"]
    assert _run(argv, capsys, tmp_path)[0] == 2
    monkeypatch.setitem(sys.modules, "optuna", None)
    argv = ["pool", "from-optuna", "--storage", good, *MAP, "--out", str(tmp_path / "n.csv")]
    assert _run(argv, capsys, tmp_path)[0] == 2


@pytest.mark.filterwarnings("ignore::Warning")
def test_no_mlflow_error_path_prints_a_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mlflow", reason="the mlflow extra is not installed")
    pytest.importorskip("sqlalchemy", reason="sqlalchemy is needed for a sqlite store")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "2")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    out = str(tmp_path / "out.csv")
    mapping = ["--map", "recall_malignant=metrics.r"]
    port = _closed_port()
    urls = [
        f"http://ann:{SECRET}@127.0.0.1:{port}/?{QUERIES[3]}",
        f"https://127.0.0.1:{port}/api?{QUERIES[7]}",
        f"sqlite:///{tmp_path / 'no' / 'such' / 'mlflow.db'}?{QUERIES[0]}",
        f"nosuch://ann:{SECRET}@h/x?{QUERIES[5]}",
    ]
    for url in urls:
        argv = ["pool", "from-mlflow", "--tracking-uri", url, "--experiment", "x", *mapping]
        code, err = _run([*argv, "--out", out], capsys, tmp_path)
        assert code == 2, (url, err)
    url = urls[0]
    argv = ["select", str(POOL), "--session", str(SESSION), "--mlflow-model", "triage"]
    code, err = _run([*argv, "--mlflow-tracking-uri", url], capsys, tmp_path)
    assert code == 2 and "could not be reached" in err and "ann:***@" in err
    monkeypatch.setitem(sys.modules, "mlflow", None)
    argv = ["pool", "from-mlflow", "--tracking-uri", url, "--experiment", "x", *mapping]
    assert _run([*argv, "--out", out], capsys, tmp_path)[0] == 2
