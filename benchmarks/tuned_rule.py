"""How often does a model tuned to the person beat the best untuned model, and by how much?

Run: ``PYTHONPATH=src .venv/bin/python -m benchmarks.tuned_rule [--people 1000] [--seed 0]``
(writes benchmarks/results/tuned-rule.md; about a minute on one core).

For every candidate with class probabilities, the person's own rule
(:class:`tradeoff.pool.rule.PersonalRule`: argmax_k a_k·π_k·p_k(x)/π′_k, paper 004 §2 and
Proposition 2) is measured on the same held-out cases as the candidate itself; the person's
metric ψ (:func:`tradeoff.choose.pool_metric.metric_vectors`) then compares the best tuned
variant with the best untuned model of the pool, for simulated people whose weights are
drawn as the simulation draws them (:func:`tradeoff.learn.truth_from_dirichlet`: a flat
Dirichlet over swing weights, a class's swing its share ζ_k, an attribute's its range). The
rule uses each person's true weights (as if their questions had found them exactly).

Datasets:

* ``breast-cancer-triage``: the shipped scenario and the shipped pool's 34 models and split
  (``scenarios/build_breast_cancer_pool.py``: 60/40 stratified, its seed); latency and
  memory from the shipped pool (``scenarios/pools/breast-cancer.csv``), a variant taking its
  model's (the rule adds an argmax over two numbers); ζ the scenario population's priors;
* ``wine`` (3 classes, 178 cases) and ``digits`` (10 classes, 1,797 cases), scikit-learn's
  bundled sets, 8 and 6 models, recall out of fold as ``tradeoff pool from-sklearn``
  measures it (5 stratified folds, shuffled with ``--seed``; each fold's rule takes that
  fold's training shares); people weigh the classes' recalls only, ζ the data's shares.

A gain is said in the person's units: thousandths of the swing of the aspect they weigh
most (a_j·span_j largest), for a class the cases per 1,000 of that class; 1 is the
perceivable margin (:func:`tradeoff.learn.particles.perceivable_margin`), below which two
models are practically tied for the person.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from benchmarks._table import markdown, write
from tradeoff.ask.population import scenario_priors
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_vectors
from tradeoff.learn import truth_from_dirichlet
from tradeoff.pool.rule import personal_decisions

FloatArray = NDArray[np.float64]
ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Measured:
    """Held-out class probabilities and predictions of every model.

    ``proba[m]`` (cases × classes) and ``pred[m]`` (cases) per model, ``trained_on[m]``
    (cases × classes: the training shares of the fold that predicted each case), ``y`` the
    held-out labels 0..k−1, ``extra`` each model's attributes (models × attributes)."""

    names: list[str]
    proba: list[FloatArray]
    pred: list[NDArray[np.intp]]
    trained_on: list[FloatArray]
    y: NDArray[np.intp]
    extra: FloatArray


def recalls(y: NDArray[np.intp], pred: NDArray[np.intp], k: int) -> FloatArray:
    return np.array([np.mean(pred[y == c] == c) for c in range(k)])


