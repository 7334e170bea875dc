"""One mapping for every model source: the same synthetic metrics read from MLflow runs,
Optuna trials and measured scikit-learn estimators give the same pool, in the scenario's
order, with the same fallbacks where the source has them and the same located errors.

The stores are stand-ins with the attributes the readers use (an MLflow run's ``info`` and
``data``; Optuna's frozen trials in a study object), so these tests are fast; the real
stores are exercised in ``test_pool_sources`` and ``test_optuna_pool``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.errors import InputError
from tradeoff.pool import Measured, searches, tracking

pytestmark = pytest.mark.core

BREAST = load_scenario("breast-cancer-triage").scenario
#: The scenario's pool columns, in its order (classes, then attributes).
ORDER = ["recall_malignant", "recall_benign", "latency_ms", "size_kb"]
#: The same synthetic metrics for every source: model → measured value.
METRICS: dict[str, dict[str, float]] = {
    "a": {"recall_malignant": 0.91, "recall_benign": 0.95, "latency_ms": 2.0, "size_kb": 40.0},
    "b": {"recall_malignant": 0.97, "recall_benign": 0.90, "latency_ms": 5.0, "size_kb": 90.0},
    "c": {"recall_malignant": 0.85, "recall_benign": 0.98, "latency_ms": 1.0, "size_kb": 10.0},
}
#: Where a scenario-less mapping of each source reads the measured values from.
MEASURED = {"mlflow": "metrics", "optuna": "values", "sklearn": "measured"}
#: Where a person records a value beside the measured ones (scikit-learn has no such place).
BESIDE = {"mlflow": "tags", "optuna": "user_attrs"}
#: How each source names a candidate in its messages.
NAMED = {"mlflow": "run 'b' (id-b)", "optuna": "trial 1", "sklearn": "estimator 'b'"}

Metrics = Mapping[str, Mapping[str, float]]
Build = Callable[..., Measured]


def _mlflow(
    monkeypatch: pytest.MonkeyPatch, metrics: Metrics, beside: Metrics | None = None
) -> Build:
    """``from_mlflow`` on runs named by the models, the values in their metrics (and
    ``beside`` in their tags)."""
    runs = [
        (
            SimpleNamespace(
                info=SimpleNamespace(run_id=f"id-{m}", run_name=m, status="FINISHED"),
                data=SimpleNamespace(
                    metrics=dict(values),
                    params={},
                    tags={k: str(v) for k, v in (beside or {}).get(m, {}).items()},
                ),
            ),
            None,
        )
        for m, values in metrics.items()
    ]
    client = SimpleNamespace(tracking_uri="sqlite:///fake.db")
    monkeypatch.setattr(tracking, "_client", lambda uri: client)
    monkeypatch.setattr(tracking, "_runs", lambda *a: runs)
    monkeypatch.setattr(tracking, "_mlflow", lambda where: SimpleNamespace(__version__="stub"))

    def build(mapping: Mapping[str, str], **options: Any) -> Measured:
        return tracking.from_mlflow(mapping, experiment="synthetic", **options)

    return build


def _optuna(
    monkeypatch: pytest.MonkeyPatch, metrics: Metrics, beside: Metrics | None = None
) -> Build:
    """``from_optuna`` on one completed trial per model (numbered in order), the values as
    objectives named by the study's metric names (and ``beside`` as user attributes)."""
    optuna = pytest.importorskip("optuna")
    names = list(next(iter(metrics.values())))  # the study's metric names: the first's
    trials = []
    for number, (m, values) in enumerate(metrics.items()):
        trial = optuna.trial.create_trial(
            values=[values[n] for n in names if n in values],  # only trailing ones missing
            user_attrs={"name": m, **(beside or {}).get(m, {})},
        )
        trial.number = number
        trials.append(trial)
    study = SimpleNamespace(
        study_name="synthetic",
        directions=[optuna.study.StudyDirection.MAXIMIZE] * len(names),
        metric_names=names,
        get_trials=lambda deepcopy=False: trials,
        best_trials=trials,
    )
    monkeypatch.setattr(searches, "open_study", lambda *a, **k: study)

    def build(mapping: Mapping[str, str], **options: Any) -> Measured:
        return searches.from_optuna(
            mapping, storage="sqlite:///fake.db", trials="all", name="user_attrs.name", **options
        )

    return build


def _sklearn(metrics: Metrics) -> Build:
    """A :class:`~tradeoff.pool.model_sources.SklearnSource` whose measurement gave the
    values (one row per estimator, with each recall's cases)."""
    from tradeoff.pool.model_sources import SklearnSource
    from tradeoff.pool.sklearn_inputs import Dataset

    frame = pd.DataFrame(
        [
            {"model": m, "family": "Stub", **values, **{f"{c}_cases": 50 for c in ORDER[:2]}}
            for m, values in metrics.items()
        ]
    )
    dataset = Dataset(np.zeros((4, 1)), np.array([0, 1, 0, 1]), {0: "malignant", 1: "benign"}, "d")
    source = SklearnSource({}, dataset)
    source.__dict__["measured"] = Measured(frame, {"dataset": "d"})  # measured once, here

    def build(mapping: Mapping[str, str], **options: Any) -> Measured:
        return source.pool(mapping, **options)

    return build


