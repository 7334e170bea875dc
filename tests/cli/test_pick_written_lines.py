"""What ``tradeoff pick`` says it wrote (scikit-learn, MLflow, Optuna) reads at an 80-column
terminal as the rest of pick's text does: broken between words at the terminal's width
(the scikit-learn sentence ran to over 200 columns); written to a pipe it stays one line."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import termios
from pathlib import Path

import pytest

from tradeoff.cli import main

from ..conftest import ROOT

pytestmark = pytest.mark.e2e

SESSION = next((ROOT / "sessions" / "examples" / "example-oncologist").glob("*.jsonl"))
ESTIMATORS = """\
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

ESTIMATORS = {"lr": LogisticRegression(max_iter=5000), "tree": DecisionTreeClassifier()}
"""


def _read(fd: int) -> str:
    """All a pseudo-terminal's program has written so far."""
    data = b""
    while select.select([fd], [], [], 0.2)[0]:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8")


def test_the_refitted_estimator_line_fits_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("sklearn")
    (tmp_path / "models.py").write_text(ESTIMATORS)
    pool = tmp_path / "pool.csv"
    pool.write_text(
        "model,recall_malignant,recall_benign,latency_ms,size_kb\n"
        "lr,0.99,0.99,0.05,1.0\ntree,0.86,0.87,0.90,300.0\n"
    )
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    stream = os.fdopen(slave, "w", encoding="utf-8")
    try:
        monkeypatch.setattr("sys.stdout", stream)
        argv = ["pick", str(pool), "--session", str(SESSION), "--sklearn-estimators"]
        argv += [str(tmp_path / "models.py"), "--sklearn-dataset", "breast_cancer"]
        assert main(argv) == 0
        stream.flush()
        text = _read(master).replace("\r\n", "\n")
    finally:
        stream.close()
        os.close(master)
    said = text.split("scikit-learn: estimator", 1)[1]
    assert "pickled to" in said and "the pick added to" in " ".join(said.split())
    lines = ("scikit-learn: estimator" + said).strip().splitlines()
    assert len(lines) > 2
    assert all(len(line) <= 80 or " " not in line for line in lines), lines  # a path: whole
