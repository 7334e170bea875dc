"""A person's metric as a scikit-learn scorer (`tradeoff.choose.scorer`): its value against
recall counted by hand and against the value the app ranks a pool by, in `GridSearchCV` and
`TunedThresholdClassifierCV`, and the mistakes it names."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, TunedThresholdClassifierCV
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_objectives
from tradeoff.choose.recommend import recommend
from tradeoff.choose.scorer import person_scorer
from tradeoff.errors import InputError
from tradeoff.pool import load_pool

pytestmark = pytest.mark.core

SCENARIO = "breast-cancer-triage"
WEIGHTS = [0.5, 0.3, 0.01, 0.0004]  # malignant, benign (on ζ·recall), per ms, per KB
PRIORS = [0.37, 0.63]
CONSTANTS = {"latency": 0.4, "memory": 3.0}
LABELS = {"malignant": 0, "benign": 1}  # scikit-learn's breast cancer data


def _hand_metric(y: np.ndarray, pred: np.ndarray, latency: float, memory: float) -> float:
    """ψ counted case by case: recall of each class (0 malignant, 1 benign) as hits over
    cases, each times its weight and prior, minus the costs times theirs."""
    value = 0.0
    for k in (0, 1):
        cases = hits = 0
        for truth, guess in zip(y.tolist(), pred.tolist(), strict=True):
            if truth == k:
                cases += 1
                hits += guess == k
        value += WEIGHTS[k] * PRIORS[k] * hits / cases
    return value - WEIGHTS[2] * latency - WEIGHTS[3] * memory


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    x, y = load_breast_cancer(return_X_y=True)  # 0 malignant, 1 benign: the scenario's order
    return np.asarray(x), np.asarray(y)


def _scorer(**kw: object) -> object:
    options: dict[str, object] = {
        "scenario": SCENARIO,
        "priors": PRIORS,
        "attributes": CONSTANTS,
        "labels": LABELS,
    }
    return person_scorer(WEIGHTS, **(options | kw))  # type: ignore[arg-type]


def test_the_score_is_the_metric_counted_by_hand_and_as_the_app_ranks(
    data: tuple[np.ndarray, np.ndarray], tmp_path: Path
) -> None:
    """On a fitted model's predictions the scorer gives ψ as counted by hand, and the value
    `recommend` gives the same model as a row of a pool (recall and costs as columns)."""
    x, y = data
    model = GaussianNB().fit(x[::2], y[::2])
    scorer = _scorer()
    pred = model.predict(x[1::2])
    want = _hand_metric(y[1::2], pred, **CONSTANTS)
    assert scorer(model, x[1::2], y[1::2]) == pytest.approx(want, rel=1e-12)
    assert scorer.metric(y[1::2], pred) == pytest.approx(want, rel=1e-12)
    # what a search with n_jobs > 1 sends to its workers
    assert pickle.loads(pickle.dumps(scorer))(model, x[1::2], y[1::2]) == pytest.approx(want)
    recall = [float(np.mean(pred[y[1::2] == k] == k)) for k in (0, 1)]
    pool_file = tmp_path / "pool.csv"
    pd.DataFrame(
        {
            "model": ["nb", "other"],
            "recall_malignant": [recall[0], 0.9],
            "recall_benign": [recall[1], 0.9],
            "latency_ms": [CONSTANTS["latency"], 1.0],
            "size_kb": [CONSTANTS["memory"], 5.0],
        }
    ).to_csv(pool_file, index=False)
    sc = load_scenario(SCENARIO).scenario
    pool = load_pool(pool_file, metric_objectives(sc))
    rec = recommend(sc, pool, WEIGHTS, PRIORS)
    assert rec.expected[0] == pytest.approx(scorer(model, x[1::2], y[1::2]), rel=1e-12)


def test_labels_map_the_classes(data: tuple[np.ndarray, np.ndarray]) -> None:
    """Text labels, given by class name, score as the default 0, 1 do."""
    x, y = data
    named = np.where(y == 0, "M", "B")
    model, text_model = GaussianNB().fit(x, y), GaussianNB().fit(x, named)
    by_name = _scorer(labels={"benign": "B", "malignant": "M"})
    assert by_name(text_model, x, named) == pytest.approx(_scorer()(model, x, y), rel=1e-12)


def test_a_measured_latency_is_a_time_per_case(data: tuple[np.ndarray, np.ndarray]) -> None:
    """With latency "measured" the score is the score at no latency less the latency's
    weight times a time per case in ms (positive, under a second for naive Bayes)."""
    x, y = data
    model = GaussianNB().fit(x, y)
    free = _scorer(attributes={"latency": 0.0, "memory": 3.0})(model, x, y)
    timed = _scorer(attributes={"latency": "measured", "memory": 3.0})(model, x, y)
    ms = (free - timed) / WEIGHTS[2]
    assert 0 < ms < 1000


def test_grid_search_picks_the_best_setting_for_the_person(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    """In GridSearchCV the scorer's best setting and score are those of the metric counted
    by hand fold by fold on the same folds."""
    x, y = data
    folds = StratifiedKFold(3, shuffle=True, random_state=1)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    grid = {"logisticregression__C": [0.001, 0.1, 10.0]}
    search = GridSearchCV(model, grid, scoring=_scorer(), cv=folds).fit(x, y)
    means = {}
    for c in grid["logisticregression__C"]:
        scores = []
        for fit, test in folds.split(x, y):
            fitted = clone(model).set_params(logisticregression__C=c).fit(x[fit], y[fit])
            scores.append(_hand_metric(y[test], fitted.predict(x[test]), **CONSTANTS))
        means[c] = float(np.mean(scores))
    best = max(means, key=lambda c: means[c])
    assert search.best_params_ == {"logisticregression__C": best}
    assert search.best_score_ == pytest.approx(means[best], rel=1e-12)


def test_a_tuned_threshold_follows_the_persons_weights(
    data: tuple[np.ndarray, np.ndarray],
) -> None:
    """TunedThresholdClassifierCV with the scorer (``sklearn_scorer``) of a person who
    weighs the recall of malignant lumps nine times as much as that of benign ones calls a
    lump benign (scikit-learn's positive class, 1) only from P(benign) ≈ 0.94 on (the Bayes
    threshold: 0.1·p/0.627 ≥ 0.9·(1 − p)/0.373; found 0.93, asserted > 0.8); the reverse
    person from below 0.5 (Bayes 0.16; found 0.34, where the score is flat). Its best score
    is at least that of the threshold 0.5 on the same folds."""
    x, y = data
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    thresholds = {}
    for name, classes in (
        ("malignant", [0.9 / 0.37, 0.1 / 0.63]),
        ("benign", [0.1 / 0.37, 0.9 / 0.63]),
    ):
        scorer = person_scorer(
            [*classes, 0.0, 0.0],
            scenario=SCENARIO,
            priors=PRIORS,
            attributes=CONSTANTS,
            labels=LABELS,
        )
        tuned = TunedThresholdClassifierCV(model, scoring=scorer.sklearn_scorer(), cv=5)
        tuned.fit(x, y)
        thresholds[name] = tuned.best_threshold_
        half = []
        for fit, test in StratifiedKFold(5).split(x, y):
            p = clone(model).fit(x[fit], y[fit]).predict_proba(x[test])[:, 1]
            half.append(scorer.metric(y[test], (p >= 0.5).astype(int)))
        assert tuned.best_score_ >= np.mean(half) - 1e-12
    assert thresholds["malignant"] > 0.8
    assert thresholds["benign"] < 0.5


@pytest.mark.parametrize(
    ("kw", "where"),
    [
        ({"attributes": {"latency": 1.0}}, "memory"),
        ({"attributes": {**CONSTANTS, "cost": 1.0}}, "cost"),
        ({"attributes": {"latency": 1.0, "memory": "measured"}}, "memory"),
        ({"attributes": {"latency": "fast", "memory": 1.0}}, "latency"),
        ({"labels": [0, 1, 2]}, "labels"),
        ({"labels": {"malignant": 0}}, "benign"),
        ({"scenario": None}, "scenario"),
    ],
)
def test_mistakes_are_located(kw: dict[str, object], where: str) -> None:
    with pytest.raises(InputError) as caught:
        _scorer(**kw)
    assert where in str(caught.value)


def test_a_class_absent_from_y_and_a_measured_time_without_estimator_are_named() -> None:
    with pytest.raises(InputError, match="benign"):
        _scorer().metric([0, 0], [0, 1])
    timed = _scorer(attributes={"latency": "measured", "memory": 1.0})
    with pytest.raises(InputError, match="measured"):
        timed.metric([0, 1], [0, 1])
    with pytest.raises(InputError, match="measured"):
        timed.sklearn_scorer()


def test_scikit_learn_is_imported_only_by_the_rule() -> None:
    """The scorer's module imports no scikit-learn; the rule's, without scikit-learn,
    raises an InputError that says how to install it."""
    code = (
        "import sys\nimport tradeoff.choose.scorer\n"
        "print('sklearn' in sys.modules)\n"
        "sys.modules['sklearn'] = None\n"
        "from tradeoff.errors import InputError\n"
        "try:\n    import tradeoff.pool.rule\nexcept InputError as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith("False")
    assert "pip install 'tradeoff[sklearn]'" in out


def test_a_scenario_without_classes_has_nothing_to_score(tmp_path: Path) -> None:
    """Train trips are not classifiers: the scorer says so (it said "priors: sum to 0")."""
    with pytest.raises(InputError) as info:
        person_scorer([0.4, 0.3, 0.2, 0.1], scenario="train-trips")
    said = info.value.message()
    assert "no [[classes]]" in said and "tradeoff pick POOL.csv --session FILE" in said
    assert "priors" not in said
    from tradeoff import group_scorer  # the package names both scorers

    assert callable(group_scorer)


def test_an_unknown_attribute_names_the_scenario_s(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        person_scorer(
            [0.4, 0.3, 0.2, 0.1],
            scenario="breast-cancer-triage",
            attributes={"latency": 0.2, "memroy": 2.0},
        )
    assert "name one of its costs and rewards: latency, memory." in info.value.message()
