"""A person's scorer never matches labels by position unasked: with the usual ``y = 1`` for
the positive class (malignant here, the scenario's first class) a scorer without
``labels=`` scored the swapped metric without a word, and on text labels every score of a
grid search was NaN with a warning per fold. Now ``y`` holds the classes' names, or the
label of each class is named, and any other ``y`` is refused with the fix."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from tradeoff.choose.scorer import person_scorer
from tradeoff.errors import InputError

pytestmark = pytest.mark.e2e

SCENARIO = "breast-cancer-triage"
WEIGHTS = [0.9 / 0.37, 0.1 / 0.63, 0.0, 0.0]  # malignant's recall weighs nine times benign's
PRIORS = [0.37, 0.63]
CONSTANTS = {"latency": 0.4, "memory": 3.0}
GRID = {"logisticregression__C": [0.001, 0.1]}


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    x, y = load_breast_cancer(return_X_y=True)  # 0 malignant, 1 benign
    keep = np.arange(len(y)) % 2 == 0  # a small dataset: 285 cases
    return np.asarray(x)[keep], (1 - np.asarray(y))[keep]  # the usual: 1 = malignant


def _hand(y: np.ndarray, pred: np.ndarray) -> float:
    """ψ with malignant = 1: recall of each class times its weight and prior."""
    value = 0.0
    for k, label in enumerate((1, 0)):
        cases = y == label
        value += WEIGHTS[k] * PRIORS[k] * float(np.mean(pred[cases] == label))
    return value


def _search(scorer: object, x: np.ndarray, y: np.ndarray, **kw: object) -> GridSearchCV:
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    return GridSearchCV(model, GRID, scoring=scorer, cv=folds, **kw).fit(x, y)  # type: ignore[arg-type]


def _means(x: np.ndarray, y: np.ndarray) -> list[float]:
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    folds = StratifiedKFold(3, shuffle=True, random_state=0)
    out = []
    for c in GRID["logisticregression__C"]:
        scores = []
        for fit, test in folds.split(x, y):
            fitted = clone(model).set_params(logisticregression__C=c).fit(x[fit], y[fit])
            scores.append(_hand(y[test], fitted.predict(x[test])))
        out.append(float(np.mean(scores)))
    return out


def _scorer(**kw: object) -> object:
    return person_scorer(
        WEIGHTS,
        scenario=SCENARIO,
        priors=PRIORS,
        attributes=CONSTANTS,
        **kw,  # type: ignore[arg-type]
    )


def test_a_named_positive_class_scores_the_right_metric(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    """labels={"malignant": 1, "benign": 0}: GridSearchCV's mean scores are the metric
    counted by hand with 1 as malignant, not the swapped one."""
    x, y = data
    search = _search(_scorer(labels={"malignant": 1, "benign": 0}), x, y)
    right = _means(x, y)
    assert search.cv_results_["mean_test_score"] == pytest.approx(right, rel=1e-12)
    swapped = _search(_scorer(labels=[0, 1]), x, y).cv_results_["mean_test_score"]
    assert not np.allclose(swapped, right)  # the positional labels' metric is another


def test_without_labels_a_numeric_y_is_refused_with_the_fix(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    """No labels and y of 0/1: an InputError that names labels= and the classes, never a
    score of the swapped metric."""
    x, y = data
    with pytest.raises(InputError) as caught:
        _search(_scorer(), x, y, error_score="raise")
    said = caught.value.message()
    assert said.startswith("labels: not given, and y holds 0, 1")
    assert "labels={'malignant': 1, 'benign': 0}" in said


def test_text_labels_score_without_warnings(data: tuple[np.ndarray, np.ndarray]) -> None:
    """y of the classes' names needs no labels=; y of other text labels with labels= by
    name: the same finite scores as 1/0, and no warning."""
    x, y = data
    right = _means(x, y)
    names = np.where(y == 1, "malignant", "benign")
    letters = np.where(y == 1, "M", "B")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        by_name = _search(_scorer(), x, names).cv_results_["mean_test_score"]
        by_letter = _search(
            _scorer(labels={"malignant": "M", "benign": "B"}), x, letters
        ).cv_results_["mean_test_score"]
    assert by_name == pytest.approx(right, rel=1e-12)
    assert by_letter == pytest.approx(right, rel=1e-12)
