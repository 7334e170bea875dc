"""Build a real class-probability population for the breast-cancer scenarios.

A logistic regression (standardised features, C = 1) predicts, for each of the 569 cases of
scikit-learn's Wisconsin diagnostic breast cancer data, the probability that the lump is
malignant or benign, out of fold (10-fold stratified cross-validation, seeded), so that no
case is scored by a model that saw it. The CSV has one row per case: ``malignant`` and
``benign`` (the probabilities, summing to 1) and ``label`` (the case's true class, for
reference; the population uses only the probabilities).

Run (needs the `pool` extra: ``pip install -e '.[pool]'``):

    python scenarios/build_breast_cancer_population.py [--out FILE.csv]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import sklearn
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

SEED = 569


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="scenarios/populations/breast-cancer-lr.csv")
    args = parser.parse_args()
    data = load_breast_cancer()
    model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=5000))
    folds = StratifiedKFold(n_splits=10, shuffle=True, random_state=SEED)
    proba = cross_val_predict(model, data.data, data.target, cv=folds, method="predict_proba")
    # scikit-learn's target: 0 = malignant, 1 = benign.
    frame = pd.DataFrame(
        {
            "malignant": proba[:, 0],
            "benign": 1.0 - proba[:, 0],
            "label": np.where(data.target == 0, "malignant", "benign"),
        }
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False, float_format="%.12f")
    provenance = {
        "data": "scikit-learn load_breast_cancer (Wisconsin diagnostic, 569 cases, 212 malignant)",
        "model": "StandardScaler + LogisticRegression(C=1.0, max_iter=5000)",
        "probabilities": "out of fold, StratifiedKFold(n_splits=10, shuffle=True, "
        f"random_state={SEED})",
        "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
        "built": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "scikit-learn": sklearn.__version__,
        "numpy": np.__version__,
    }
    out.with_suffix(".provenance.json").write_text(json.dumps(provenance, indent=2) + "\n")
    accuracy = float(np.mean((proba[:, 0] > 0.5) == (data.target == 0)))
    print(f"wrote {out} ({len(frame)} cases; out-of-fold accuracy {accuracy:.3f})")


if __name__ == "__main__":
    main()
