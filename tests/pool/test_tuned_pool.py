"""A pool with models tuned to a person: `measure(..., tuned=)` and `tradeoff pool
from-sklearn --for SESSION`, and what `select` says of them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import Perceptron
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.pool import load_dataset, measure
from tradeoff.pool.measuring import Tuning

pytestmark = pytest.mark.e2e

ONCOLOGIST = next(Path("sessions/examples/example-oncologist").glob("*.jsonl"))
ESTIMATORS = {
    "naive-bayes": GaussianNB(),
    "tree-depth2": DecisionTreeClassifier(max_depth=2, random_state=0),
    "perceptron": Perceptron(random_state=0),
}
TUNING = Tuning("dr-kim", (0.8, 0.2), (0.3, 0.7))


@pytest.fixture(scope="module")
def tuned_pool() -> pd.DataFrame:
    return measure(
        ESTIMATORS, load_dataset("breast_cancer"), seed=4, latency_repeats=2, tuned=TUNING
    ).frame


def test_each_probabilistic_model_gains_its_variant_measured_out_of_fold(
    tuned_pool: pd.DataFrame,
) -> None:
    """The variants follow their models (none for the perceptron, which gives no
    probabilities), are marked, and their recall is the rule on out-of-fold probabilities
    computed here independently: the same stratified folds, each fold's rule at that fold's
    training shares, counted by hand; the untuned rows are as without tuning."""
    frame = tuned_pool
    assert frame["model"].tolist() == [
        "naive-bayes",
        "naive-bayes (tuned for dr-kim)",
        "tree-depth2",
        "tree-depth2 (tuned for dr-kim)",
        "perceptron",
    ]
    assert frame["variant_of"].tolist() == ["", "naive-bayes", "", "tree-depth2", ""]
    assert frame["tuned_for"].tolist() == ["", "dr-kim", "", "dr-kim", ""]
    assert frame["family"].tolist()[:2] == ["GaussianNB", "GaussianNB"]
    data = load_dataset("breast_cancer")
    x, y = data.x, data.y  # 0 malignant, 1 benign: the dataset's (and TUNING's) order
    folds = StratifiedKFold(5, shuffle=True, random_state=4)
    plain = measure(ESTIMATORS, data, seed=4, latency_repeats=2).frame.set_index("model")
    for name in ("naive-bayes", "tree-depth2"):
        picks = np.empty(len(y), dtype=int)
        for fit, test in folds.split(x, y):
            model = clone(ESTIMATORS[name]).fit(x[fit], y[fit])
            p = model.predict_proba(x[test])
            shares = [np.mean(y[fit] == 0), np.mean(y[fit] == 1)]
            for i, row in zip(test, p, strict=True):
                score = [
                    TUNING.weights[k] * TUNING.prevalences[k] * row[k] / shares[k] for k in (0, 1)
                ]
                picks[i] = 0 if score[0] >= score[1] else 1
        hits = [sum(1 for t, q in zip(y, picks, strict=True) if t == k and q == k) for k in (0, 1)]
        want = [hits[k] / sum(1 for t in y if t == k) for k in (0, 1)]
        row = frame.set_index("model").loc[TUNING.variant_name(name)]
        assert [row["recall_malignant"], row["recall_benign"]] == pytest.approx(want, abs=6e-5)
        untuned = frame.set_index("model").loc[name]
        assert untuned["recall_malignant"] == pytest.approx(plain.loc[name, "recall_malignant"])
        # the malignant class weighs 0.8·0.3 against 0.2·0.7: more of it is flagged
        assert row["recall_malignant"] >= untuned["recall_malignant"]


def test_a_tuning_that_does_not_fit_is_located() -> None:
    data = load_dataset("breast_cancer")
    with pytest.raises(InputError, match="3 values for 2 classes"):
        measure(ESTIMATORS, data, tuned=Tuning("x", (1.0, 1.0, 1.0), (0.5, 0.5)))
    hard = {"perceptron": Perceptron(), "perceptron-2": Perceptron(alpha=0.1)}
    with pytest.raises(InputError, match="predict_proba"):
        measure(hard, data, latency_repeats=1, tuned=TUNING)


def test_the_command_tunes_to_a_session_and_select_says_what_it_gains(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`pool from-sklearn --for` takes the session's posterior mean class weights and
    priors (the provenance records them); `select` on that pool names the tuned model
    and what it gains, or that none gains, over the best untuned one."""
    models = tmp_path / "models.py"
    models.write_text(
        "from sklearn.naive_bayes import GaussianNB\n"
        "from sklearn.tree import DecisionTreeClassifier\n"
        "ESTIMATORS = {'naive-bayes': GaussianNB(),\n"
        "              'tree-depth2': DecisionTreeClassifier(max_depth=2, random_state=0)}\n"
    )
    out = tmp_path / "pool.csv"
    argv = ["pool", "from-sklearn", "--estimators", str(models), "--dataset", "breast_cancer"]
    argv += ["--latency-repeats", "2", "--for", str(ONCOLOGIST), "--out", str(out)]
    assert main(argv) == 0
    frame = pd.read_csv(out)
    assert frame["model"].tolist()[1] == "naive-bayes (tuned for example-oncologist)"
    tuned = json.loads(out.with_suffix(".provenance.json").read_text())["tuned"]
    from tradeoff.choose.decide import load_stakeholders
    from tradeoff.choose.stakeholder import expected_weights

    _, (person,) = load_stakeholders([ONCOLOGIST])
    assert tuned["weights"] == pytest.approx(expected_weights(person)[:2])
    assert tuned["prevalences"] == pytest.approx(person.priors)
    capsys.readouterr()
    assert main(["select", str(out), "--session", str(ONCOLOGIST)]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if "Tuned to a person" in line]
    assert len(said) == 1
    assert "than the best untuned model" in said[0]


def test_a_session_of_other_classes_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["pool", "from-sklearn", "--estimators", "x.py", "--dataset", "wine"]
    models = tmp_path / "models.py"
    models.write_text(
        "from sklearn.naive_bayes import GaussianNB\nESTIMATORS = [GaussianNB(), GaussianNB()]\n"
    )
    argv[3] = str(models)
    argv += ["--for", str(ONCOLOGIST), "--out", str(tmp_path / "p.csv")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert str(ONCOLOGIST) in err and "malignant" in err and "class_0" in err
    assert not (tmp_path / "p.csv").exists()
