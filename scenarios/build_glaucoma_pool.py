"""Write scenarios/pools/glaucoma.csv: 30 SYNTHETIC glaucoma screening tools.

No real models were trained or measured for glaucoma-screening; this pool exists so that
benchmarks can ask which tool a person would pick on a front of plausible shape. Ten tools
differ in what a scan costs and how long the result takes; a tool that costs more or takes
longer separates glaucoma from healthy eyes better (a binormal ROC curve with
separation d' rising with cost and wait, plus seeded noise). Each tool is offered at three
decision thresholds (jittered per tool), so its recalls trade glaucoma cases found against
healthy eyes cleared. Values are rounded as the scenario shows them (recall per 1,000, cost to
the cent, wait to the minute).

Run: ``python scenarios/build_glaucoma_pool.py`` (deterministic: seed below; numpy only).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

SEED = 20261124
HERE = Path(__file__).resolve().parent
OUT = HERE / "pools" / "glaucoma.csv"
PROVENANCE = HERE / "pools" / "glaucoma.provenance.json"
#: Decision thresholds on the healthy class's score axis (specificity = Φ(z)).
THRESHOLDS = (0.35, 0.9, 1.45)


def phi(x: float) -> float:
    """The standard normal CDF."""
    return 0.5 * math.erfc(-x / math.sqrt(2))


def tools(rng: np.random.Generator) -> list[dict[str, float | str]]:
    rows: list[dict[str, float | str]] = []
    costs = np.sort(rng.uniform(0.06, 0.58, size=10))
    waits = rng.uniform(1.0, 19.0, size=10)
    for t, (cost, wait) in enumerate(zip(costs, waits, strict=True)):
        d_prime = (
            1.6
            + 1.4 * (cost - 0.05) / 0.55
            + 0.6 * (wait - 1.0) / 19.0
            + float(rng.normal(0.0, 0.15))
        )
        for k, base in enumerate(THRESHOLDS):
            z = base + float(rng.normal(0.0, 0.12))
            specificity = phi(z)
            sensitivity = phi(d_prime - z)
            rows.append(
                {
                    "model": f"tool-{t + 1:02d}-t{k + 1}",
                    "recall_glaucoma": round(sensitivity, 3),
                    "recall_healthy": round(specificity, 3),
                    "cost_usd": round(float(cost), 2),
                    "wait_min": float(round(float(wait))),
                }
            )
    return rows


def main() -> None:
    rows = tools(np.random.default_rng(SEED))
    OUT.parent.mkdir(exist_ok=True)
    with OUT.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    PROVENANCE.write_text(
        json.dumps(
            {
                "synthetic": True,
                "what": "30 synthetic glaucoma screening tools (10 tools x 3 thresholds); "
                "no real model was trained or measured",
                "model": "binormal ROC: specificity = Phi(z), sensitivity = Phi(d' - z), "
                "d' = 1.6 + 1.4 (cost - 0.05)/0.55 + 0.6 (wait - 1)/19 + N(0, 0.15)",
                "thresholds_z": f"{list(THRESHOLDS)} + N(0, 0.12) per tool and threshold",
                "seed": SEED,
                "command": "python scenarios/build_glaucoma_pool.py",
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
