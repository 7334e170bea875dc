"""``tradeoff pick --sklearn-estimators FILE --sklearn-dataset NAME``: the pick written back
for scikit-learn from the command line, as ``--mlflow-model`` and ``--optuna-storage`` write
it to MLflow and Optuna: the picked estimator (a variant tuned to a person made again from
the pool's provenance) refitted on every case and pickled beside the pool, and a line in
``<pool>.picks.jsonl``; each mistake located, nothing written."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from tradeoff.cli import main

from ..conftest import ROOT

pytestmark = pytest.mark.e2e

SESSION = next((ROOT / "sessions" / "examples" / "example-oncologist").glob("*.jsonl"))
ESTIMATORS = """\
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

ESTIMATORS = {
    "lr": LogisticRegression(max_iter=5000),
    "tree": DecisionTreeClassifier(random_state=0),
}
"""
TUNED = "lr (tuned for example-oncologist)"


def measured_pool(folder: Path, tuned: bool) -> Path:
    """A pool as pool from-sklearn writes it, the best model first (the tuned variant of
    ``lr`` when ``tuned``), with its provenance file."""
    best = TUNED if tuned else "lr"
    pool = folder / "pool.csv"
    pool.write_text(
        "model,recall_malignant,recall_benign,latency_ms,size_kb\n"
        f"{best},0.99,0.99,0.05,1.0\n"
        "tree,0.86,0.87,0.90,300.0\n"
    )
    provenance: dict[str, object] = {"source": "scikit-learn"}
    if tuned:
        provenance["tuned"] = {
            "participant": "example-oncologist",
            "weights": [0.8, 0.2],
            "prevalences": [0.37, 0.63],
            "variants": {TUNED: "lr"},
        }
    pool.with_suffix(".provenance.json").write_text(json.dumps(provenance))
    return pool


@pytest.mark.parametrize("tuned", [False, True])
def test_pick_writes_the_refitted_estimator_and_a_line_beside_the_pool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tuned: bool
) -> None:
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression

    from tradeoff.pool.rule import PersonalRule

    (tmp_path / "models.py").write_text(ESTIMATORS)
    pool = measured_pool(tmp_path, tuned)
    pick = ["pick", str(pool), "--session", str(SESSION), "--json"]
    if not tuned:
        assert main(pick) == 0  # without the option nothing is written
        assert "sklearn" not in json.loads(capsys.readouterr().out)
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            "models.py",
            "pool.csv",
            "pool.provenance.json",
        ]
    sk = ["--sklearn-estimators", str(tmp_path / "models.py"), "--sklearn-dataset", "breast_cancer"]
    assert main([*pick, *sk]) == 0
    data = json.loads(capsys.readouterr().out)
    picked = data["stakeholders"][0]["recommended"]
    assert picked == (TUNED if tuned else "lr")
    written = data["sklearn"]
    assert written["model"] == picked and Path(written["pickle"]).name == "pool.pick-1.pkl"
    fitted = pickle.loads((tmp_path / "pool.pick-1.pkl").read_bytes())
    x, y = load_breast_cancer(return_X_y=True)
    if tuned:
        assert isinstance(fitted, PersonalRule)
        assert isinstance(fitted.estimator, LogisticRegression)
        assert dict(fitted.weights) == pytest.approx({0: 0.8, 1: 0.2})
    else:
        assert isinstance(fitted, LogisticRegression)
    assert (fitted.predict(x) == y).mean() > 0.9  # fitted on the whole dataset
    (line,) = (tmp_path / "pool.picks.jsonl").read_text().splitlines()
    logged = json.loads(line)
    assert logged == written["value"] and logged["recommended"] == picked
    assert logged["fitted_on"].endswith(f"all {len(y)} cases")
    assert logged["participants"] == ["example-oncologist"]
    if tuned:
        return
    assert main([*pick, *sk]) == 0  # a second pick, a new pickle: nothing replaced
    assert json.loads(capsys.readouterr().out)["sklearn"]["pickle"].endswith("pool.pick-2.pkl")
    assert len((tmp_path / "pool.picks.jsonl").read_text().splitlines()) == 2


def test_mistakes_are_located_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sklearn")
    (tmp_path / "models.py").write_text(ESTIMATORS)
    pool = measured_pool(tmp_path, tuned=True)
    before = sorted(p.name for p in tmp_path.iterdir())
    pick = ["pick", str(pool), "--session", str(SESSION)]

    def refused(args: list[str], *said: str) -> None:
        capsys.readouterr()
        assert main([*pick, *args]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err
        for text in said:
            assert text in err, (text, err)
        assert sorted(p.name for p in tmp_path.iterdir()) == before

    models = str(tmp_path / "models.py")
    refused(["--sklearn-dataset", "breast_cancer"], "--sklearn-dataset needs --sklearn-estimators")
    refused(["--sklearn-estimators", models], "--sklearn-estimators needs --sklearn-dataset")
    refused(["--sklearn-estimators", models, "--sklearn-dataset", "nope"], "nope")
    missing = str(tmp_path / "none.py")
    refused(["--sklearn-estimators", missing, "--sklearn-dataset", "breast_cancer"], "none.py")
    # the variant picked, but the provenance that says how it was tuned is gone
    pool.with_suffix(".provenance.json").write_text(json.dumps({"source": "scikit-learn"}))
    refused(
        ["--sklearn-estimators", models, "--sklearn-dataset", "breast_cancer"],
        str(pool),
        "none of the estimators measured",
        "provenance",
    )
    pool.with_suffix(".provenance.json").write_text('{"tuned": {"participant": "x"}}')
    refused(
        ["--sklearn-estimators", models, "--sklearn-dataset", "breast_cancer"],
        "pool.provenance.json",
        "participant, weights and prevalences",
    )
