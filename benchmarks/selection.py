"""Pick-match study on the shipped pool: how often a stakeholder's pick from their elicited
weights equals the pick under their true weights.

Run: ``.venv/bin/python -m benchmarks.selection [--reps 50]`` (writes
benchmarks/results/selection.md). Three stakeholders with the true swing weights of
``tests/choose/test_selection.py`` answer 30 questions of the default scenario (the probabilistic
strategy, one answer in twenty flipped), ``--reps`` seeded times each; the engines are run in
memory (the test writes and replays session files for a tenth of the repetitions).
Reported: COPA's pick (p = ∞, ω from swing weights) against COPA's pick under the truth,
and the linear metric's pick against the truth's.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from tests.conftest import SCENARIOS
from tests.test_selection import SWINGS

from benchmarks._table import markdown, write
from tradeoff.ask.population import scenario_priors
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.decide import rank_for_session, stakeholder_of
from tradeoff.choose.pool_metric import metric_coefficients, metric_to_omega, omega_to_weights
from tradeoff.choose.selection import select_for_stakeholders
from tradeoff.learn import Engine
from tradeoff.record.records import Header
from tradeoff.simulation.oracles import Noise, SimulatedOracle


def main(reps: int) -> None:
    loaded = load_scenario(SCENARIOS / "breast-cancer-triage.toml")
    sc = loaded.scenario
    pool = scenario_pool(sc, SCENARIOS)
    priors = scenario_priors(sc)
    truths = [list(omega_to_weights(sc, s, priors, pool.values)) for s in SWINGS]
    for t, s in zip(truths, SWINGS, strict=True):
        omega = metric_to_omega(metric_coefficients(sc, t, priors), pool.values)
        assert np.allclose(omega, s)
    true_copa = [rank_for_session(sc, t, pool=pool).selected.name for t in truths]
    coef = [np.array(metric_coefficients(sc, t, priors)) for t in truths]
    true_linear = [pool.names[int(np.argmax(pool.values @ c))] for c in coef]

    hits, linear_hits = np.zeros(3), np.zeros(3)
    start = time.perf_counter()
    for rep in range(reps):
        people = []
        for i, t in enumerate(truths):
            seed = 1000 * rep + i
            engine = Engine(sc, sc.elicitation.override(budget=30), seed=seed)
            oracle = SimulatedOracle.for_scenario(sc, t, noise=Noise("flip", 0.05), seed=seed)
            while (q := engine.next_query()) is not None:
                engine.answer(oracle.choose(q))
            header = Header(f"s{i}", sc, loaded.text, loaded.sha256, loaded.path, "", seed, 30, "")
            people.append(stakeholder_of(header, engine, f"s{i}"))
        sel = select_for_stakeholders(sc, people, pool)
        for i in range(3):
            hits[i] += sel.picks[i].selected.name == true_copa[i]
            linear_hits[i] += sel.linear_picks[i] == true_linear[i]
    took = time.perf_counter() - start
    rows = [
        [f"s{i} (swing {SWINGS[i]})", f"{hits[i] / reps:.2f}", f"{linear_hits[i] / reps:.2f}"]
        for i in range(3)
    ]
    body = (
        markdown(["stakeholder", "COPA pick = truth's COPA pick", "linear pick = truth's"], rows)
        + f"\n\n{reps} repetitions, 30 questions each, flip noise 0.05; {took:.0f} s.\n"
        + f"Reproduce: `.venv/bin/python -m benchmarks.selection --reps {reps}`.\n"
    )
    write("selection", "Pick-match study on the shipped pool", body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=50)
    main(parser.parse_args().reps)
