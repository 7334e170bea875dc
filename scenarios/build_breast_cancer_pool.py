"""Build a real candidate pool for the breast-cancer triage scenario.

Trains ~30 classifiers of different families and sizes on scikit-learn's Wisconsin
diagnostic breast cancer data (569 cases, shipped with scikit-learn, no download) and
measures them with :func:`tradeoff.pool.measure`: per-class recall on held-out data,
prediction latency for one case and the size of the fitted model.

Run (needs the `sklearn` extra: ``pip install -e '.[sklearn]'``):

    python scenarios/build_breast_cancer_pool.py [--out scenarios/pools/breast-cancer.csv]

The split (60% train, 40% test, stratified) and every model are seeded, so recalls are
reproducible; latency and size are measurements of this machine and library versions,
recorded in the CSV's sidecar ``.provenance.json``. Each model is wrapped in
scikit-learn's ``FixedThresholdClassifier``: malignant when P(malignant) ≥ its threshold.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.ensemble import (
    AdaBoostClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import FixedThresholdClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from tradeoff.pool import Dataset, measure

SEED = 20261121


def models() -> dict[str, tuple[str, Any, float]]:
    """name → (family, estimator, decision threshold on P(malignant))."""

    def scaled(est: Any) -> Any:
        return make_pipeline(StandardScaler(), est)

    out: dict[str, tuple[str, Any, float]] = {}
    for c in (0.01, 0.1, 1.0, 10.0):
        out[f"logreg-C{c:g}"] = (
            "logistic regression",
            scaled(LogisticRegression(C=c, max_iter=5000)),
            0.5,
        )
    for t in (0.2, 0.35, 0.65):
        out[f"logreg-C1-t{t:g}"] = (
            "logistic regression",
            scaled(LogisticRegression(C=1.0, max_iter=5000)),
            t,
        )
    for c in (0.1, 1.0, 10.0):
        out[f"svm-rbf-C{c:g}"] = (
            "support vector machine",
            scaled(SVC(C=c, probability=True, random_state=SEED)),
            0.5,
        )
    out["svm-linear-C1"] = (
        "support vector machine",
        scaled(SVC(kernel="linear", probability=True, random_state=SEED)),
        0.5,
    )
    for k in (1, 5, 15, 45):
        out[f"knn-{k}"] = ("nearest neighbours", scaled(KNeighborsClassifier(n_neighbors=k)), 0.5)
    for d in (1, 2, 4, None):
        out[f"tree-depth{d or 'full'}"] = (
            "decision tree",
            DecisionTreeClassifier(max_depth=d, random_state=SEED),
            0.5,
        )
    for n, d in ((10, 3), (50, None), (300, None)):
        out[f"forest-{n}-depth{d or 'full'}"] = (
            "random forest",
            RandomForestClassifier(n_estimators=n, max_depth=d, random_state=SEED),
            0.5,
        )
    out["forest-300-t0.3"] = (
        "random forest",
        RandomForestClassifier(n_estimators=300, random_state=SEED),
        0.3,
    )
    out["extra-trees-200"] = (
        "extra trees",
        ExtraTreesClassifier(n_estimators=200, random_state=SEED),
        0.5,
    )
    for n in (20, 100, 400):
        out[f"boosting-{n}"] = (
            "gradient boosting",
            GradientBoostingClassifier(n_estimators=n, random_state=SEED),
            0.5,
        )
    out["adaboost-100"] = ("AdaBoost", AdaBoostClassifier(n_estimators=100, random_state=SEED), 0.5)
    out["naive-bayes"] = ("naive Bayes", GaussianNB(), 0.5)
    out["lda"] = ("linear discriminant", LinearDiscriminantAnalysis(), 0.5)
    out["qda"] = ("quadratic discriminant", QuadraticDiscriminantAnalysis(reg_param=0.1), 0.5)
    for h in ((8,), (64,), (128, 128)):
        name = "mlp-" + "x".join(str(x) for x in h)
        out[name] = (
            "neural network",
            scaled(MLPClassifier(hidden_layer_sizes=h, max_iter=3000, random_state=SEED)),
            0.5,
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "pools" / "breast-cancer.csv"))
    args = parser.parse_args()
    data = load_breast_cancer()
    # Class 0 is malignant in scikit-learn's encoding.
    malignant = (data.target == 0).astype(int)
    dataset = Dataset(
        np.asarray(data.data, dtype=np.float64),
        malignant,
        {1: "malignant", 0: "benign"},
        "scikit-learn load_breast_cancer (Wisconsin diagnostic breast cancer, UCI)",
        "sklearn:breast_cancer",
    )
    chosen = models()
    # Every model decides malignant when P(malignant) ≥ its threshold (also at 0.5, where a
    # forest's tied vote and an SVM's own decision function would say otherwise).
    estimators = {
        name: FixedThresholdClassifier(est, threshold=threshold, response_method="predict_proba")
        for name, (_, est, threshold) in chosen.items()
    }
    measured = measure(
        estimators,
        dataset,
        test_size=0.4,
        seed=SEED,
        progress=lambda name, r: print(f"{name:<24} recall M {r[0]:.3f} B {r[1]:.3f}"),
    )
    frame = measured.frame
    frame["family"] = [chosen[name][0] for name in frame["model"]]
    frame.insert(2, "threshold", [chosen[name][2] for name in frame["model"]])
    measured.provenance["command"] = "python scenarios/build_breast_cancer_pool.py"
    out, _ = measured.write(args.out)
    print(f"wrote {out} ({len(frame)} models)")


if __name__ == "__main__":
    main()
