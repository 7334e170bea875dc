"""Simulated people per second against where they run: one process, local worker processes
(joblib), and a two-worker Dask ``LocalCluster`` (dask.distributed).

Run: ``.venv/bin/python -m benchmarks.simulate_scale [--people 40] [--scenario
breast-cancer-triage] [--noise flip:0.1]`` (writes benchmarks/results/simulate_scale.md).
Every backend simulates the same people (the same seeds) through
:func:`~tradeoff.simulation.simulate.simulate`, as ``tradeoff simulate --workers N`` and
``--dask-scheduler ADDRESS`` do, aimed at the scenario's pool; the table says whether each
summary is the same as one process's (it must be). Times are wall seconds from the call to
the summary, the cluster's start measured apart; each is also given in units of the numpy
reference (``benchmarks._table.reference_unit``) measured in the same run, so figures
compare across CPUs. BLAS is held to one thread a process.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import time
from pathlib import Path

from benchmarks._table import cpu_name, markdown, reference_unit, write

ROOT = Path(__file__).resolve().parents[1]


def main(people: int, scenario_name: str, noise_name: str, seed: int) -> None:
    from distributed import LocalCluster

    from tradeoff.ask.population import scenario_population
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.simulation.oracles import Noise
    from tradeoff.simulation.parallel import Backend
    from tradeoff.simulation.simulate import simulate

    path = ROOT / "scenarios" / f"{scenario_name}.toml"
    scenario = load_scenario(path).scenario
    pool = None if scenario.pool is None else scenario_pool(scenario, path.parent)
    population = scenario_population(scenario)
    noise = Noise.parse(noise_name) if noise_name != "exact" else None
    unit = reference_unit()

    def run(backend: Backend) -> tuple[float, str]:
        start = time.perf_counter()
        summary = simulate(
            scenario,
            runs=people,
            seed=seed,
            noise=noise,
            pool=pool,
            population=population,
            backend=backend,
        )
        return time.perf_counter() - start, json.dumps(summary.to_dict())

    rows: list[list[object]] = []
    one_s, one = run(Backend())
    results = [("1 process", one_s, one, None)]
    for workers in (2,):
        took, out = run(Backend(workers=workers))
        results.append((f"{workers} local workers (joblib, loky)", took, out, None))
    start = time.perf_counter()
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        started = time.perf_counter() - start
        took, out = run(Backend(scheduler=cluster.scheduler_address))
    results.append(("Dask LocalCluster, 2 workers", took, out, started))
    for name, took, out, started in results:
        rows.append(
            [
                name,
                f"{took:.1f}",
                f"{took / unit:,.0f}",
                f"{people / took:.2f}",
                f"{one_s / took:.2f}",
                "yes" if out == one else "NO",
                "" if started is None else f"{started:.1f}",
            ]
        )
    body = (
        f"{people} simulated people (seed {seed}, {noise_name} answers) on {scenario_name} "
        f"with its pool, its default strategy and stop. CPU: {cpu_name()}; numpy reference "
        f"unit {unit * 1e3:.2f} ms (one 150×2000 @ 2000×34 product plus an exp over "
        "2000×150).\n\n"
        + markdown(
            [
                "where",
                "seconds",
                "units",
                "people / s",
                "speed-up",
                "same summary as 1 process",
                "cluster start (s)",
            ],
            rows,
        )
        + "\n\nA study of N people on W workers takes about N / (people per second); on a "
        "cluster of M machines with W cores each, `tradeoff simulate --dask-scheduler` "
        "scales with the workers until the scheduler's per-chunk overhead (chunks of at most "
        "50 people) dominates."
    )
    write("simulate_scale", "Simulated people per second against workers", body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--people", type=int, default=40)
    parser.add_argument("--scenario", default="breast-cancer-triage")
    parser.add_argument("--noise", default="flip:0.1")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    main(args.people, args.scenario, args.noise, args.seed)
