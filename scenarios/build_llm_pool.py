"""Write scenarios/pools/llm-leaderboard.csv: language models from the Open LLM Leaderboard.

The population is the one COPA's LLM experiment used (paper 000, §5.2): the models of the
leaderboard's v2 dump (data/open-llm-leaderboard/, provenance in data/README.md) that were
available on the hub, submitted on or before 2025-01-09 (2119 models). A person cannot
weigh two thousand models, and most of them are beaten on every aspect by another one, so
the pool keeps

1. the models the leaderboard marks as coming from their official providers (430: Meta,
   Qwen, Google, Microsoft, Mistral, …; names a person may know),
2. one evaluation per model (``fullname``; the leaderboard evaluates some models at two
   precisions): the one with the lower CO₂ cost,
3. the Pareto front of those on the scenario's aspects: IFEval, BBH, MATH Lvl 5 and
   MMLU-PRO (normalised scores, higher is better) and the CO₂ cost of the evaluation in kg
   (lower is better). A model off this front is worse than another one on every aspect, so
   no person whose preferences are linear in these aspects would pick it.

Scores are kept to two decimals and CO₂ to three (as the scenario's formats show them
with room to spare). Run: ``python scenarios/build_llm_pool.py`` (pandas and numpy only;
the same rows every time); what it did is written beside the pool in
``llm-leaderboard.provenance.json``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "data" / "open-llm-leaderboard" / "open_llm_leaderboard.csv"
OUT = HERE / "pools" / "llm-leaderboard.csv"
PROVENANCE = HERE / "pools" / "llm-leaderboard.provenance.json"
CUTOFF = "2025-01-09"
#: Leaderboard column → pool column, and whether higher is better.
ASPECTS = {
    "IFEval": ("ifeval", True),
    "BBH": ("bbh", True),
    "MATH Lvl 5": ("math_lvl5", True),
    "MMLU-PRO": ("mmlu_pro", True),
    "CO₂ cost (kg)": ("co2_kg", False),
}


def non_dominated(values: np.ndarray) -> np.ndarray:
    """Rows of ``values`` (higher is better in every column) that no other row dominates."""
    keep = np.ones(len(values), dtype=bool)
    for i, row in enumerate(values):
        dominated = (values >= row).all(axis=1) & (values > row).any(axis=1)
        keep[i] = not dominated.any()
    return keep


def build() -> tuple[pd.DataFrame, dict[str, int]]:
    board = pd.read_csv(SOURCE)
    available = board[
        (board["Available on the hub"] == True)  # noqa: E712 - a column of booleans
        & (board["Submission Date"] <= CUTOFF)
    ]
    official = available[available["Official Providers"] == True]  # noqa: E712
    one_each = official.sort_values(["CO₂ cost (kg)", "eval_name"]).drop_duplicates("fullname")
    signed = np.column_stack(
        [one_each[c].to_numpy(dtype=float) * (1 if up else -1) for c, (_, up) in ASPECTS.items()]
    )
    front = one_each[non_dominated(signed)]
    pool = pd.DataFrame({"model": front["fullname"].to_numpy()})
    for column, (name, _) in ASPECTS.items():
        digits = 3 if name == "co2_kg" else 2
        pool[name] = front[column].to_numpy(dtype=float).round(digits)
    pool["params_b"] = front["#Params (B)"].to_numpy()
    pool["eval_name"] = front["eval_name"].to_numpy()
    counts = {
        "dump": len(board),
        "available_by_cutoff": len(available),
        "official_providers": len(official),
        "one_evaluation_each": len(one_each),
        "pareto_front": len(pool),
    }
    return pool.sort_values("co2_kg", kind="stable").reset_index(drop=True), counts


def main() -> None:
    pool, counts = build()
    OUT.parent.mkdir(exist_ok=True)
    pool.to_csv(OUT, index=False)
    source_sha = hashlib.sha256(SOURCE.read_bytes()).hexdigest()
    PROVENANCE.write_text(
        json.dumps(
            {
                "what": "language models of the Open LLM Leaderboard v2 on the Pareto front of "
                "four benchmarks and CO2 cost, among official providers' models",
                "source": "data/open-llm-leaderboard/open_llm_leaderboard.csv "
                "(hlzhang109/causal-eval @ 6800b3967aff, data/open_llm_leaderboard.csv)",
                "source_sha256": source_sha,
                "filter": f"`Available on the hub` == True and `Submission Date` <= '{CUTOFF}' "
                "and `Official Providers` == True; one row per fullname (lowest CO2 cost); "
                "Pareto front on IFEval, BBH, MATH Lvl 5, MMLU-PRO (max) and CO2 cost (min)",
                "columns": {name: column for column, (name, _) in ASPECTS.items()},
                "rows": counts,
                "command": "python scenarios/build_llm_pool.py",
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )
    print(f"{OUT}: {len(pool)} models ({counts})")


if __name__ == "__main__":
    main()
