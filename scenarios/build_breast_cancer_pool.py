"""Build a real candidate pool for the breast-cancer triage scenario.

Trains ~30 classifiers of different families and sizes on scikit-learn's Wisconsin
diagnostic breast cancer data (569 cases, shipped with scikit-learn, no download) and
records, for each model, measured per-class recall on held-out data, measured prediction
latency for one case and the size of the fitted model.

Run (needs the `pool` extra: ``pip install -e '.[pool]'``):

    python scenarios/build_breast_cancer_pool.py [--out scenarios/pools/breast-cancer.csv]

The split (60% train, 40% test, stratified) and every model are seeded, so recalls are
reproducible; latency and size are measurements of this machine and library versions,
recorded in the CSV's sidecar ``.provenance.json``.
"""

from __future__ import annotations

import argparse
import json
import pickle
import platform
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import sklearn
from sklearn.datasets import load_breast_cancer
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.ensemble import (
    AdaBoostClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

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


def latency_ms(model: Any, x: np.ndarray, repeats: int = 60) -> float:
    """Median wall time to predict one case (ms)."""
    row = x[:1]
    model.predict_proba(row)  # warm up
    times = []
    for i in range(repeats):
        row = x[i % len(x) : i % len(x) + 1]
        start = time.perf_counter()
        model.predict_proba(row)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "pools" / "breast-cancer.csv"))
    args = parser.parse_args()
    data = load_breast_cancer()
    # Class 0 is malignant in scikit-learn's encoding.
    malignant = (data.target == 0).astype(int)
    x_train, x_test, y_train, y_test = train_test_split(
        data.data, malignant, test_size=0.4, stratify=malignant, random_state=SEED
    )
    rows = []
    for name, (family, model, threshold) in models().items():
        model.fit(x_train, y_train)
        p = model.predict_proba(x_test)[:, 1]
        pred = (p >= threshold).astype(int)
        recall_m = float(((pred == 1) & (y_test == 1)).sum() / (y_test == 1).sum())
        recall_b = float(((pred == 0) & (y_test == 0)).sum() / (y_test == 0).sum())
        rows.append(
            {
                "model": name,
                "family": family,
                "threshold": threshold,
                "recall_malignant": round(recall_m, 4),
                "recall_benign": round(recall_b, 4),
                "accuracy": round(float((pred == y_test).mean()), 4),
                "latency_ms": round(latency_ms(model, x_test), 4),
                "size_kb": round(len(pickle.dumps(model)) / 1024, 2),
            }
        )
        print(f"{name:<24} recall M {recall_m:.3f} B {recall_b:.3f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(out, index=False)
    provenance = {
        "dataset": "scikit-learn load_breast_cancer (Wisconsin diagnostic breast cancer, UCI)",
        "cases": len(malignant),
        "malignant_share": round(float(malignant.mean()), 4),
        "split": "60% train / 40% test, stratified",
        "seed": SEED,
        "test_cases": len(y_test),
        "measured": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, Python "
        f"{platform.python_version()}, scikit-learn {sklearn.__version__}",
        "command": "python scenarios/build_breast_cancer_pool.py",
        "latency": "median of 60 single-case predict_proba calls, ms",
        "size": "pickled fitted model, KB",
    }
    out.with_suffix(".provenance.json").write_text(json.dumps(provenance, indent=2) + "\n")
    print(f"wrote {out} ({len(rows)} models)")


if __name__ == "__main__":
    main()
