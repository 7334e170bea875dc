"""Evaluation speed and the permutation test's power (papers 002 and 003).

Run: ``.venv/bin/python -m benchmarks.evaluation`` (writes benchmarks/results/evaluation.md).

* Hypervolume: moocore against WFG (hvwfg) per number of objectives, on fronts of n points
  on the unit sphere's positive orthant; median of 5 runs each. Sets WFG_MIN_POINTS_6D.
* Permutation test: B = 5000, 2 systems × 10 seeds × 3 objectives (one point per seed run).
* Power at α = 0.05 with a true 5% HV gap (seed noise: per-seed HV s.d. ≈ 2.1%, the median
  paper 002 reports), 5 and 10 seeds; and the rejection rate under H₀.
"""

from __future__ import annotations

import sys

import moocore
import numpy as np

from benchmarks._table import markdown, median_seconds, write
from tradeoff import judge as ev
from tradeoff.simulation.bench import null_p_values, permutation_power, seed_hv_sd


def main(reps: int = 500) -> None:
    rng = np.random.default_rng(0)
    hv_rows = []
    for d in (3, 4, 5, 6, 7):
        for n in (50, 100, 200):
            x = np.abs(rng.standard_normal((n, d)))
            x /= np.linalg.norm(x, axis=1, keepdims=True)
            ref = np.full(d, 1.1)
            t_moo = median_seconds(lambda x=x, ref=ref: moocore.hypervolume(x, ref=ref), 5)

            def wfg(x: np.ndarray = x, ref: np.ndarray = ref) -> float:
                import hvwfg

                return float(hvwfg.wfg(np.ascontiguousarray(x), np.ascontiguousarray(ref)))

            t_wfg = median_seconds(wfg, 5)
            used = "WFG" if ev.use_wfg(n, d) else "moocore"
            hv_rows.append(
                (d, n, f"{t_moo * 1e3:.2f}", f"{t_wfg * 1e3:.2f}", f"{t_moo / t_wfg:.1f}", used)
            )
    base = [rng.random((1, 3)) for _ in range(10)]
    new = [rng.random((1, 3)) * 0.95 for _ in range(10)]
    perm = median_seconds(lambda: ev.permutation_test(base, new, permutations=5000), 7)
    p5 = permutation_power(5, reps=reps, permutations=1000, seed=11)
    p10 = permutation_power(10, reps=reps, permutations=1000, seed=12)
    p5b = permutation_power(5, reps=reps, permutations=1000, seed=11, sigma=0.006)
    p10b = permutation_power(10, reps=reps, permutations=1000, seed=12, sigma=0.006)
    null = null_p_values(5, reps=reps, permutations=1000, seed=13)
    body = (
        "## Hypervolume: moocore vs WFG (median ms of 5)\n\n"
        + markdown(("objectives", "points", "moocore ms", "WFG ms", "moocore/WFG", "used"), hv_rows)
        + "\n\n## Permutation test\n\n"
        + markdown(
            ("measure", "value", "paper 002"),
            [
                (
                    "B = 5000, 2 systems × 10 seeds × 3 objectives (median of 7)",
                    f"{perm:.3f} s",
                    "target ≤ 0.5 s",
                ),
                ("σ = 0.005: per-seed HV relative s.d.", f"{seed_hv_sd():.4f}", "—"),
                (f"σ = 0.005: power, true 5% HV gap, 5 seeds ({reps} reps)", f"{p5:.3f}", "0.81"),
                (f"σ = 0.005: power, 10 seeds ({reps} reps)", f"{p10:.3f}", "> 0.96"),
                ("σ = 0.006: per-seed HV relative s.d.", f"{seed_hv_sd(0.006):.4f}", "0.021"),
                (f"σ = 0.006: power, 5 seeds ({reps} reps)", f"{p5b:.3f}", "0.81"),
                (f"σ = 0.006: power, 10 seeds ({reps} reps)", f"{p10b:.3f}", "> 0.96"),
                (
                    f"rejection rate under H₀ at 0.05 ({reps} repetitions)",
                    f"{float(np.mean(null < 0.05)):.3f}",
                    "0.05",
                ),
            ],
        )
    )
    write("evaluation", "Evaluation: hypervolume backends and the permutation test", body)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