def _source(
    kind: str,
    monkeypatch: pytest.MonkeyPatch,
    metrics: Metrics = METRICS,
    beside: Metrics | None = None,
) -> Build:
    if kind == "mlflow":
        return _mlflow(monkeypatch, metrics, beside)
    if kind == "optuna":
        return _optuna(monkeypatch, metrics, beside)
    assert beside is None
    return _sklearn(metrics)


def _mapped(frame: pd.DataFrame) -> list[str]:
    """The frame's columns that carry values (not those that tie a row to its source)."""
    ties = {"model", "family", "mlflow_run_id", "optuna_trial"}
    return [str(c) for c in frame.columns if c not in ties and not str(c).endswith("_cases")]


@pytest.mark.parametrize("kind", ["mlflow", "optuna", "sklearn"])
def test_a_scenario_s_order_and_names_whatever_the_mapping_s_order(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool's columns follow the scenario (classes, then attributes) however the
    mapping is ordered, a class or attribute mapped by its own name is written under its
    ``[pool] columns`` name, and the others are found under their column's name. (MLflow's
    reader wrote the mapping's order first: memory, malignant, then the rest.)"""
    build = _source(kind, monkeypatch)
    where = MEASURED[kind]
    mapping = {"memory": f"{where}.size_kb", "malignant": f"{where}.recall_malignant"}
    measured = build(mapping, scenario=BREAST)
    assert _mapped(measured.frame) == ORDER
    assert measured.frame["model"].tolist() == list(METRICS)
    expected = np.array([[METRICS[m][c] for c in ORDER] for m in METRICS])
    np.testing.assert_allclose(measured.frame[ORDER].to_numpy(dtype=float), expected)
    if kind == "sklearn":  # how exactly a recall was measured goes with it
        assert measured.frame["recall_malignant_cases"].tolist() == [50, 50, 50]
    # without a scenario the mapping's own order stands, the same for every source
    plain = build({"size_kb": f"{where}.size_kb", "recall_benign": f"{where}.recall_benign"})
    assert _mapped(plain.frame) == ["size_kb", "recall_benign"]


@pytest.mark.parametrize("kind", ["mlflow", "optuna"])
def test_a_value_recorded_beside_the_metrics_is_found(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scenario's attribute no metric holds is found where a person records values
    beside them (MLflow's tags, Optuna's user attributes), as for Optuna before; MLflow's
    reader looked only among the metrics and refused every run."""
    without = {
        m: {k: v for k, v in values.items() if k != "latency_ms"} for m, values in METRICS.items()
    }
    beside = {m: {"latency": values["latency_ms"]} for m, values in METRICS.items()}
    measured = _source(kind, monkeypatch, without, beside)({}, scenario=BREAST)
    assert _mapped(measured.frame) == ORDER
    assert measured.frame["latency_ms"].tolist() == [METRICS[m]["latency_ms"] for m in METRICS]
    looked = measured.provenance["columns"]["latency_ms"].split("|")
    assert looked == [
        f"{MEASURED[kind]}.latency_ms",
        f"{BESIDE[kind]}.latency_ms",
        f"{MEASURED[kind]}.latency",
        f"{BESIDE[kind]}.latency",
    ]


@pytest.mark.parametrize("kind", ["mlflow", "optuna", "sklearn"])
def test_a_missing_metric_names_the_candidate_the_column_and_the_fix(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A value one candidate lacks is an error naming that run, trial or estimator, the
    column, every place it was looked for and the fix; with ``skip_incomplete`` the
    candidate is left out and named in the notes, the same for every source."""
    lacking = {m: dict(v) for m, v in METRICS.items()}
    del lacking["b"]["size_kb"]  # the last: an Optuna trial's objectives are positional
    build = _source(kind, monkeypatch, lacking)
    with pytest.raises(InputError) as caught:
        build({}, scenario=BREAST)
    message = InputError.message(caught.value)
    place = MEASURED[kind]
    assert f"{NAMED[kind]}: has no size_kb ({place}.size_kb or " in message
    assert "map another key, or leave such" in message and "(--skip-incomplete)" in message
    assert "trial 0" not in message and "'a'" not in message  # only the one lacking it
    kept = build({}, scenario=BREAST, skip_incomplete=True)
    assert kept.frame["model"].tolist() == ["a", "c"]
    assert kept.notes[-1].startswith(f"left out {NAMED[kind]}: has no size_kb")


@pytest.mark.parametrize("kind", ["mlflow", "optuna"])
def test_a_value_that_is_no_number_is_said_with_every_other_problem(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mapped value that is not a number is one of the problems said at once (it stopped
    the reading at the first one), named by the candidate and where it was read; with
    ``skip_incomplete`` that candidate is left out like one with a value missing."""
    beside = {m: {"size": "big" if m != "a" else "3"} for m in METRICS}
    build = _source(kind, monkeypatch, METRICS, beside)
    mapping = {
        "size_kb": f"{BESIDE[kind]}.size",
        "recall_benign": f"{MEASURED[kind]}.recall_benign",
    }
    with pytest.raises(InputError) as caught:
        build(mapping)
    message = InputError.message(caught.value)
    for name in ("b", "c"):
        where = NAMED[kind].replace("'b'", f"'{name}'").replace("id-b", f"id-{name}")
        where = where.replace("trial 1", f"trial {list(METRICS).index(name)}")
        assert f"{where}, {BESIDE[kind]}.size: is 'big', not a number." in message
    with pytest.raises(InputError, match="a pool needs at least 2"):
        build(mapping, skip_incomplete=True)


@pytest.mark.parametrize("kind", ["mlflow", "optuna", "sklearn"])
def test_every_source_is_a_model_source(kind: str) -> None:
    from tradeoff.pool import model_sources
    from tradeoff.pool.sources import ModelSource

    source: object = {
        "mlflow": model_sources.MlflowSource(experiment="x"),
        "optuna": model_sources.OptunaSource("sqlite:///x.db"),
        "sklearn": model_sources.SklearnSource({}, _dataset()),
    }[kind]
    assert isinstance(source, ModelSource)


def _dataset() -> Any:
    from tradeoff.pool.sklearn_inputs import Dataset

    return Dataset(np.zeros((4, 1)), np.array([0, 1, 0, 1]), {0: "malignant", 1: "benign"}, "d")


def test_the_scikit_learn_pick_is_the_estimator_refitted_and_a_line_beside_the_pool(
    tmp_path: Path,
) -> None:
    """Writing the pick back for scikit-learn pickles the picked estimator fitted on the
    whole dataset beside the pool, a new file each time, and appends what was picked to
    ``<pool>.picks.jsonl``; a model that is none of the estimators writes nothing."""
    import json
    import pickle

    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    from tradeoff.pool.model_sources import SklearnSource
    from tradeoff.pool.sklearn_inputs import Dataset
    from tradeoff.pool.sources import Pick

    x, y = load_iris(return_X_y=True)
    dataset = Dataset(x, y, {0: "setosa", 1: "versicolor", 2: "virginica"}, "iris")
    estimators = {"tree": DecisionTreeClassifier(random_state=0), "lr": LogisticRegression(C=2.0)}
    source = SklearnSource(estimators, dataset)
    pool = tmp_path / "pool.csv"
    pool.write_text("model\nlr\ntree\n")
    first = source.write_pick(Pick({"model": "lr"}, {"p_best": 0.8}, pool_path=pool))
    second = source.write_pick(Pick({"model": "lr"}, {"p_best": 0.7}, pool_path=pool))
    assert Path(first.pickle).name == "pool.pick-1.pkl"
    assert Path(second.pickle).name == "pool.pick-2.pkl"
    fitted = pickle.loads(Path(first.pickle).read_bytes())
    assert isinstance(fitted, LogisticRegression) and fitted.C == 2.0
    assert fitted.score(x, y) > 0.9  # fitted on the whole dataset
    lines = [json.loads(line) for line in (tmp_path / "pool.picks.jsonl").read_text().splitlines()]
    assert [line["p_best"] for line in lines] == [0.8, 0.7]
    assert lines[0]["params"]["C"] == "2.0" and lines[0]["pickle"] == "pool.pick-1.pkl"
    with pytest.raises(InputError, match="none of the estimators measured"):
        source.write_pick(Pick({"model": "svm"}, pool_path=pool))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "pool.csv",
        "pool.pick-1.pkl",
        "pool.pick-2.pkl",
        "pool.picks.jsonl",
    ]


#: What each source calls one candidate and the kind of value mapped.
THING = {
    "mlflow": ("run", "metric"),
    "optuna": ("completed trial", "user attribute"),
    "sklearn": ("estimator", "measured column"),
}


@pytest.mark.parametrize("kind", ["mlflow", "optuna", "sklearn"])
def test_a_key_no_candidate_has_is_said_once_with_the_keys_there_are(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mapped key that no candidate has (a typo) is one problem naming the mapping item
    and listing the keys the candidates have, for every source (MLflow's reader said it
    once per run, without the keys there are)."""
    place = {"optuna": "user_attrs"}.get(kind, MEASURED[kind])
    beside = {m: {"recall_benign": v["recall_benign"]} for m, v in METRICS.items()}
    build = _source(kind, monkeypatch, METRICS, beside if kind == "optuna" else None)
    with pytest.raises(InputError) as caught:
        build({"recall_benign": f"{place}.recal_benign"})
    message = InputError.message(caught.value)
    thing, word = THING[kind]
    assert f"--map recall_benign={place}.recal_benign: no {thing} of " in message
    assert f"has the {word} 'recal_benign'." in message
    assert f"{place}.recall_benign" in message.split("map one the")[1]
    assert message.count("recal_benign'") == 1
