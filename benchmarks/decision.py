"""Questions that settle the choice: right-pick rate, regret and questions on the shipped pool.

Run: ``.venv/bin/python -m benchmarks.decision [--runs 1000]`` (writes
benchmarks/results/decision.md and decision.png). On ``breast-cancer-triage`` and its 34 real
models, ``--runs`` simulated stakeholders per cell (flat Dirichlet over swing weights) answer
the ``probabilistic`` strategy, budget 30 as a hard cap, with ``stop = "decision"`` (questions
chosen by expected regret of the pick, stop at P(best) ≥ 0.95) against ``stop = "weights"``
(questions chosen by the weights' expected error, all 30 asked). A run's pick is right when
the recommended model (the Bayes decision under the posterior) is the best model under the
true weights; regret is the true metric's loss of the pick relative to its spread over the
pool. One cell: ``tradeoff simulate scenarios/breast-cancer-triage.toml --runs R --noise N
--stop S --json`` (its ``decision`` block).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from benchmarks._table import RESULTS, markdown, write
from tradeoff.candidates import scenario_pool
from tradeoff.oracles import Noise
from tradeoff.scenario import load_scenario
from tradeoff.simulate import simulate

NOISES = ("exact", "flip:0.1", "logistic:0.01")
STOPS = ("decision", "weights")
BUDGET = 30
#: A pick this close to the best (relative to the metric's spread over the pool) is a near
#: tie: the wrong picks of exact answers are of this kind.
NEAR = 0.001


def _cell(args: tuple[str, str, int, int, int]) -> dict[str, Any]:
    noise, stop, runs, seed, chunk = args
    sc = load_scenario("scenarios/breast-cancer-triage.toml").scenario
    pool = scenario_pool(sc, "scenarios")
    spec = sc.elicitation.override(budget=BUDGET, stop=stop)
    summary = simulate(
        sc, runs=runs, spec=spec, pool=pool, noise=Noise.parse(noise), seed=seed * 1000 + chunk
    )
    return {
        "noise": noise,
        "stop": stop,
        "right": [o.decision.right for o in summary.outcomes if o.decision],
        "regret": [o.decision.regret for o in summary.outcomes if o.decision],
        "questions": [o.queries for o in summary.outcomes],
    }


def main(runs: int, seed: int = 0, workers: int = 2, chunks: int = 4) -> None:
    start = time.perf_counter()
    per = -(-runs // chunks)
    tasks = [(n, s, per, seed, c) for n in NOISES for s in STOPS for c in range(chunks)]
    with ProcessPoolExecutor(workers) as ex:
        parts = list(ex.map(_cell, tasks))
    cells: dict[tuple[str, str], dict[str, list[Any]]] = {}
    for part in parts:
        cell = cells.setdefault((part["noise"], part["stop"]), {"right": [], "regret": [], "q": []})
        cell["right"] += part["right"]
        cell["regret"] += part["regret"]
        cell["q"] += part["questions"]
    took = time.perf_counter() - start
    rows = []
    for (noise, stop), c in cells.items():
        regret, q = np.array(c["regret"]), np.array(c["q"])
        rows.append(
            [
                noise,
                stop,
                len(q),
                f"{np.mean(c['right']):.1%}",
                f"{np.mean(regret <= NEAR):.1%}",
                f"{np.median(regret):.4f}",
                f"{np.quantile(regret, 0.9):.4f}",
                f"{regret.max():.4f}",
                f"{np.median(q):g}",
                f"{np.quantile(q, 0.9):g}",
            ]
        )
    _figure(cells)
    body = (
        markdown(
            [
                "answers",
                "stop",
                "stakeholders",
                "right pick",
                f"regret ≤ {NEAR}",
                "regret median",
                "regret p90",
                "regret max",
                "questions median",
                "questions p90",
            ],
            rows,
        )
        + f"\n\nShipped pool (34 models), budget {BUDGET} as a hard cap, seed {seed}; "
        f"{took:.0f} s on {workers} processes; figure: decision.png.\n"
        "Goals: right pick ≥ 98% with a median ≤ 10 questions (exact answers), ≥ 95% with a "
        "median ≤ 20 questions (one answer in ten reversed).\n"
        f"Reproduce: `.venv/bin/python -m benchmarks.decision --runs {runs}`.\n"
    )
    write("decision", "Questions that settle the choice (stop = decision against weights)", body)


def _figure(cells: dict[tuple[str, str], dict[str, list[Any]]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_right, ax_q) = plt.subplots(1, 2, figsize=(10, 3.6))
    x = np.arange(len(NOISES))
    for k, stop in enumerate(STOPS):
        right = [100 * np.mean(cells[(n, stop)]["right"]) for n in NOISES]
        questions = [np.median(cells[(n, stop)]["q"]) for n in NOISES]
        ax_right.bar(x + 0.4 * k - 0.2, right, 0.4, label=f"stop = {stop}")
        ax_q.bar(x + 0.4 * k - 0.2, questions, 0.4, label=f"stop = {stop}")
    for ax, title in ((ax_right, "right pick (%)"), (ax_q, "questions (median)")):
        ax.set_xticks(x, NOISES)
        ax.set_title(title)
        ax.grid(alpha=0.3, axis="y")
    ax_right.set_ylim(50, 100)
    ax_right.legend(loc="lower left")
    fig.tight_layout()
    RESULTS.mkdir(exist_ok=True)
    fig.savefig(RESULTS / "decision.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    main(args.runs, args.seed)