def breast_cancer() -> tuple[Measured, Any]:
    """The shipped pool's models and split, measured again for their probabilities."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import FixedThresholdClassifier, train_test_split

    spec = importlib.util.spec_from_file_location(
        "_build_pool", ROOT / "scenarios" / "build_breast_cancer_pool.py"
    )
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    data = load_breast_cancer()
    # As the build script: fitted on malignant = 1; here read in the scenario's order
    # (malignant, benign), so the class index is 0 for malignant.
    x, malignant = np.asarray(data.data), (np.asarray(data.target) == 0).astype(int)
    x_fit, x_test, m_fit, m_test = train_test_split(
        x, malignant, test_size=0.4, stratify=malignant, random_state=build.SEED
    )
    y_test = (1 - m_test).astype(np.intp)
    shipped = pd.read_csv(ROOT / "scenarios" / "pools" / "breast-cancer.csv").set_index("model")
    shares = np.array([m_fit.mean(), 1 - m_fit.mean()])
    names, proba, pred, trained, extra = [], [], [], [], []
    for name, (_, est, threshold) in build.models().items():
        model = FixedThresholdClassifier(est, threshold=threshold, response_method="predict_proba")
        model.fit(x_fit, m_fit)
        p = np.asarray(model.predict_proba(x_test))[:, ::-1]  # P(malignant), P(benign)
        names.append(name)
        proba.append(p)
        pred.append(np.where(p[:, 0] >= threshold, 0, 1).astype(np.intp))
        trained.append(np.tile(shares, (len(y_test), 1)))
        extra.append([shipped.loc[name, "latency_ms"], shipped.loc[name, "size_kb"]])
        mine = recalls(y_test, pred[-1], 2)
        theirs = shipped.loc[name, ["recall_malignant", "recall_benign"]].to_numpy(float)
        if np.abs(mine - theirs).max() > 1e-4:  # the same split and models as the shipped pool
            print(f"note: {name} measures recall {mine.round(4)}, the shipped pool {theirs}")
    scenario = load_scenario("breast-cancer-triage").scenario
    return Measured(names, proba, pred, trained, y_test, np.asarray(extra)), scenario


def out_of_fold(x: FloatArray, y: NDArray[np.intp], models: dict[str, Any], seed: int) -> Measured:
    """Each model's out-of-fold probabilities and predictions (5 stratified folds)."""
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold

    k = int(y.max()) + 1
    names, proba, pred, trained = [], [], [], []
    folds = list(StratifiedKFold(5, shuffle=True, random_state=seed).split(x, y))
    for name, est in models.items():
        p, hard, shares = np.zeros((len(y), k)), np.zeros(len(y), np.intp), np.zeros((len(y), k))
        for fit, test in folds:
            model = clone(est).fit(x[fit], y[fit])
            p[test] = model.predict_proba(x[test])
            hard[test] = model.predict(x[test])
            shares[test] = np.bincount(y[fit], minlength=k) / len(fit)
        names.append(name)
        proba.append(p)
        pred.append(hard)
        trained.append(shares)
    return Measured(names, proba, pred, trained, y, np.zeros((len(names), 0)))


def sklearn_models(small: bool) -> dict[str, Any]:
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    def scaled(est: Any) -> Any:
        return make_pipeline(StandardScaler(), est)

    out: dict[str, Any] = {
        "logreg": scaled(LogisticRegression(max_iter=5000)),
        "naive-bayes": GaussianNB(),
        "knn-15": scaled(KNeighborsClassifier(n_neighbors=15)),
        "tree-depth4": DecisionTreeClassifier(max_depth=4, random_state=0),
        "forest-50": RandomForestClassifier(n_estimators=50, random_state=0),
        "lda": LinearDiscriminantAnalysis(),
    }
    if not small:
        out["tree-depth2"] = DecisionTreeClassifier(max_depth=2, random_state=0)
        out["svm-rbf"] = scaled(SVC(probability=True, random_state=0))
    return out


def study(
    measured: Measured,
    spans: FloatArray,
    priors: FloatArray,
    vectors_of: Callable[[FloatArray], FloatArray],
    people: int,
    rng: np.random.Generator,
) -> dict[str, Any]:
    """Per person: ψ of the best untuned model and of the best tuned variant."""
    k = len(priors)
    untuned = np.array(
        [
            np.r_[recalls(measured.y, p, k), e]
            for p, e in zip(measured.pred, measured.extra, strict=True)
        ]
    )
    psi_untuned = vectors_of(untuned)  # models × weights
    gains, units, winners, own = [], [], [], []
    for _ in range(people):
        a = np.asarray(truth_from_dirichlet(tuple(spans), rng))
        plain = psi_untuned @ a
        tuned = []
        for m in range(len(measured.names)):
            picks = _per_fold(measured.proba[m], a[:k], priors, measured.trained_on[m])
            row = np.r_[recalls(measured.y, picks, k), measured.extra[m]]
            tuned.append(float((vectors_of(row[None, :]) @ a)[0]))
        own.append(np.asarray(tuned) > plain)
        best_tuned = int(np.argmax(tuned))
        unit = float((a * spans).max()) / 1000
        gain = (tuned[best_tuned] - float(plain.max())) / unit
        gains.append(gain)
        units.append(unit)
        winners.append(measured.names[best_tuned])
    g = np.asarray(gains)
    won = g > 0
    common = pd.Series(np.asarray(winners)[won]).value_counts()
    return {
        "models": len(measured.names),
        "people": people,
        "beats": float(won.mean()),
        "beats_perceivably": float((g >= 1).mean()),
        "quartiles": np.percentile(g, [25, 50, 75]),
        "quartiles_won": np.percentile(g[won], [25, 50, 75]) if won.any() else None,
        "most_often": ", ".join(f"{n} ({c})" for n, c in common.head(3).items()),
        "own": float(np.mean(own)),
    }


