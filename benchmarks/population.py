"""Population size n against build time and Table 1 reproduction (paper 004).

Run: ``.venv/bin/python -m benchmarks.population`` (writes benchmarks/results/population.md).
For each n it builds the paper-k3-two-costs-reward population (seed from the scenario),
runs the `paper` strategy on the Table 1 truth, and reports the build time (median of 3),
the largest weight error, and whether the weights equal the truth at two decimals.
"""

from __future__ import annotations

import numpy as np

from benchmarks._table import markdown, median_seconds, write
from tradeoff.ask.population import softmax_linear
from tradeoff.ask.scenario import load_scenario
from tradeoff.simulation.simulate import run_once

TRUTH = (0.12, 0.08, 0.07, 0.32, 0.19, 0.22)
SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)


def main() -> None:
    sc = load_scenario("scenarios/paper-k3-two-costs-reward.toml").scenario
    rows = []
    seed = sc.population.seed
    for n in SIZES:
        build = median_seconds(lambda n=n: softmax_linear(k=3, samples=n, seed=seed), 3)
        pop = softmax_linear(k=3, samples=n, seed=seed)
        out = run_once(sc, TRUTH, spec=sc.elicitation.override(strategy="paper"), population=pop)
        err = float(np.max(np.abs(np.array(out.result.weights) - TRUTH)))
        same = [round(w, 2) for w in out.result.weights] == list(TRUTH)
        rows.append((f"{n:,}", f"{build:.3f}", f"{err:.5f}", "yes" if same else "no"))
    body = markdown(("n", "build s (median of 3)", "max |â − a*|", "Table 1 at 2 dp"), rows)
    write("population", "Population size against Table 1 reproduction", body)


if __name__ == "__main__":
    main()
