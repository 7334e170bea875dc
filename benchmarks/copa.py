"""COPA speed: α sweeps on large pools (issue: ranking a real candidate pool).

Run: ``.venv/bin/python -m benchmarks.copa`` (writes benchmarks/results/copa.md).

* A 10⁶ × 7 Parquet pool (random values, all minimised), 1000 α values on objective o0,
  p = ∞, in one run and alternated (so both see the same machine):

  - the project's rank path in-process, the calls ``tradeoff rank`` makes from the file to
    the sweep's picks: :func:`tradeoff.pool.load_pool` (read and validate),
    ``pool.ranks`` (each column sorted once) and :func:`tradeoff.choose.copa.sweep_ranks`
    (prefilter on raw values, û of the survivors, candidates, picks), then the names;
  - the plain numpy reference of the same steps, :mod:`benchmarks.copa_reference` (read
    with pandas, û by one argsort per column, 2-D prefilter, picks), which must pick the
    same models;
  - everything else the command computes in-process as well (``rank_pool``: the head of
    the ranking, the Pareto flags on a second thread, the sweep's Table 2);
  - ``tradeoff rank`` as a command, wall time with process start.
* 10⁶ random models × 7 objectives from arrays in memory: û, prefilter, sweep.
* The 2119-model Open LLM Leaderboard population: û + 1000-α sweep.
* For scale: the literal formula, one pass over the 10⁶ × 7 rank matrix per weight vector
  (timed on 20 vectors, extrapolated to 1000).
"""

from __future__ import annotations

import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from benchmarks import copa_reference
from benchmarks._table import markdown, median_seconds, write
from tradeoff.choose import copa
from tradeoff.choose.rank import rank_pool, weights_from_options
from tradeoff.pool import Objective, load_pool

ROOT = Path(__file__).resolve().parents[1]
LLM = ROOT / "data" / "open-llm-leaderboard" / "open_llm_leaderboard.csv"
COLUMNS = [f"o{i}" for i in range(7)]
OBJECTIVES = [Objective(c, "min") for c in COLUMNS]
ROUNDS = 5
T = TypeVar("T")


def project_rank(path: Path, alphas: list[float]) -> list[str]:
    """The project's path from the file to the sweep's picks, as ``tradeoff rank`` takes it."""
    pool = load_pool(path, OBJECTIVES)
    picks = copa.sweep_ranks(pool.ranks, [0], alphas, math.inf)
    return [pool.names[i] for i in picks]


def project_everything(path: Path, alphas: list[float]) -> None:
    """Everything ``tradeoff rank`` computes in-process (all but process start and JSON)."""
    pool = load_pool(path, OBJECTIVES)
    weights = weights_from_options(pool, {}, ["o0"], None)
    rank_pool(pool, weights=weights, p=math.inf, sweep_group=["o0"], sweep_alphas=alphas)


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """Wall time of one call of ``fn``, and its result."""
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    load = os.getloadavg()[0]
    rng = np.random.default_rng(0)
    y = rng.random((1_000_000, 7))
    alphas = np.linspace(0, 1, 1000)
    alpha_list = alphas.tolist()  # as the command builds them

    big_s = median_seconds(lambda: copa.sweep_ranks(copa.Ranks(y), [0], alphas, math.inf), ROUNDS)
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
    llm_s = median_seconds(lambda: copa.sweep_ranks(copa.Ranks(ymin), [0], alphas, math.inf), 21)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pool.parquet"
        frame = pd.DataFrame(y, columns=COLUMNS)
        frame.insert(0, "model", [f"m{i}" for i in range(len(frame))])
        frame.to_parquet(path)
        del frame
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
        ] + [a for c in COLUMNS for a in ("--objective", f"{c}:min")]
        times: dict[str, list[float]] = {"project": [], "reference": [], "all": [], "wall": []}
        same = True
        for _ in range(ROUNDS):  # alternated, so all see the same machine
            t, ours = timed(lambda: project_rank(path, alpha_list))
            times["project"].append(t)
            t, theirs = timed(
                lambda: copa_reference.rank_sweep(path, COLUMNS, [0], alphas).tolist()
            )
            times["reference"].append(t)
            same = same and ours == theirs
            times["all"].append(timed(lambda: project_everything(path, alpha_list))[0])
            start = time.perf_counter()
            subprocess.run(argv, check=True, capture_output=True)
            times["wall"].append(time.perf_counter() - start)
        med = {k: statistics.median(v) for k, v in times.items()}
        command = " ".join(["tradeoff", *argv[3:4], "POOL.parquet", *argv[5:]])

    task = "10⁶ × 7 Parquet, 1000 α, p = ∞"
    rows = [
        (
            f"{task}: the project's rank in-process (load_pool, pool.ranks, sweep_ranks)",
            f"{med['project']:.3f}",
            "—",
        ),
        (
            f"{task}: plain numpy reference (benchmarks/copa_reference.py)",
            f"{med['reference']:.3f}",
            "—",
        ),
        ("ratio project / reference", f"{med['project'] / med['reference']:.2f}", "≤ 0.9"),
        (
            f"{task}: all `tradeoff rank` computes, in-process (+ head, Pareto flags, Table 2)",
            f"{med['all']:.3f}",
            "—",
        ),
        (
            "`tradeoff rank` 10⁶-row Parquet, --sweep 1000 (wall, process start included)",
            f"{med['wall']:.2f}",
            "≤ 3.0",
        ),
        ("10⁶ × 7 arrays, 1000 α, p = ∞ (û + prefilter + sweep)", f"{big_s:.3f}", "≤ 2"),
        ("2119-model leaderboard, 1000 α (û + sweep)", f"{llm_s * 1000:.1f} ms", "≤ 20 ms"),
        ("literal formula, 1000 α on 10⁶ × 7 (20 timed, ×50)", f"{literal20 * 50:.1f}", "—"),
    ]
    body = markdown(("task", "median seconds", "target"), rows)
    body += (
        f"\n\nMedians of {ROUNDS} rounds; each round runs the project's path, the reference, "
        "the whole in-process ranking and the command one after the other. The project and "
        f"the reference picked the same models: {'yes' if same else 'NO'}."
        f"\nLoad average (1 min) before the run: {load:.2f}; compare figures of one run only."
        "\nThe command waits for the Pareto flags: moocore's 7-D non-dominance of 10⁶ models "
        "takes about 1.5 s of one core (alone), on a second thread beside the ranking."
        f"\nThe command: `{command}`."
        "\nReproduce: `.venv/bin/python -m benchmarks.copa`.\n"
    )
    write("copa", "COPA sweep speed", body)


if __name__ == "__main__":
    main()