def _per_fold(
    proba: FloatArray, weights: FloatArray, priors: FloatArray, trained_on: FloatArray
) -> NDArray[np.intp]:
    """The rule case by case, each case with the training shares of its fold."""
    out = np.zeros(len(proba), np.intp)
    for shares in np.unique(trained_on, axis=0):
        rows = (trained_on == shares).all(axis=1)
        out[rows] = personal_decisions(proba[rows], weights, priors, shares)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--people", type=int, default=1000, help="simulated people per dataset")
    parser.add_argument("--seed", type=int, default=0, help="seeds the people and the folds")
    args = parser.parse_args()
    from sklearn.datasets import load_digits, load_wine

    rng = np.random.default_rng(args.seed)
    rows = []
    started = time.perf_counter()
    bc, scenario = breast_cancer()
    zeta = np.asarray(scenario_priors(scenario))
    spans = np.r_[zeta, [a.range[1] - a.range[0] for a in scenario.attributes]]
    results = {
        "breast-cancer-triage (shipped pool, 2 classes, latency, memory)": study(
            bc, spans, zeta, lambda v: metric_vectors(scenario, v, zeta), args.people, rng
        )
    }
    for label, loader, small in (
        ("wine (3 classes)", load_wine, False),
        ("digits (10 classes)", load_digits, True),
    ):
        data = loader()
        x, y = np.asarray(data.data, dtype=np.float64), np.asarray(data.target, dtype=np.intp)
        shares = np.bincount(y) / len(y)
        measured = out_of_fold(x, y, sklearn_models(small), args.seed)
        results[label] = study(
            measured, shares, shares, lambda v, z=shares: v * z, args.people, rng
        )
    for label, r in results.items():
        q, w = r["quartiles"], r["quartiles_won"]
        rows.append(
            [
                label,
                r["models"],
                r["people"],
                f"{r['beats']:.0%}",
                f"{r['beats_perceivably']:.0%}",
                f"{r['own']:.0%}",
                f"{q[1]:.1f} ({q[0]:.1f} to {q[2]:.1f})",
                "–" if w is None else f"{w[1]:.1f} ({w[0]:.1f} to {w[2]:.1f})",
                r["most_often"],
            ]
        )
    seconds = time.perf_counter() - started
    body = (
        markdown(
            [
                "dataset",
                "models",
                "people",
                "tuned beats best untuned",
                "by ≥ 1 (perceivably)",
                "a variant beats its own model (people × models)",
                "gain: median (quartiles)",
                "gain where it beats: median (quartiles)",
                "best tuned variant most often (people)",
            ],
            rows,
        )
        + "\n\nGain: ψ of the best tuned variant minus ψ of the best untuned model, in "
        "thousandths of the swing of the aspect the person weighs most (for a class: cases "
        "per 1,000 of it; 1 is the perceivable margin); negative where every variant is "
        "worse. Each person's rule uses their true weights. The rule is the Bayes decision on "
        "calibrated probabilities; a model's own probabilities may not be (a forest's vote "
        "shares, a neighbours' count), and on wine one case is 14 to 21 per 1,000 of its "
        "class, so a variant can lose to its own model. Command: `PYTHONPATH=src "
        f"python -m benchmarks.tuned_rule --people {args.people} --seed {args.seed}` "
        f"({seconds:.0f} s)."
    )
    write("tuned-rule", "A model tuned to the person against the best untuned model", body)


if __name__ == "__main__":
    main()
