"""What ``tradeoff pool from-sklearn`` (and the other model sources) print after writing a
pool: at an 80-column terminal its eleven columns ran to 161 columns on one line a model,
which the terminal broke mid-name; now the columns come in blocks that fit, each headed by
the models' names."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tradeoff.cli import main

pytestmark = pytest.mark.core

MODELS = """
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
ESTIMATORS = {"gaussian-naive-bayes-default": GaussianNB(),
              "tree-depth-2": DecisionTreeClassifier(max_depth=2, random_state=0)}
"""


@pytest.mark.parametrize("columns", [80, 140])
def test_the_measured_pool_fits_the_terminal_in_blocks_headed_by_the_models(
    columns: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("sklearn", reason="the sklearn extra is not installed")
    monkeypatch.setenv("COLUMNS", str(columns))
    (tmp_path / "models.py").write_text(MODELS)
    out = tmp_path / "pool.csv"
    argv = ["pool", "from-sklearn", "--estimators", str(tmp_path / "models.py")]
    argv += ["--dataset", "breast_cancer", "--latency-repeats", "2", "--out", str(out)]
    assert main(argv) == 0
    said, *lines = capsys.readouterr().out.splitlines()
    assert said.startswith("measured: 2 models into")  # a sentence, broken on a terminal
    assert max(len(line) for line in lines) <= columns
    assert not any(line.endswith("\\") for line in lines)
    frame = pd.read_csv(out)
    # every column but the name stands in some block's header, and every block lists
    # both models (by their whole names) under it
    headers = [line.split() for line in lines]
    shown = {word for words in headers for word in words}
    assert set(frame.columns) - {"model"} <= shown
    blocks = [i for i, line in enumerate(lines) if line.strip() == "model"]
    assert len(blocks) >= (2 if columns == 80 else 1)
    for at in blocks:
        names = [lines[at + 1].split()[0], lines[at + 2].split()[0]]
        assert names == frame["model"].tolist()
