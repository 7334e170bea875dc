"""COPA speed: α sweeps on large pools (issue: ranking a real candidate pool).

Run: ``.venv/bin/python -m benchmarks.copa`` (writes benchmarks/results/copa.md).

* 10⁶ random models × 7 objectives, 1000 α values, p = ∞, end to end from arrays in memory:
  rank CDF, prefilter (3-D non-dominated set of the sweep's features), vectorised sweep.
* The 2119-model Open LLM Leaderboard population: rank CDF + 1000-α sweep.
* ``tradeoff rank`` on a 10⁶-row Parquet pool with ``--sweep 1000``, wall time of the whole
  command (process start, reading, validation, Pareto count, JSON out).
* Beside it, in the same run, a bare numpy reference of the same steps (the Parquet read
  with pyarrow, û by one argsort per column, the sweep's two features per model reduced to
  their 2-D non-dominated set, each α's pick among those): the ratio says what the
  command's validation, names, Pareto flags and JSON cost on top.
* For scale: the literal formula, one pass over the 10⁶ × 7 rank matrix per weight vector
  (timed on 20 vectors, extrapolated to 1000).
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks._table import markdown, median_seconds, write
from tradeoff.pool import Objective, copa, load_pool

ROOT = Path(__file__).resolve().parents[1]
LLM = ROOT / "data" / "open-llm-leaderboard" / "open_llm_leaderboard.csv"


def bare_numpy(path: Path, alphas: np.ndarray) -> np.ndarray:
    """The command's steps in plain numpy: read, û per column, 1000-α picks at p = ∞ with
    objective 0 in the α group (ω = [α, (1 − α)/6, …])."""
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    y = np.column_stack([table.column(f"o{i}").to_numpy() for i in range(7)])
    n = len(y)
    u = np.empty_like(y)
    for c in range(7):
        order = np.argsort(y[:, c])
        col = y[order, c]
        first = np.where(np.r_[True, col[1:] != col[:-1]], np.arange(n), 0)
        np.maximum.accumulate(first, out=first)
        u[order, c] = first / n
    a, b = u[:, 0], u[:, 1:].max(axis=1)
    # 2-D non-dominated set of (a, b): by a, then b; keep rows whose b beats every earlier one
    order = np.lexsort((b, a))
    best_b = np.minimum.accumulate(b[order])
    front = order[np.r_[True, best_b[1:] < best_b[:-1]]]
    scores = np.maximum(alphas[:, None] * a[front], (1 - alphas[:, None]) / 6 * b[front])
    picks: np.ndarray = front[np.argmin(scores, axis=1)]
    return picks


def main() -> None:
    rng = np.random.default_rng(0)
    y = rng.random((1_000_000, 7))
    alphas = np.linspace(0, 1, 1000)

    def big() -> None:
        copa.sweep(copa.rank_cdf(y), [0], alphas, math.inf)

    big_s = median_seconds(big, 3)
    phi = copa.rank_cdf(y)
    w = copa.alpha_weights(7, [0], alphas[:20])
    literal20 = median_seconds(lambda: [copa.select(phi, row, math.inf) for row in w], 1)

    cols = ["CO₂ cost (kg):min"] + [
        f"{c}:max" for c in ("IFEval", "BBH", "MATH Lvl 5", "GPQA", "MUSR", "MMLU-PRO")
    ]
    pool = load_pool(
        LLM,
        [Objective.parse(c) for c in cols],
        name_column="eval_name",
        where="`Available on the hub` == True and `Submission Date` <= '2025-01-09'",
    )
    ymin = pool.minimisation()
    llm_s = median_seconds(lambda: copa.sweep(copa.rank_cdf(ymin), [0], alphas, math.inf), 21)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pool.parquet"
        frame = pd.DataFrame(y, columns=[f"o{i}" for i in range(7)])
        frame.insert(0, "model", [f"m{i}" for i in range(len(frame))])
        frame.to_parquet(path)
        argv = [
            sys.executable,
            "-m",
            "tradeoff",
            "rank",
            str(path),
            "--json",
            "--sweep",
            "1000",
            "--alpha-objective",
            "o0",
        ] + [a for i in range(7) for a in ("--objective", f"o{i}:min")]
        walls, bare = [], []
        for _ in range(5):  # alternated, so both see the same machine
            start = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True)
            walls.append(time.perf_counter() - start)
            start = time.perf_counter()
            bare_numpy(path, alphas)
            bare.append(time.perf_counter() - start)
        cli_s, bare_s = float(np.median(walls)), float(np.median(bare))
        command = " ".join(["tradeoff", *argv[3:4], "POOL.parquet", *argv[5:]])

    rows = [
        ("10⁶ × 7 arrays, 1000 α, p = ∞ (rank + prefilter + sweep)", f"{big_s:.3f}", "≤ 2"),
        ("2119-model leaderboard, 1000 α (rank + sweep)", f"{llm_s * 1000:.1f} ms", "≤ 20 ms"),
        ("`tradeoff rank` 10⁶-row Parquet, --sweep 1000 (wall, process start included)",
         f"{cli_s:.2f}", "≤ 3.0"),
        ("bare numpy, same steps in-process (read, û, 1000-α sweep)", f"{bare_s:.2f}", "—"),
        ("ratio command / bare numpy", f"{cli_s / bare_s:.2f}", "—"),
        ("literal formula, 1000 α on 10⁶ × 7 (20 timed, ×50)", f"{literal20 * 50:.1f}", "—"),
    ]
    body = markdown(("task", "median seconds", "target"), rows)
    body += (
        f"\nThe command (5 runs, alternated with the bare numpy reference): `{command}`."
        "\nReproduce: `.venv/bin/python -m benchmarks.copa`.\n"
    )
    write("copa", "COPA sweep speed", body)


if __name__ == "__main__":
    main()
