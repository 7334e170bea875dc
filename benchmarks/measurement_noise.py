"""Is P(best) honest when the pool's recalls were measured on finite test sets?

Run: ``.venv/bin/python -m benchmarks.measurement_noise [--pools 30] [--people 10]
[--cases 100 300 1000 0] [--draws 500] [--spread 60] [--seed 0] [--pull 0.003]
[--engine 0] [--leave-out 0] [--reach R] [--scatter drawn|spike|none] [--no-write]`` (writes
benchmarks/results/measurement-noise.md unless ``--no-write``).

For each test-set size n (cases per class) the benchmark makes ``--pools`` simulated pools
on the shipped breast-cancer scenario: 10–30 models whose *true* recalls of the two
classes lie near a concave front (r = 0.70 + 0.28·(sin θ, cos θ), θ uniform, each pulled
inwards by |N(0, ``pull``)|), with the same latency and size (the choice hangs on the
recalls). Each model's recalls are *measured* as binomial draws on n cases per class
(n = 0: the true recalls themselves, exactly known: the control, where the weight
posterior alone decides and P(best) should be calibrated).

People: for each, a posterior mean m ~ Dirichlet(1, 1, 1, 1) of the metric weights, a
posterior Dirichlet(``spread``·m) of which ``--draws`` draws stand for the engine's
posterior draws, and the true weights are one more draw from it (so the weight posterior
is calibrated by construction and any miscalibration comes from the measurements). The
truth's best model is the argmax of ψ under the true recalls and the true weights.

Each person is recommended a model (:func:`tradeoff.choose.recommend.recommend`) on the
measured pool twice: as today, the measured recalls taken as exact, and with the pool's
case counts (``recall_<class>_cases``), P(best) integrated over the measurement noise
(SMAA over plausible recalls from an empirical-Bayes posterior that borrows strength
across the pool's models: a trade-off curve with a scatter about it fitted to the pool by
marginal likelihood, :mod:`tradeoff.pool.front`). With ``--engine N``, N people per size
also answer the ``joint`` engine on a pool of their own, and the P(best) its stop states
is compared with ``simulate``'s and ``select``'s for the same person. For both ways: among the picks
stated with P(best) ≥ 0.95, the share that are not the truth's best (goal with the
noise: ≤ 5%), and a reliability table by P(best) bins: people, mean P(best), share right;
and, with the noise, the same for the pick (the model of highest noise-aware P(best))
beside the model of highest expected ψ at the measured numbers (the pick before).
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from benchmarks._table import markdown, write
from benchmarks.bands import TOLERANCE, pool_bootstrap, verdict, wilson
from tradeoff.ask.scenario import load_scenario
from tradeoff.choose.pool_metric import metric_objectives, metric_vectors
from tradeoff.choose.recommend import measured_vectors, recommend
from tradeoff.data import resolve_scenario
from tradeoff.pool import Pool, front, load_pool
from tradeoff.stable import stable_argmax

SCENARIO = load_scenario(resolve_scenario("breast-cancer-triage")).scenario
OBJECTIVES = metric_objectives(SCENARIO)
COLUMNS = [o.column for o in OBJECTIVES]
PRIORS = (0.37, 0.63)
BINS = (0.0, 0.5, 0.8, 0.95, 1.0 + 1e-9)
SURE = 0.95


def true_pool(rng: np.random.Generator, pull: float = 0.003) -> np.ndarray:
    """True recalls of 10–30 models near a concave front (models × 2), each pulled inwards
    by |N(0, ``pull``)|."""
    m = int(rng.integers(10, 31))
    theta = np.sort(rng.uniform(0.15, 1.42, m))
    front = 0.70 + 0.28 * np.column_stack((np.sin(theta), np.cos(theta)))
    out: np.ndarray = front - np.abs(rng.normal(0.0, pull, front.shape))
    return out


def measured_pool(truth: np.ndarray, cases: int, rng: np.random.Generator) -> Pool:
    """The pool as measured on ``cases`` cases per class, with its case counts (``cases``
    0: the true recalls, exact: the control)."""
    measured = truth if cases == 0 else rng.binomial(cases, truth) / cases
    frame = pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(len(truth))],
            COLUMNS[0]: measured[:, 0],
            COLUMNS[1]: measured[:, 1],
            COLUMNS[2]: 1.0,
            COLUMNS[3]: 50.0,
        }
    )
    if cases:
        frame[f"{COLUMNS[0]}_cases"] = cases
        frame[f"{COLUMNS[1]}_cases"] = cases
    return load_pool("simulated.csv", OBJECTIVES, frame=frame, name_column="model")


def run(
    pools: int,
    people: int,
    sizes: Sequence[int],
    draws: int,
    spread: float,
    seed: int,
    pull: float = 0.003,
    leave_out: int = 0,
) -> dict[int, dict[str, list[tuple[float, bool, int]]]]:
    """Per test-set size, per way ("exact", "noise"): (P(best) of the pick, right, the
    pool's number) per person."""
    out: dict[int, dict[str, list[tuple[float, bool, int]]]] = {}
    for size in sizes:
        rng = np.random.default_rng([seed, size])
        found: dict[str, list[tuple[float, bool, int]]] = {"exact": [], "noise": []}
        for number in range(pools):
            truth = true_pool(rng, pull)
            pool = measured_pool(truth, size, rng)
            exact_pool = Pool(
                pool.source, pool.names, pool.objectives, pool.values, pool.frame, pool.rows
            )
            true_vectors = metric_vectors(
                SCENARIO, np.column_stack((truth, pool.values[:, 2:])), PRIORS
            )
            measured = (
                left_out_vectors(pool, draws, leave_out)
                if leave_out
                else measured_vectors(SCENARIO, pool, PRIORS, draws)
            )
            vectors = metric_vectors(SCENARIO, pool, PRIORS)
            for _ in range(people):
                mean = rng.dirichlet(np.ones(4))
                posterior = rng.dirichlet(spread * mean, size=draws + 1)
                true_w, sample = posterior[0], posterior[1:]
                best = int(np.argmax(true_vectors @ true_w))
                for way, on, noisy in (("exact", exact_pool, None), ("noise", pool, measured)):
                    rec = recommend(
                        SCENARIO,
                        on,
                        sample.mean(axis=0),
                        PRIORS,
                        draws=sample,
                        vectors=vectors,
                        measured=noisy,
                    )
                    assert rec.probability is not None
                    found[way].append((rec.probability, rec.index == best, number))
                    if way == "noise":
                        assert rec.p_best is not None
                        # the likeliest best, with a noise (else as before)
                        assert noisy is None or rec.index == stable_argmax(rec.p_best)
                        before = (
                            rec.index
                            if rec.measured_best is None
                            else pool.names.index(rec.measured_best)
                        )
                        EXPECTED.setdefault(size, []).append(
                            (rec.p_best[before], before == best, number)
                        )
                    if way == "noise" and rec.index != best:
                        named = [t.name for t in rec.noise_tied]
                        NAMED.setdefault(size, []).append(
                            (pool.names[best] in named, pool.names[best] in named[:3])
                        )
        out[size] = found
    return out


def left_out_vectors(pool: Pool, draws: int, steps: int) -> np.ndarray | None:
    """The experiment of ``benchmarks/front_calibration.py --leave-out``: each model's
    plausible recalls from the curve fitted to the other models alone (``steps`` EM steps),
    as metric rows, as many tables as :func:`measured_vectors` draws."""
    from benchmarks.front_calibration import left_out_sample
    from tradeoff.choose.recommend import NOISE_SEED, noise_draws

    u = pool.uncertainty
    if u is None or not u.any:
        return None
    values = pool.values
    sd = u.spread(values)[:, :2]
    cases = u.cases[:, :2]
    centre = (np.clip(values[:, :2], 0.0, 1.0) * cases + 0.5) / (cases + 1.0)
    drawn = left_out_sample(centre, sd, noise_draws(draws), NOISE_SEED, steps)
    tables = np.broadcast_to(values, (len(drawn), *values.shape)).copy()
    tables[:, :, :2] = np.clip(drawn, 0.0, 1.0)
    out: np.ndarray = metric_vectors(SCENARIO, tables, PRIORS)
    return out


#: Per test-set size, the model of highest expected ψ at the measured numbers per person
#: (the pick before): (its noise-aware P(best), it is the truth's best).
EXPECTED: dict[int, list[tuple[float, bool, int]]] = {}

#: Per test-set size, for each wrong pick with the noise: (the noise sentence names the
#: truth's best, among the first three it names).
NAMED: dict[int, list[tuple[bool, bool]]] = {}


def engine_agreement(
    sizes: Sequence[int], people: int, seed: int
) -> dict[int, list[tuple[float, float, float, bool, bool]]]:
    """Per test-set size, ``people`` simulated people answering the ``joint`` engine
    exactly on a measured pool (one pool per person): (the P(best) the stop states, the one
    ``simulate`` states, the one ``select`` states, the pick is the truth's best, the three
    name the same pick)."""
    from tradeoff.ask.population import scenario_population
    from tradeoff.choose.selection import recommend_each
    from tradeoff.choose.stakeholder import Stakeholder
    from tradeoff.learn import Engine
    from tradeoff.learn.particles import PARTICLES, perceivable_margin
    from tradeoff.simulation.oracles import SimulatedOracle

    population = scenario_population(SCENARIO)
    priors = population.priors.tolist()
    spec = SCENARIO.elicitation.override(strategy="joint")
    spans = (*priors, *(a.range[1] - a.range[0] for a in SCENARIO.attributes))
    out: dict[int, list[tuple[float, float, float, bool, bool]]] = {}
    for size in sizes:
        rng = np.random.default_rng([seed, size, 1])
        rows = []
        for person in range(people):
            truth = true_pool(rng)
            pool = measured_pool(truth, size, rng)
            w = rng.dirichlet(np.ones(4))
            vectors = metric_vectors(SCENARIO, pool, priors)
            noisy = measured_vectors(SCENARIO, pool, priors, PARTICLES)
            engine = Engine(
                SCENARIO,
                spec,
                seed=person,
                population=population,
                candidates=vectors,
                measured=noisy,
            )
            oracle = SimulatedOracle.for_scenario(SCENARIO, w, seed=person)
            while (query := engine.next_query()) is not None:
                engine.answer(oracle.choose(query))
            verdict = engine.verdict()
            posterior = engine.weighted_draws()
            assert verdict is not None and posterior is not None
            result = engine.result()
            simulated = recommend(
                SCENARIO,
                pool,
                result.weights,
                priors,
                draws=posterior[0],
                draw_weights=posterior[1],
                vectors=vectors,
                measured=engine.measured,
            )
            person_row = Stakeholder(
                f"p{person}",
                "",
                SCENARIO.id,
                "",
                result.names,
                result.weights,
                None,
                result.answers,
                tuple(priors),
                posterior=posterior,
            )
            selected = recommend_each(SCENARIO, [person_row], pool).recommendations[0]
            true_vectors = metric_vectors(
                SCENARIO, np.column_stack((truth, pool.values[:, 2:])), priors
            )
            true_psi = true_vectors @ w
            best = int(np.argmax(true_psi))
            margin = float(perceivable_margin(w[None, :], spans)[0])
            right = verdict.pick == best or (
                verdict.practically_tied and true_psi[best] - true_psi[verdict.pick] <= margin
            )
            assert simulated.stated is not None and selected.stated is not None
            same = verdict.pick == simulated.index == selected.index
            rows.append((verdict.stated, simulated.stated, selected.stated, bool(right), same))
        out[size] = rows
    return out


def _label(size: int) -> str:
    return "none (true recalls)" if size == 0 else f"{size:,}"


def _named(size: int) -> str:
    rows = NAMED.get(size, [])
    if not rows:
        return "–"
    return (
        f"{sum(a for a, _ in rows)} of {len(rows)} ({sum(b for _, b in rows)} among the first "
        "three named)"
    )


def _sure(rows: list[tuple[float, bool, int]]) -> tuple[int, str]:
    sure = [right for p, right, _ in rows if p >= SURE]
    if not sure:
        return 0, "–"
    return len(sure), f"{1 - np.mean(sure):.1%}"


def report(
    results: dict[int, dict[str, list[tuple[float, bool, int]]]],
    seconds: float,
    args: argparse.Namespace,
) -> str:
    head = [
        "cases per class",
        "people",
        "P(best) ≥ 0.95, exact: people",
        "wrong",
        "with noise: people",
        "wrong",
        "right picks",
        "wrong picks whose noise sentence names the best (first three)",
    ]
    summary = []
    for size, found in results.items():
        n_exact, wrong_exact = _sure(found["exact"])
        n_noise, wrong_noise = _sure(found["noise"])
        right = np.mean([r for _, r, _ in found["noise"]])
        summary.append(
            [
                _label(size),
                len(found["noise"]),
                n_exact,
                wrong_exact,
                n_noise,
                wrong_noise,
                f"{right:.1%}",
                _named(size),
            ]
        )
    bins_head = [
        "cases per class",
        "P(best) bin",
        "exact: people",
        "mean P(best)",
        "right",
        "noise: people",
        "mean P(best)",
        "right",
    ]
    table = []
    for size, found in results.items():
        for low, high in itertools.pairwise(BINS):
            cells: list[object] = [
                _label(size),
                f"[{low:.2f}, {min(high, 1.0):.2f}{']' if high > 1 else ')'}",
            ]
            for way in ("exact", "noise"):
                cells += _bin_cells(found[way], low, high)
            table.append(cells)
    command = (
        f".venv/bin/python -m benchmarks.measurement_noise --pools {args.pools} --people "
        f"{args.people} --cases {' '.join(map(str, args.cases))} --draws {args.draws} "
        f"--spread {args.spread:g} --seed {args.seed} --pull {args.pull:g}"
    )
    if args.engine:
        command += f" --engine {args.engine}"
    if args.leave_out:
        command += f" --leave-out {args.leave_out}"
    if args.reach is not None:
        command += f" --reach {args.reach:g}"
    if args.scatter != "drawn":
        command += f" --scatter {args.scatter}"
    return (
        f"`{command}` ({seconds:.0f} s, one process). Simulated pools of 10–30 models near a "
        "front of true recalls, measured on n cases per class (binomial); people whose "
        f"weight posterior (Dirichlet, concentration {args.spread:g}, {args.draws} draws) holds "
        "their true weights as one more draw. A pick is right when it is the best model under "
        "the true recalls and the true weights. *exact*: the measured recalls taken as exact "
        "(as before); *noise*: the pool's case counts read and P(best) integrated over the "
        "measurement noise (SMAA over plausible recalls from an empirical-Bayes posterior: "
        "a trade-off curve with a scatter about it fitted to the pool by marginal "
        "likelihood, its bend drawn from its posterior, tradeoff.pool.front).\n\n"
        "## Picks stated with P(best) ≥ 0.95 that are wrong (goal with the noise: ≤ 5%)\n\n"
        + markdown(head, summary)
        + "\n\n## Reliability by P(best) bin\n\n"
        + markdown(bins_head, table)
        + _interval_section(results)
        + _likeliest_section(results)
        + _engine_section(args)
    )


def _bin_cells(rows: list[tuple[float, bool, int]], low: float, high: float) -> list[object]:
    """People whose stated P(best) lies in [low, high), its mean and the share right."""
    inside = [(p, r) for p, r, _ in rows if low <= p < high]
    if not inside:
        return [0, "–", "–"]
    return [
        len(inside),
        f"{np.mean([p for p, _ in inside]):.3f}",
        f"{np.mean([r for _, r in inside]):.1%}",
    ]


def _interval_section(results: dict[int, dict[str, list[tuple[float, bool, int]]]]) -> str:
    """The noise-aware pick's bands with 90 % intervals and a verdict on "within 5 points"
    (:mod:`benchmarks.bands`)."""
    head = [
        "cases per class",
        "P(best) bin",
        "people",
        "pools",
        "mean P(best)",
        "right",
        "Wilson 90 %",
        "right − stated, 90 % (pools resampled)",
        f"within {TOLERANCE * 100:.0f} points?",
    ]
    body = []
    for size, found in results.items():
        if not size:
            continue
        stated = [p for p, _, _ in found["noise"]]
        right = [r for _, r, _ in found["noise"]]
        pools = [k for _, _, k in found["noise"]]
        for low, high in itertools.pairwise(BINS):
            inside = [low <= p < high for p in stated]
            n = sum(inside)
            if not n:
                continue
            hits = sum(r for r, i in zip(right, inside, strict=True) if i)
            lo, hi = wilson(hits, n)
            boot = pool_bootstrap(stated, right, pools, inside, seed=size)
            assert boot is not None
            mean = float(np.mean([p for p, i in zip(stated, inside, strict=True) if i]))
            # the wider of the two (a bootstrap over one or two pools is too narrow)
            gap = (min(boot[0], lo - mean), max(boot[1], hi - mean))
            body.append(
                [
                    _label(size),
                    f"[{low:.2f}, {min(high, 1.0):.2f}{']' if high > 1 else ')'}",
                    n,
                    len({k for k, i in zip(pools, inside, strict=True) if i}),
                    f"{mean:.3f}",
                    f"{hits / n:.1%}",
                    f"{lo:.1%}–{hi:.1%}",
                    f"{boot[0] * 100:+.1f} to {boot[1] * 100:+.1f} points",
                    verdict(gap),
                ]
            )
    return (
        "\n\n## The noise-aware bands with intervals\n\n"
        "The pick with the noise (as above), per band: Wilson's 90 % interval of the share "
        "right, and a 90 % percentile bootstrap of the gap (share right − mean stated) that "
        "resamples whole pools (people of one pool share its measurements). The verdict "
        "reads the wider of the two (Wilson's less the mean stated, and the bootstrap's): "
        f"*within*: it lies inside ±{TOLERANCE * 100:.0f} points; *off*: wholly outside; "
        "*cannot decide*: the sample does not say.\n\n" + markdown(head, body)
    )


def _likeliest_section(results: dict[int, dict[str, list[tuple[float, bool, int]]]]) -> str:
    head = [
        "cases per class",
        "P(best) bin",
        "pick: people",
        "mean P(best)",
        "right",
        "measured best: people",
        "mean P(best)",
        "right",
    ]
    body = []
    for size, found in results.items():
        for low, high in itertools.pairwise(BINS):
            cells: list[object] = [
                _label(size),
                f"[{low:.2f}, {min(high, 1.0):.2f}{']' if high > 1 else ')'}",
            ]
            for rows in (found["noise"], EXPECTED.get(size, [])):
                cells += _bin_cells(rows, low, high)
            body.append(cells)
        rows = EXPECTED.get(size, [])
        pick = found["noise"]
        body.append(
            [
                _label(size),
                "all",
                len(pick),
                f"{np.mean([p for p, _, _ in pick]):.3f}",
                f"{np.mean([r for _, r, _ in pick]):.1%}",
                len(rows),
                f"{np.mean([p for p, _, _ in rows]):.3f}" if rows else "–",
                f"{np.mean([r for _, r, _ in rows]):.1%}" if rows else "–",
            ]
        )
    return (
        "\n\n## The pick against the model that measured best\n\n"
        "With the noise, the pick (the model of highest noise-aware P(best), what every "
        "place recommends) beside the model of highest expected ψ at the measured numbers "
        "(the pick before; for comparison): its noise-aware P(best) and how often it is the "
        "truth's best. Without noise (true recalls) the two are the same model.\n\n"
        + markdown(head, body)
    )


#: What :func:`engine_agreement` found, for the report.
ENGINE: dict[int, list[tuple[float, float, float, bool, bool]]] = {}


def _engine_section(args: argparse.Namespace) -> str:
    if not ENGINE:
        return ""
    head = [
        "cases per class",
        "people",
        "largest |stop − simulate|",
        "largest |stop − select|",
        "same pick",
        "mean P(best) stated",
        "right",
        "stated ≥ 0.95: people",
        "wrong",
    ]
    body = []
    for size, rows in ENGINE.items():
        stop = np.array([r[0] for r in rows])
        sure = [r[3] for r in rows if r[0] >= SURE]
        body.append(
            [
                _label(size),
                len(rows),
                f"{max(abs(r[0] - r[1]) for r in rows):.1e}",
                f"{max(abs(r[0] - r[2]) for r in rows):.1e}",
                f"{sum(r[4] for r in rows)} of {len(rows)}",
                f"{stop.mean():.3f}",
                f"{np.mean([r[3] for r in rows]):.1%}",
                len(sure),
                f"{1 - np.mean(sure):.1%}" if sure else "–",
            ]
        )
    return (
        f"\n\n## One number: the stop, `simulate` and `select` (`--engine {args.engine}`)\n\n"
        f"{args.engine} simulated people per test-set size answer the `joint` engine exactly, "
        "each on a pool of its own (as above), the engine given the pool's plausible "
        "measurements; the P(best) the stop states (the review's), the one `simulate` states "
        "and the one `select` states for the same person (a stakeholder made from the "
        "engine's posterior, its plausible measurements drawn afresh from the pool). Right: "
        "the pick is the truth's best, or it was said practically tied and is within the "
        "truth's perceivable margin of it.\n\n" + markdown(head, body)
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pools", type=int, default=30)
    parser.add_argument("--people", type=int, default=10)
    parser.add_argument("--cases", type=int, nargs="+", default=[100, 300, 1000, 0])
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--spread", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--pull", type=float, default=0.003, help="how far models lie inside the front (sd)"
    )
    parser.add_argument(
        "--engine", type=int, default=0, help="people per size through the engine (0: none)"
    )
    parser.add_argument(
        "--leave-out",
        type=int,
        default=0,
        help="an experiment: each model from the curve fitted to the others (EM steps; 0: no)",
    )
    parser.add_argument(
        "--reach",
        type=float,
        default=None,
        help="an experiment: the scatter's largest size drawn, in times the noise "
        f"(tradeoff.pool.front.REACH, {front.REACH:g} as shipped)",
    )
    parser.add_argument(
        "--scatter",
        choices=("drawn", "spike", "none"),
        default="drawn",
        help="an experiment: the scatter's size drawn as shipped, with half its prior on no "
        "scatter, or no scatter (benchmarks.front_calibration's ablations)",
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    if args.reach is not None:
        front.REACH = args.reach
    if args.scatter != "drawn":
        from benchmarks.front_calibration import ablate

        ablate(1.0, args.scatter)
    start = time.perf_counter()
    results = run(
        args.pools,
        args.people,
        args.cases,
        args.draws,
        args.spread,
        args.seed,
        args.pull,
        args.leave_out,
    )
    if args.engine:
        ENGINE.update(engine_agreement([c for c in args.cases if c], args.engine, args.seed))
    body = report(results, time.perf_counter() - start, args)
    if args.no_write:
        print(body)
    else:
        write("measurement-noise", "P(best) under measurement noise", body)


if __name__ == "__main__":
    main()
