"""`pool from-sklearn` says how far it has come: measuring can take minutes, and it printed
nothing until the end."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

import tradeoff.cli.pool as pool_cli
from tradeoff.cli import main
from tradeoff.cli.common import Progress

pytestmark = pytest.mark.e2e


def test_measuring_reports_each_model_of_the_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the progress line's pause set to 0, one line per model measured, variants
    counted: 2 models and their 2 tuned variants are 4."""
    monkeypatch.setattr(pool_cli, "Progress", functools.partial(Progress, every=0.0))
    models = tmp_path / "models.py"
    models.write_text(
        "from sklearn.naive_bayes import GaussianNB\n"
        "from sklearn.tree import DecisionTreeClassifier\n"
        "ESTIMATORS = {'naive-bayes': GaussianNB(),\n"
        "              'tree-depth2': DecisionTreeClassifier(max_depth=2, random_state=0)}\n"
    )
    session = next(Path("sessions/examples/example-oncologist").glob("*.jsonl"))
    argv = ["pool", "from-sklearn", "--estimators", str(models), "--dataset", "breast_cancer"]
    argv += ["--latency-repeats", "2", "--for", str(session), "--out", str(tmp_path / "p.csv")]
    assert main(argv) == 0
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("measured ")]
    assert lines == [f"measured {k} of 4 models ({k * 25} %)" for k in (1, 2, 3, 4)]
