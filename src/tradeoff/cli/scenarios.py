"""``tradeoff scenario check``, ``tradeoff simulate`` and ``tradeoff bench``."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.ask.strategies import STRATEGY_NAMES
from tradeoff.cli.common import (
    Progress,
    UsageError,
    emit,
    error,
    finite,
    floats,
    say,
)
from tradeoff.cli.per_unit import say_swing_share_rows, say_swing_shares
from tradeoff.text import count

if TYPE_CHECKING:
    from tradeoff.ask.scenario import ElicitationSpec, LoadedScenario
    from tradeoff.simulation.simulate import Summary


def cmd_scenario_check(args: argparse.Namespace) -> int:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.cache import command_population

    loaded = load_scenario(args.file)
    s = loaded.scenario
    if s.population is not None and s.population.kind == "probabilities":
        # Read and check the probabilities now: what simulate and elicit would fail on later
        # (an entry in the cache, keyed by the file's content, was checked when it was built).
        command_population(s)
    pool_models = None
    if s.pool is not None:
        # The pool too: missing, a folder or a FIFO, or columns that do not fit.
        from tradeoff.choose.candidates import scenario_pool, scenario_pool_path
        from tradeoff.errors import InputError

        folder = Path(loaded.path).parent
        pool_path = scenario_pool_path(s, folder)
        if not pool_path.is_file():
            what = "is not a regular file" if pool_path.exists() else "is not there"
            raise InputError.single(
                loaded.path,
                "pool.path",
                f"names the pool {s.pool.path!r}, which {what} (looked for {pool_path}).",
                "put the pool file (CSV or Parquet) there, or correct [pool] path (relative "
                "to the scenario file).",
            )
        pool_models = len(scenario_pool(s, folder).names)
    if args.json:
        emit(
            {
                "ok": True,
                "id": s.id,
                "path": loaded.path,
                "sha256": loaded.sha256,
                "names": list(s.weight_names),
                "classes": [c.name for c in s.classes],
                "attributes": [{"name": a.name, "kind": a.kind} for a in s.attributes],
                "pool_models": pool_models,
            }
        )
    else:
        # on a terminal, each line within its width
        say(scenario_summary(loaded), wrap=True, hang=2)
        if pool_models is not None:
            say(f"  pool read: {pool_models} models")
        say("OK")
    return 0


def cmd_scenario_list(args: argparse.Namespace) -> int:
    """The shipped scenarios, each usable by its id wherever a scenario file is asked for."""
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.data import shipped_ids, shipped_scenarios

    rows: list[dict[str, str | bool]] = []
    for sid in shipped_ids():
        loaded = load_scenario(shipped_scenarios() / f"{sid}.toml")
        rows.append(
            {
                "id": sid,
                "title": loaded.scenario.title,
                "pool": loaded.scenario.pool is not None,
                "path": loaded.path,
            }
        )
    if args.json:
        emit({"scenarios": rows})
        return 0
    width = max(len(str(r["id"])) for r in rows)
    say(f"{'id':<{width}}  pool  title")
    for r in rows:
        # on a terminal, a long title goes on under itself, not under the ids
        row = f"{r['id']:<{width}}  {'yes' if r['pool'] else 'no ':<4}  {r['title']}"
        say(row, wrap=True, hang=width + 8)
    say()
    say(
        f"Files in {shipped_scenarios()}; give the id wherever a scenario file is asked for.",
        wrap=True,
    )
    return 0


def check_strategy(name: str | None) -> None:
    """Refuse a strategy name that is not in the registry."""
    if name is not None and name not in STRATEGY_NAMES:
        known = ", ".join(STRATEGY_NAMES)
        raise UsageError(f"unknown strategy {name!r}; known strategies: {known}")


def format_summary(summary: Summary, run: dict[str, Any] | None = None) -> str:
    """The text ``tradeoff simulate`` prints (``run``: :func:`_run_record`, named on the
    first line so that a table copied from it says how to get it again)."""
    import numpy as np

    l1 = np.array([o.l1 for o in summary.outcomes])
    q = np.array([o.queries for o in summary.outcomes])
    again = "" if run is None else f", seed {run['seed']} (tradeoff {run['tradeoff']})"
    lines = [
        f"strategy {summary.strategy}, noise {summary.noise or 'exact'}, "
        f"{count(len(summary.outcomes), 'run')}{again}",
        f"questions: median {np.median(q):g}, max {q.max()}",
        f"L1 error:  median {np.median(l1):.5f}, p90 {np.quantile(l1, 0.9):.5f}, "
        f"max {l1.max():.5f}",
    ]
    scores = [o.score for o in summary.outcomes if o.score is not None]
    if scores:
        right = np.mean([d.right for d in scores])
        lines.append(
            f"recommendation = the truth's best model in {right:.0%} of runs; regret median "
            f"{np.median([d.regret for d in scores]):.4f}"
        )
    traced = summary.trace_quantiles()
    if traced is not None:
        lines.append("L1 error after each question (median over runs, p90):")
        lines += [
            f"  {q:>4}  {m:.5f}  {p:.5f}"
            for q, (m, p) in enumerate(zip(*traced, strict=True), start=1)
        ]
    if len(summary.outcomes) == 1:
        only = summary.outcomes[0]
        width = max(len(n) for n in summary.names)
        lines.append(f"{'weight':<{width}}  estimate     truth")
        for i, name in enumerate(summary.names):
            row = f"{name:<{width}}  {only.result.weights[i]:8.4f}  {only.truth[i]:8.4f}"
            if only.result.intervals is not None:
                lo, hi = only.result.intervals[i]
                row += f"   90% [{lo:.4f}, {hi:.4f}]"
            lines.append(row)
    return "\n".join(lines)


def cmd_simulate(args: argparse.Namespace) -> int:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.simulation.oracles import Noise
    from tradeoff.simulation.simulate import simulate
    from tradeoff.study.cache import command_population

    loaded = load_scenario(args.scenario)
    scenario = loaded.scenario
    check_strategy(args.strategy)
    truth = floats(args.truth, "--truth") if args.truth else None
    truths = None
    if args.truths is not None:
        from tradeoff.simulation.simulate import read_truths

        if truth is not None:
            raise UsageError("give --truth or --truths, not both")
        truths = read_truths(args.truths, scenario)
        say_swing_share_rows(truths, scenario, "--truths", args.truths)
    if truth is not None:
        n = len(scenario.weight_names)
        if len(truth) != n:
            raise UsageError(
                f"--truth needs {n} weights, one per {', '.join(scenario.weight_names)}; "
                f"got {len(truth)}"
            )
        if any(w < 0 for w in truth) or sum(truth) <= 0:
            raise UsageError("--truth weights must be non-negative and not all zero")
        say_swing_shares(truth, scenario, "--truth")
        total = sum(truth)
        if abs(total - 1.0) > 1e-9:  # said, never silently rescaled
            shares = ", ".join(f"{w / total:.4g}" for w in truth)
            error(
                f"note: the --truth weights add up to {total:g}, not 1; they are taken as "
                f"shares of their sum: {shares}."
            )
    try:
        noise = Noise.parse(args.noise) if args.noise else None
    except ValueError as exc:
        raise UsageError(f"--noise: {exc}") from None
    finite(args.indifference, "--indifference", 0.0)
    if args.epsilon is not None and not 0 < args.epsilon < 0.5:
        raise UsageError("--epsilon must lie in (0, 0.5)")
    spec = scenario.elicitation.override(
        strategy=args.strategy, budget=args.budget, epsilon=args.epsilon, stop=args.stop
    )
    pool = None
    if scenario.pool is not None:
        from tradeoff.choose.candidates import scenario_pool

        pool = scenario_pool(scenario, Path(loaded.path).parent)
    from tradeoff.simulation.parallel import Backend

    if args.dask_scheduler is not None and args.workers != 1:
        raise UsageError("give --workers or --dask-scheduler, not both")
    summary = simulate(
        scenario,
        backend=Backend(args.workers, args.dask_scheduler),
        progress=Progress("simulated", "people"),
        pool=pool,
        spec=spec,
        truth=truth,
        truths=truths,
        runs=args.runs,
        noise=noise,
        indifference=args.indifference,
        seed=args.seed,
        trace=args.trace,
        population=command_population(scenario),
    )
    run = _run_record(args, loaded, spec)
    if args.json:
        emit({**summary.to_dict(), "run": run})
    else:
        say(format_summary(summary, run))
    return 0


def _run_record(
    args: argparse.Namespace, loaded: LoadedScenario, spec: ElicitationSpec
) -> dict[str, Any]:
    """What reproduces a ``tradeoff simulate`` run: the version, the scenario file and its
    pool with their hashes, the seed, where the true weights came from and the settings
    that shape the questions."""
    from tradeoff.version import __version__

    files = {"path": loaded.path, "sha256": loaded.sha256}
    if loaded.scenario.pool is not None:
        from tradeoff.choose.candidates import scenario_pool_path

        pool = scenario_pool_path(loaded.scenario, Path(loaded.path).parent)
        files["pool"] = str(pool)
        files["pool_sha256"] = hashlib.sha256(pool.read_bytes()).hexdigest()

    truths: dict[str, Any] = {"from": "a flat Dirichlet over swing weights, one per run"}
    if args.truth:
        truths = {"from": "--truth", "weights": floats(args.truth, "--truth")}
    elif args.truths is not None:
        data = Path(args.truths).read_bytes()
        truths = {"from": str(args.truths), "sha256": hashlib.sha256(data).hexdigest()}
    return {
        "tradeoff": __version__,
        "scenario": files,
        "seed": args.seed,
        "truths": truths,
        "strategy": spec.strategy,
        "budget": spec.budget,
        "stop": spec.stop or ("weights" if loaded.scenario.pool is None else "decision"),
        "decision_confidence": spec.decision_confidence,
        "epsilon": spec.epsilon,
    }


def cmd_bench(args: argparse.Namespace) -> int:
    from tradeoff.simulation.bench import main_elicitation

    main_elicitation(args.out, runs=args.runs, seed=args.seed)
    return 0


def scenario_summary(loaded: LoadedScenario) -> str:
    """A short human-readable summary of a scenario, for ``tradeoff scenario check``."""
    from tradeoff.ask.shown import shown_number

    s = loaded.scenario
    lines = [
        f"{s.id}: {s.title}",
        f"  file     {loaded.path} (sha256 {loaded.sha256[:12]})",
    ]
    if s.classes:
        lines.append("  classes  " + ", ".join(f"{c.name} ({c.label})" for c in s.classes))
    else:
        lines.append("  options  described by their attributes alone (no classes)")
    for a in s.attributes:
        lo, hi = a.range
        ends = f"{a.render(lo)} … {a.render(hi)}"
        if any(abs(shown_number(a, x) - x) > 1e-9 * max(1.0, abs(x)) for x in (lo, hi)):
            ends += f" (range [{lo:g}, {hi:g}]: its ends shown to the format's digits)"
        lines.append(f"  {a.kind:<8} {a.name}: {ends}")
    pop = s.population
    if pop is None:
        pass
    elif pop.kind == "softmax-linear":
        prev = f", prevalence {list(pop.prevalence)}" if pop.prevalence else ""
        lines.append(
            f"  population softmax-linear, {pop.samples:,} samples, {pop.features} features, "
            f"seed {pop.seed}{prev}"
        )
    else:
        lines.append(f"  population probabilities from {pop.path}")
    e = s.elicitation
    budget = f", budget {e.budget}" if e.budget else ""
    lines.append(f"  elicitation {e.strategy}, epsilon {e.epsilon:g}{budget}")
    lines.append(f"  weights  {', '.join(s.weight_names)}")
    if s.pool:
        lines.append(f"  pool     {s.pool.path}")
    return "\n".join(lines)
