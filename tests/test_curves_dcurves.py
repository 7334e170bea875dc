"""Net benefit against the decision-curve reference implementation, ``dcurves``."""

from __future__ import annotations

from pathlib import Path

import dcurves  # the test extra installs it
import numpy as np
import pandas as pd
import pytest

from tradeoff.curves import net_benefit, treat_all

pytestmark = pytest.mark.e2e

THRESHOLDS = [round(0.01 * i, 2) for i in range(1, 100)]
SHIPPED = Path("src/tradeoff/shipped/populations/breast-cancer-lr.csv")


def _reference(data: pd.DataFrame, outcome: str, models: list[str]) -> pd.DataFrame:
    out: pd.DataFrame = dcurves.dca(
        data=data, outcome=outcome, modelnames=models, thresholds=THRESHOLDS
    )
    return out


def _check(data: pd.DataFrame, outcome: str, models: list[str]) -> int:
    ref = _reference(data, outcome, models)
    y = data[outcome].to_numpy().astype(bool)
    checked = 0
    for model in models:
        theirs = ref[ref["model"] == model].sort_values("threshold")
        ours = net_benefit(y, data[model].to_numpy(dtype=float), theirs["threshold"])
        np.testing.assert_allclose(ours, theirs["net_benefit"], rtol=0, atol=1e-9)
        checked += len(ours)
    everyone = ref[ref["model"] == "all"].sort_values("threshold")
    np.testing.assert_allclose(
        treat_all(float(y.mean()), everyone["threshold"]), everyone["net_benefit"], atol=1e-9
    )
    none = ref[ref["model"] == "none"]["net_benefit"].to_numpy(dtype=float)
    np.testing.assert_allclose(none, 0.0, atol=1e-12)
    return checked


def test_net_benefit_equals_dcurves_on_its_own_data() -> None:
    path = Path(dcurves.__file__).parent / "data" / "df_binary.csv"
    data = pd.read_csv(path)
    # famhistory is a fixed classifier (0/1), cancerpredmarker a model's probability
    assert _check(data, "cancer", ["famhistory", "cancerpredmarker"]) == 2 * len(THRESHOLDS)


def test_net_benefit_equals_dcurves_on_the_shipped_out_of_fold_probabilities() -> None:
    frame = pd.read_csv(SHIPPED)
    data = pd.DataFrame(
        {
            "malignant_case": (frame["label"] == "malignant").astype(int),
            "lr": frame["malignant"].astype(float),
        }
    )
    assert _check(data, "malignant_case", ["lr"]) == len(THRESHOLDS)
