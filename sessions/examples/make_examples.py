"""Write the example sessions in this folder: two simulated stakeholders on the default scenario.

Run from the repository root: ``python sessions/examples/make_examples.py``. Each stakeholder
answers 30 questions of ``scenarios/breast-cancer-triage.toml`` through the same engine and
recorder the app uses, with true swing weights (malignant, benign, latency, memory) below and
one answer in twenty reversed at random. The headers name the scenario file relative to the
repository root (``scenarios/breast-cancer-triage.toml``), not by this machine's folders.
"""

from __future__ import annotations

from pathlib import Path

from tradeoff.ask.population import build_population
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.candidates import scenario_pool
from tradeoff.choose.pool_metric import omega_to_weights
from tradeoff.simulation.oracles import Noise, SimulatedOracle
from tradeoff.study.opening import start_session

HERE = Path("sessions/examples")
SCENARIOS = Path("scenarios")
SCENARIO = SCENARIOS / "breast-cancer-triage.toml"
STAKEHOLDERS = {
    "example-oncologist": (0.6, 0.2, 0.1, 0.1),
    "example-lab-manager": (0.25, 0.25, 0.3, 0.2),
}

#: The engine's and the slips' seed per stakeholder (seeds whose one-in-twenty slips leave the
#: repeat check passing, so the examples show a consensus with nobody left out).
SEEDS = {"example-oncologist": 2, "example-lab-manager": 3}


def natural_weights(swing: tuple[float, ...]) -> tuple[float, ...]:
    """Weights per unit whose swing over the scenario's pool is ``swing``."""
    sc = load_scenario(SCENARIO).scenario
    priors = build_population(sc.population, tuple(c.name for c in sc.classes)).priors
    return omega_to_weights(sc, swing, priors.tolist(), scenario_pool(sc, SCENARIOS).values)


def main() -> int:
    existing = sorted(HERE.glob("*/*.jsonl"))
    if existing:
        print(
            f"{HERE} already holds {len(existing)} example sessions; "
            "delete them first to write new ones."
        )
        return 1
    loaded = load_scenario(SCENARIO)
    for who, swing in STAKEHOLDERS.items():
        seed = SEEDS[who]
        spec = loaded.scenario.elicitation.override(budget=30, stop="weights")
        rec = start_session(
            loaded, who, HERE, spec=spec, seed=seed, scenario_path=SCENARIO.as_posix()
        )
        oracle = SimulatedOracle.for_scenario(
            loaded.scenario, natural_weights(swing), noise=Noise("flip", 0.05), seed=seed
        )
        while (q := rec.engine.next_query()) is not None:
            rec.answer(oracle.choose(q))
        result = rec.finish()
        rec.close()
        print(rec.path, [round(w, 3) for w in result.weights])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
