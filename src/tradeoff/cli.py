"""The ``tradeoff`` command line: argument parsing, wiring and exit codes.

Exit codes (DESIGN.md): 0 ok, 2 bad input (a one-paragraph message on stderr, no
traceback), 1 internal error. Every non-interactive command accepts ``--json`` and then
prints exactly one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from tradeoff import __version__
from tradeoff.errors import InputError
from tradeoff.text import clean_text

FLAG_NAMES = {
    "where condition": "--where",
    "constraint ": "--constraint ",
    "drop_missing": "--drop-missing",
}
"""Core parameter names and the command-line flags that set them (used in messages)."""

DEFAULT_SCENARIO = "breast-cancer-triage.toml"


MAX_SWEEP = 100_001


class UsageError(Exception):
    """A bad command-line value; reported like an input error (exit code 2)."""


def scenarios_dir() -> Path:
    """The shipped scenarios: ``./scenarios`` if present, else the project's own."""
    here = Path.cwd() / "scenarios"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "scenarios"


def default_scenario() -> Path:
    return scenarios_dir() / DEFAULT_SCENARIO


def _floats(text: str, what: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what} must be comma-separated numbers, got {text!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise UsageError(f"{what} must be finite numbers (no nan or inf), got {text!r}")
    return values


def _finite(value: float | None, what: str, low: float | None = None) -> None:
    """Refuse nan/inf, and values below ``low``, of a numeric option."""
    if value is None:
        return
    if not math.isfinite(value) or (low is not None and value < low):
        bound = "" if low is None else f" ≥ {low:g}"
        raise UsageError(f"{what} must be a finite number{bound}, got {value}")


def _seed(value: int) -> int:
    if not 0 <= value < 2**63:
        raise UsageError(f"--seed must be a whole number from 0 to 2**63 − 1, got {value}")
    return value


def _json_safe(data: Any) -> Any:
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _json_safe(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_json_safe(v) for v in data]
    return data


def _emit(data: Any) -> None:
    """Print exactly one JSON document (built completely before anything is written)."""
    try:
        text = json.dumps(data, indent=2, allow_nan=False)
    except ValueError:  # nan or inf somewhere: JSON has no such numbers, they become null
        text = json.dumps(_json_safe(data), indent=2, allow_nan=False)
    sys.stdout.write(text + "\n")


def say(text: object = "") -> None:
    """Print text for a terminal: every control character from files made harmless."""
    print("\n".join(clean_text(line) for line in str(text).split("\n")))


def _writable_file(path: str, what: str) -> Path:
    """A file path whose folder exists and which is not a folder itself."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{what} {path!r} is a folder; give a file name")
    if not p.parent.is_dir():
        raise UsageError(f"{what} {path!r}: the folder {str(p.parent)!r} does not exist")
    return p


# --------------------------------------------------------------------------------------
# tradeoff scenario check
# --------------------------------------------------------------------------------------


def cmd_scenario_check(args: argparse.Namespace) -> int:
    from tradeoff.population import build_population
    from tradeoff.scenario import load_scenario, summary

    loaded = load_scenario(args.file)
    if loaded.scenario.population.kind == "probabilities":
        # Read and check the probabilities now: what simulate and elicit would fail on later.
        build_population(loaded.scenario.population, tuple(c.name for c in loaded.scenario.classes))
    if args.json:
        s = loaded.scenario
        _emit(
            {
                "ok": True,
                "id": s.id,
                "path": loaded.path,
                "sha256": loaded.sha256,
                "names": list(s.weight_names),
                "classes": [c.name for c in s.classes],
                "attributes": [{"name": a.name, "kind": a.kind} for a in s.attributes],
            }
        )
    else:
        say(summary(loaded))
        say("OK")
    return 0


# --------------------------------------------------------------------------------------
# tradeoff simulate
# --------------------------------------------------------------------------------------


def _format_summary(data: dict[str, Any]) -> str:
    lines = [
        f"strategy {data['strategy']}, noise {data['noise']}, {data['runs']} run(s)",
        f"questions: median {data['queries']['median']:g}, max {data['queries']['max']}",
        "L1 error:  median {median:.5f}, p90 {p90:.5f}, max {max:.5f}".format(**data["l1_error"]),
    ]
    if "weights" in data:
        width = max(len(n) for n in data["names"])
        lines.append(f"{'weight':<{width}}  estimate     truth")
        for i, name in enumerate(data["names"]):
            row = f"{name:<{width}}  {data['weights'][i]:8.4f}  {data['truth'][i]:8.4f}"
            if "intervals" in data:
                lo, hi = data["intervals"][i]
                row += f"   90% [{lo:.4f}, {hi:.4f}]"
            lines.append(row)
    return "\n".join(lines)


def cmd_simulate(args: argparse.Namespace) -> int:
    from tradeoff.elicitation import STRATEGY_FACTORIES
    from tradeoff.oracles import Noise
    from tradeoff.scenario import load_scenario
    from tradeoff.simulate import simulate

    scenario = load_scenario(args.scenario).scenario
    if args.strategy is not None and args.strategy not in STRATEGY_FACTORIES:
        known = ", ".join(sorted(STRATEGY_FACTORIES))
        raise UsageError(f"unknown strategy {args.strategy!r}; known strategies: {known}")
    truth = _floats(args.truth, "--truth") if args.truth else None
    if truth is not None:
        n = len(scenario.weight_names)
        if len(truth) != n:
            raise UsageError(
                f"--truth needs {n} weights, one per {', '.join(scenario.weight_names)}; "
                f"got {len(truth)}"
            )
        if any(w < 0 for w in truth) or sum(truth) <= 0:
            raise UsageError("--truth weights must be non-negative and not all zero")
    try:
        noise = Noise.parse(args.noise) if args.noise else None
    except ValueError as exc:
        raise UsageError(f"--noise: {exc}") from None
    _finite(args.indifference, "--indifference", 0.0)
    _seed(args.seed)
    if not 1 <= args.runs <= 1_000_000:
        raise UsageError("--runs must be from 1 to 1000000")
    if args.budget is not None and not 1 <= args.budget <= 10_000:
        raise UsageError("--budget must be from 1 to 10000")
    if args.epsilon is not None and not 0 < args.epsilon < 0.5:
        raise UsageError("--epsilon must lie in (0, 0.5)")
    summary = simulate(
        scenario,
        truth=truth,
        runs=args.runs,
        strategy=args.strategy,
        noise=noise,
        indifference=args.indifference,
        budget=args.budget,
        epsilon=args.epsilon,
        seed=args.seed,
    )
    data = summary.to_dict()
    if args.json:
        _emit(data)
    else:
        say(_format_summary(data))
    return 0


# --------------------------------------------------------------------------------------
# tradeoff rank
# --------------------------------------------------------------------------------------


def _parse_p(text: str) -> float:
    if text.strip().lower() in ("inf", "infinity", "∞"):
        return float("inf")
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--p must be a number ≥ 1 or 'inf', got {text!r}") from None
    if not value >= 1:
        raise UsageError(f"--p must be at least 1 (or inf), got {text!r}")
    return value


def _parse_weights(items: Sequence[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in items:
        col, sep, value = item.rpartition("=")
        if not sep or not col:
            raise UsageError(f"--weight looks like COL=W, got {item!r}")
        try:
            out[col] = float(value)
        except ValueError:
            raise UsageError(f"--weight {item!r}: W must be a number") from None
        if not (math.isfinite(out[col]) and out[col] >= 0):
            raise UsageError(f"--weight {item!r}: W must be a finite number ≥ 0")
    return out


def _format_rank(data: dict[str, Any]) -> str:
    cols = list(data["selected"]["u"])
    width = max(12, *(len(r["name"]) for r in data["ranking"]))
    width = min(width, 60)
    head = (
        f"{'#':>3}  {'model':<{width}}  {'score':>7}  "
        + "  ".join(f"{c[:12]:>12}" for c in cols)
        + "  pareto"
    )
    lines = [
        f"{data['selectable']} selectable of {data['n']} models; method {data['method']}, "
        f"p = {data['p']}, ω = [{', '.join(f'{w:.3g}' for w in data['weights'])}]; "
        f"{data['pareto_count']} Pareto-optimal",
        head,
    ]
    for i, r in enumerate(data["ranking"], 1):
        tops = "  ".join(f"{'top-' + str(max(1, round(100 * r['u'][c]))) + '%':>12}" for c in cols)
        lines.append(
            f"{i:>3}  {r['name'][:width]:<{width}}  {r['score']:7.4f}  {tops}  "
            f"{'yes' if r['pareto'] else ''}"
        )
    lines.append("")
    lines.append("Selected: " + data["explanation"])
    if "linear" in data:
        lin = data["linear"]
        lines.append(
            f"Linear metric picks {lin['selected']}; Kendall τ with COPA "
            f"{data['agreement']['kendall_tau']:.3f}; same top pick: "
            f"{'yes' if data['agreement']['top_match'] else 'no'}"
        )
    if "sweep" in data:
        lines.append("")
        lines.append("alpha sweep (α → model, where the pick changes):")
        last = None
        for row in data["sweep"]:
            if row["name"] != last:
                lines.append(f"  α = {row['alpha']:.3f}: {row['name']}")
                last = row["name"]
    for w in data.get("warnings", []):
        lines.append(f"warning: {w}")
    return "\n".join(lines)


def cmd_rank(args: argparse.Namespace) -> int:
    import numpy as np

    from tradeoff.pool import Objective, load_pool
    from tradeoff.ranking import (
        agreement,
        linear_values,
        metric_coefficients,
        metric_objectives,
        metric_to_omega,
        rank_pool,
        weights_from_options,
    )

    p = _parse_p(args.p)
    if args.top < 1:
        raise UsageError("--top must be at least 1")
    if args.alpha is not None:
        if not args.alpha_objective:
            raise UsageError("--alpha needs --alpha-objective COL (the objective(s) α weighs)")
        if not (math.isfinite(args.alpha) and 0 <= args.alpha <= 1):
            raise UsageError(f"--alpha must lie in [0, 1], got {args.alpha}")
    if args.sweep is not None and not 2 <= args.sweep <= MAX_SWEEP:
        raise UsageError(f"--sweep needs N from 2 to {MAX_SWEEP} values of α")
    scenario = None
    if args.scenario:
        from tradeoff.scenario import load_scenario

        scenario = load_scenario(args.scenario).scenario
        if not args.metric:
            raise UsageError("--scenario needs --metric W1,W2,... (the elicited weights)")
        objectives = list(metric_objectives(scenario))
    else:
        if args.metric:
            raise UsageError("--metric needs --scenario (to map weights onto the pool)")
        if not args.objective:
            raise UsageError("give at least one --objective COL:min|max (or --scenario)")
        try:
            objectives = [Objective.parse(o) for o in args.objective]
        except ValueError as exc:
            raise UsageError(f"--objective: {exc}") from None
    name_column = args.name_column or (
        scenario.pool.name_column if scenario and scenario.pool else None
    )
    pool = load_pool(
        args.pool,
        objectives,
        name_column=name_column,
        where=args.where,
        drop_missing=args.drop_missing,
    )
    coefficients = None
    if scenario is not None:
        metric = _floats(args.metric, "--metric")
        if len(metric) != len(scenario.weight_names):
            raise UsageError(
                f"--metric needs {len(scenario.weight_names)} weights "
                f"({', '.join(scenario.weight_names)})"
            )
        from tradeoff.population import build_population

        priors = build_population(
            scenario.population, tuple(c.name for c in scenario.classes)
        ).priors
        coefficients = metric_coefficients(scenario, metric, priors.tolist())
        weights = metric_to_omega(coefficients, pool.values)
    else:
        weights = weights_from_options(
            pool, _parse_weights(args.weight or []), args.alpha_objective or [], args.alpha
        )
    alphas = None
    if args.sweep is not None:
        if args.sweep < 2:
            raise UsageError("--sweep needs N ≥ 2 values of α")
        if not args.alpha_objective:
            raise UsageError("--sweep needs --alpha-objective COL (the objective α weighs)")
        alphas = np.linspace(0.0, 1.0, args.sweep).tolist()
    outcome = rank_pool(
        pool,
        weights=weights,
        p=p,
        method=args.method,
        constraints=args.constraint or [],
        top=args.top,
        sweep_group=args.alpha_objective or [],
        sweep_alphas=alphas,
    )
    data = outcome.to_dict()
    if coefficients is not None and scenario is not None:
        from tradeoff import copa

        psi = linear_values(pool, coefficients)
        selectable = pool.mask(args.constraint or []) if args.constraint else None
        rows = np.arange(pool.n) if selectable is None else np.flatnonzero(selectable)
        order = rows[np.lexsort((rows, -psi[rows]))]
        phi = copa.rank_cdf(pool.minimisation())
        agree = agreement(copa.scores(phi, weights, p), psi, selectable)
        agree["top_match"] = pool.names[int(order[0])] == outcome.selected.name
        data["linear"] = {
            "selected": pool.names[int(order[0])],
            "ranking": [
                {"name": pool.names[int(i)], "psi": float(psi[i])} for i in order[: args.top]
            ],
        }
        data["agreement"] = agree
        data["metric"] = dict(
            zip(scenario.weight_names, _floats(args.metric, "--metric"), strict=True)
        )
    if args.json:
        _emit(data)
    else:
        say(_format_rank(data))
    return 0


# --------------------------------------------------------------------------------------
# tradeoff compare / gap
# --------------------------------------------------------------------------------------


def _point(text: str | None, what: str, d: int) -> list[float] | None:
    if text is None:
        return None
    values = _floats(text, what)
    if len(values) != d:
        raise UsageError(f"{what} needs {d} values, one per objective; got {len(values)}")
    return values


def cmd_compare(args: argparse.Namespace) -> int:
    import numpy as np

    from tradeoff import evaluation as ev
    from tradeoff.pool import Objective, load_pool

    if not args.objective:
        raise UsageError("give at least two --objective COL:min|max")
    try:
        objectives = [Objective.parse(o) for o in args.objective]
    except ValueError as exc:
        raise UsageError(f"--objective: {exc}") from None
    if not 1 <= args.permutations <= 10_000_000:
        raise UsageError("--permutations must be from 1 to 10000000")
    if not (args.sigma > 0 and math.isfinite(args.sigma)):
        raise UsageError("--sigma must be a positive finite number")
    _seed(args.seed)
    if args.radar:
        _writable_file(args.radar, "--radar")
    pool = load_pool(args.pool, objectives, name_column=args.system, unique_names=False)
    if args.seed_col and args.seed_col not in pool.frame.columns:
        raise InputError.single(
            args.pool,
            f"column {args.seed_col!r}",
            "not found.",
            "name the column that holds the seed of each run.",
        )
    y = ev.to_minimisation(pool.values, pool.maximise)
    systems: dict[str, list[int]] = {}
    for i, name in enumerate(pool.names):
        systems.setdefault(name, []).append(i)
    if args.baseline is not None and args.baseline not in systems:
        raise InputError.single(
            args.pool,
            f"--baseline {args.baseline!r}",
            f"system {args.baseline!r} has no rows in column {args.system!r}.",
            f"use one of: {', '.join(systems)}.",
        )
    if len(systems) < 2:
        raise InputError.single(
            args.pool,
            f"column {args.system!r}",
            "holds only one system; nothing to compare.",
            "give a table with rows of at least two systems.",
        )
    ref_raw = _point(args.ref, "--ref", len(objectives))
    ref = None if ref_raw is None else ev.to_minimisation(np.asarray([ref_raw]), pool.maximise)[0]
    if ref is not None:
        ev.check_reference(args.pool, y, ref)
    rows, used_ref = ev.indicators(
        {n: y[idx] for n, idx in systems.items()}, ref=ref, sigma=args.sigma
    )
    data: dict[str, Any] = {
        "systems": [
            {
                "name": r.name,
                "hv": r.hv,
                "onvg": r.onvg,
                "onvgr": r.onvgr,
                "ud": r.ud,
                "os": r.os,
                "area": r.area,
                "ud_complement": r.ud_complement,
                "hv_normalised": r.hv_normalised,
                "onvg_normalised": r.onvg_normalised,
                "solutions": r.solutions,
                "excluded_from_hv": r.excluded,
            }
            for r in rows
        ],
        "reference": (ev.to_minimisation(np.asarray([used_ref]), pool.maximise)[0]).tolist(),
        "sigma": args.sigma,
    }
    warnings = [
        f"{r.excluded} solution(s) of {r.name} do not dominate the reference point and add "
        "nothing to its hypervolume"
        for r in rows
        if r.excluded
    ]
    if args.seed_col:
        baseline = args.baseline or next(iter(systems))
        tests = []
        for name, idx in systems.items():
            if name == baseline:
                continue

            def runs(ix: list[int]) -> list[Any]:
                seeds = pool.frame[args.seed_col].iloc[ix].to_numpy()
                return [y[np.asarray(ix)[seeds == s]] for s in dict.fromkeys(seeds)]

            result = ev.permutation_test(
                runs(systems[baseline]),
                runs(idx),
                ref=used_ref,
                permutations=args.permutations,
                seed=args.seed,
                baseline=baseline,
                candidate=name,
            )
            tests.append(result.to_dict())
        data["permutation"] = tests[0] if len(tests) == 1 else tests
    data["warnings"] = warnings
    if args.radar:
        ev.radar_png(rows, args.radar, title=Path(args.pool).name)
        data["radar"] = args.radar
    if args.json:
        _emit(data)
    else:
        say(ev.measurement_table(rows))
        say()
        say(ev.radar_text(rows))
        if "permutation" in data:
            for t in tests:
                say(
                    f"\npermutation test: {t['candidate']} vs {t['baseline']}: "
                    f"ΔHV = {t['delta']:.6g}, p = {t['p_value']:.4g} "
                    f"(B = {t['permutations']})"
                )
        for w in warnings:
            say(f"warning: {w}")
        if args.radar:
            say(f"radar chart written to {args.radar}")
    return 0


def cmd_gap(args: argparse.Namespace) -> int:
    import numpy as np

    from tradeoff import evaluation as ev
    from tradeoff.pool import Objective, load_pool

    val_cols = [c.strip() for c in args.validation.split(",") if c.strip()]
    test_cols = [c.strip() for c in args.test.split(",") if c.strip()]
    if len(val_cols) != len(test_cols):
        raise UsageError(
            f"--validation names {len(val_cols)} columns but --test names {len(test_cols)}; "
            "give the same objectives in the same order"
        )
    if len(val_cols) < 2:
        raise UsageError("--validation needs at least two columns")
    direction: Literal["min", "max"] = "max" if args.direction == "max" else "min"
    val_pool = load_pool(
        args.pool,
        [Objective(c, direction) for c in val_cols],
        name_column=args.id_column,
        unique_names=False,
    )
    test_source = args.test_file or args.pool
    test_pool = load_pool(
        test_source,
        [Objective(c, direction) for c in test_cols],
        name_column=args.id_column,
        unique_names=False,
    )
    if test_pool.n != val_pool.n:
        raise InputError.single(
            test_source,
            "",
            f"has {test_pool.n} rows but the validation table has "
            f"{val_pool.n}; each configuration needs a validation and a test row.",
            "give both tables the same configurations in the same order.",
        )
    maximise = val_pool.maximise
    val = ev.to_minimisation(val_pool.values, maximise)
    tst = ev.to_minimisation(test_pool.values, maximise)
    d = len(val_cols)
    drop = _point(args.drop_point, "--drop-point", d)
    drop_min = None if drop is None else ev.to_minimisation(np.asarray([drop]), maximise)[0]
    ref_raw = _point(args.ref, "--ref", d)
    ref = (
        ev.reference_point(np.vstack((val, tst)))
        if ref_raw is None
        else ev.to_minimisation(np.asarray([ref_raw]), maximise)[0]
    )
    ev.check_reference(args.pool, np.vstack((val, tst)), ref)
    ids = [str(x) for x in val_pool.names]
    if args.id_column is None and "config_id" in val_pool.frame.columns:
        ids = [str(x) for x in val_pool.frame["config_id"]]
    groups: dict[str, list[int]] = {"all": list(range(val_pool.n))}
    if args.group:
        if args.group not in val_pool.frame.columns:
            raise InputError.single(
                args.pool,
                f"column {args.group!r}",
                "not found.",
                "name the column that says which method ran each row.",
            )
        groups = {}
        for i, g in enumerate(val_pool.frame[args.group]):
            groups.setdefault(str(g), []).append(i)
    results = {}
    for g, idx in groups.items():
        ix = np.asarray(idx)
        results[g] = ev.generalisation(
            val[ix], tst[ix], [ids[i] for i in idx], ref=ref, drop_point=drop_min
        )
    if len(results) == 1:
        data = next(iter(results.values())).to_dict()
    else:
        names = list(results)
        data = {
            "methods": {g: r.to_dict() for g, r in results.items()},
            "comparisons": [
                {"a": a, "b": b, **ev.compare_generalisation(results[a], results[b])}
                for i, a in enumerate(names)
                for b in names[i + 1 :]
            ],
        }
    if args.json:
        _emit(data)
    else:
        for g, r in results.items():
            head = f"[{g}] " if len(results) > 1 else ""
            say(
                f"{head}validation HV {r.validation_hv:.4f}, optimistic HV {r.optimistic_hv:.4f}, "
                f"pessimistic HV {r.pessimistic_hv:.4f}, gap {r.gap:.4f}"
            )
            say(f"{head}validation Pareto set: {', '.join(r.validation_pareto)}")
            say(f"{head}optimistic: {', '.join(r.optimistic)}")
            say(f"{head}pessimistic: {', '.join(r.pessimistic)}")
            if r.dropped:
                say(f"{head}dropped ({len(r.dropped)}): {', '.join(r.dropped)}")
        for c in data.get("comparisons", []):
            say(
                f"{c['a']} vs {c['b']}: smaller gap: {c['smaller_gap']}; "
                f"{c['a']} pessimistic HV above {c['b']} optimistic: "
                f"{c['a_pessimistic_above_b_optimistic']}; pessimistic front dominates "
                f"optimistic: {c['a_pessimistic_dominates_b_optimistic']}"
            )
    return 0


# --------------------------------------------------------------------------------------
# tradeoff select
# --------------------------------------------------------------------------------------


def _selection(args: argparse.Namespace) -> tuple[Any, Any]:
    from tradeoff.pool import load_pool
    from tradeoff.ranking import metric_objectives
    from tradeoff.scenario import load_scenario
    from tradeoff.selection import load_stakeholders, select_for_stakeholders

    p = _parse_p(args.p)
    if args.top < 1:
        raise UsageError("--top must be at least 1")
    if getattr(args, "out", None) is not None:
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise UsageError(f"--out {args.out!r} is a file; give a folder for the report")
    scenario, stakeholders = load_stakeholders(args.session or [])
    if args.scenario:
        given = load_scenario(args.scenario)
        if given.scenario.id != scenario.id:
            raise InputError.single(
                args.scenario,
                "id",
                f"is {given.scenario.id!r} but the sessions were recorded on {scenario.id!r}.",
                "give the scenario the sessions were recorded on.",
            )
        scenario = given.scenario
    pool_spec = scenario.pool
    pool = load_pool(
        args.pool,
        metric_objectives(scenario),
        name_column=args.name_column or (pool_spec.name_column if pool_spec else None),
    )
    return select_for_stakeholders(scenario, stakeholders, pool, p=p, top=args.top), scenario


def cmd_select(args: argparse.Namespace) -> int:
    selection, _ = _selection(args)
    if args.tui:
        from tradeoff.tui.select import run_selection_app

        run_selection_app(selection)
        return 0
    data = selection.to_dict()
    if args.json:
        _emit(data)
        return 0
    for s in data["stakeholders"]:
        weights = ", ".join(f"{k} {v:.3f}" for k, v in s["weights"].items())
        say(
            f"{s['participant']}: picks {s['selected']} (linear metric: "
            f"{s['linear_selected']}); weights {weights}"
        )
        say(f"  {s['explanation']}")
    names = [s["participant"] for s in data["stakeholders"]]
    if len(names) > 1:
        say("\nregret (row: whose metric; column: whose pick)")
        first = max(len(n) for n in names) + 2
        cells = [max(len(n), 5) + 2 for n in names]
        say(" " * first + "".join(f"{n:>{w}}" for n, w in zip(names, cells, strict=True)))
        for n, row in zip(names, data["regret"], strict=True):
            values = "".join(f"{r:>{w}.3f}" for r, w in zip(row, cells, strict=True))
            say(f"{n:<{first}}" + values)
    c = data["consensus"]
    say(f"\nconsensus: {c['name']} (largest regret {c['max_regret']:.3f}; rule: {c['rule']})")
    say(f"pick with the averaged ω: {c['average_omega_pick']}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    import shlex

    from tradeoff.report import write_report

    selection, scenario = _selection(args)
    command = "tradeoff " + " ".join(shlex.quote(a) for a in args.argv)
    html_path, md_path = write_report(selection, scenario, args.out, command=command)
    if args.json:
        _emit(
            {
                "html": str(html_path),
                "markdown": str(md_path),
                "consensus": selection.consensus_name,
            }
        )
    else:
        say(f"report written: {html_path} and {md_path}")
    return 0


# --------------------------------------------------------------------------------------
# tradeoff bench
# --------------------------------------------------------------------------------------


def cmd_bench(args: argparse.Namespace) -> int:
    from tradeoff.bench import main_elicitation

    if args.runs < 1:
        raise UsageError("--runs must be at least 1")
    _seed(args.seed)
    main_elicitation(args.out, runs=args.runs, seed=args.seed)
    return 0


# --------------------------------------------------------------------------------------
# the app: tradeoff, tradeoff elicit, tradeoff serve, tradeoff session show
# --------------------------------------------------------------------------------------


def has_terminal() -> bool:
    """Whether the app can draw: a terminal on stdin and stdout, or a browser driver."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return True
    return sys.stdin.isatty() and sys.stdout.isatty()


def _run_app(
    scenario: str | None,
    *,
    participant: str | None = None,
    sessions_dir: str = "sessions",
    resume: str | None = None,
    budget: int | None = None,
    strategy: str | None = None,
) -> int:
    from tradeoff.elicitation import STRATEGY_FACTORIES
    from tradeoff.scenario import load_scenario
    from tradeoff.session import check_participant, check_sessions_dir, read_session

    path = Path(scenario) if scenario else default_scenario()
    if resume is not None:
        read_session(resume)  # a bad file is reported before the screen opens
    else:
        load_scenario(path)
        check_sessions_dir(sessions_dir)
    if participant is not None:
        check_participant(participant)
    if strategy is not None and strategy not in STRATEGY_FACTORIES:
        raise UsageError(f"unknown strategy {strategy!r}; known: {', '.join(STRATEGY_FACTORIES)}")
    if budget is not None and not 1 <= budget <= 10_000:
        raise UsageError("--budget must be from 1 to 10000")
    if not has_terminal():
        raise UsageError(
            "the app needs a terminal (standard input and output are not one here); run it in "
            "a terminal, serve it to a browser with 'tradeoff serve', or use 'tradeoff "
            "simulate' for answers without a person"
        )
    from tradeoff.tui import make_app

    app = make_app(
        path,
        scenarios_dir=scenarios_dir() if scenario is None else None,
        sessions_dir=sessions_dir,
        participant=participant,
        resume=resume,
        budget=budget,
        strategy=strategy,
    )
    app.run()
    if app.farewell is not None:
        text, line = app.farewell
        print(textwrap.fill(text, width=min(100, shutil.get_terminal_size().columns)))
        print(line)  # whole, never wrapped: a file name or command to copy
    return app.return_code or 0


def cmd_default(args: argparse.Namespace) -> int:
    """``tradeoff`` with no arguments: the start screen on the default scenario."""
    return _run_app(None)


def cmd_elicit(args: argparse.Namespace) -> int:
    return _run_app(
        args.scenario,
        participant=args.participant,
        sessions_dir=args.sessions_dir,
        resume=args.resume,
        budget=args.budget,
        strategy=args.strategy,
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from tradeoff.scenario import load_scenario
    from tradeoff.session import check_sessions_dir
    from tradeoff.tui.serve import serve

    path = Path(args.scenario) if args.scenario else default_scenario()
    load_scenario(path)
    check_sessions_dir(args.sessions_dir)
    _check_bind(args.host, args.port)
    serve(path, host=args.host, port=args.port, sessions_dir=args.sessions_dir)
    return 0


def _check_bind(host: str, port: int) -> None:
    """Refuse a port out of range, a host that does not resolve, or an address in use."""
    import socket

    if not 1 <= port <= 65535:
        raise UsageError(f"--port must be from 1 to 65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(f"--host {host!r} is not an address of this machine ({exc})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        try:
            probe.bind(address)
        except OSError as exc:
            raise UsageError(
                f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port, or "
                "stop what is using it"
            ) from None


def cmd_session_show(args: argparse.Namespace) -> int:
    from tradeoff.session import summarise

    data = summarise(args.file)
    if args.json:
        _emit(data)
        return 0
    say(f"{data['path']}")
    say(
        f"participant {data['participant']}, scenario {data['scenario_id']}, "
        f"strategy {data['strategy']}, started {data['started']}"
    )
    say(
        f"answers {data['answers']} (recorded {data['answers_recorded']}, undos "
        f"{data['undos']}), complete: {'yes' if data['complete'] else 'no'}"
    )
    say(f"  {'':<16} {'per unit':<28} over its whole range (swing)")
    for i, name in enumerate(data["names"]):
        line = f"  {name:<16} {data['weights'][i]:.4f}"
        if "intervals" in data:
            lo, hi = data["intervals"][i]
            line += f" 90% [{lo:.4f}, {hi:.4f}]"
        else:
            line += " " * 22
        if "swing_weights" in data:
            line += f"  {data['swing_weights'][i]:.4f}"
        if "swing_intervals" in data:
            lo, hi = data["swing_intervals"][i]
            line += f" 90% [{lo:.4f}, {hi:.4f}]"
        say(line)
    for w in data["warnings"]:
        say(f"warning: {w}")
    return 0


# --------------------------------------------------------------------------------------
# parser and entry point
# --------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tradeoff",
        description="Find out what a person values in a classifier, then pick the model.",
    )
    parser.add_argument("--version", action="version", version=f"tradeoff {__version__}")
    parser.set_defaults(func=cmd_default)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    el = sub.add_parser("elicit", help="answer questions in the app (a session is recorded)")
    el.add_argument("scenario", nargs="?", help="scenario TOML file (default: the shipped one)")
    el.add_argument("--participant", help="participant id")
    el.add_argument("--sessions-dir", default="sessions", help="where sessions are recorded")
    el.add_argument("--resume", metavar="FILE", help="continue this session file")
    el.add_argument("--budget", type=int, help="number of questions")
    el.add_argument("--strategy", help="paper, bisection or probabilistic")
    el.set_defaults(func=cmd_elicit)

    sv = sub.add_parser("serve", help="serve the app to a web browser")
    sv.add_argument("scenario", nargs="?", help="scenario TOML file")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--sessions-dir", default="sessions")
    sv.set_defaults(func=cmd_serve)

    ss = sub.add_parser("session", help="work with recorded sessions")
    ss_sub = ss.add_subparsers(title="session commands", metavar="ACTION", required=True)
    show = ss_sub.add_parser("show", help="participant, answers and the replayed result")
    show.add_argument("file", help="session .jsonl file")
    show.add_argument("--json", action="store_true", help="print one JSON document")
    show.set_defaults(func=cmd_session_show)

    sc = sub.add_parser("scenario", help="work with scenario files")
    sc_sub = sc.add_subparsers(title="scenario commands", metavar="ACTION", required=True)
    check = sc_sub.add_parser("check", help="validate a scenario file and print a summary")
    check.add_argument("file", help="scenario TOML file")
    check.add_argument("--json", action="store_true", help="print one JSON document")
    check.set_defaults(func=cmd_scenario_check)

    sim = sub.add_parser("simulate", help="run the elicitation against simulated stakeholders")
    sim.add_argument("scenario", help="scenario TOML file")
    sim.add_argument("--truth", help="true weights W1,W2,... (default: flat Dirichlet per run)")
    sim.add_argument("--strategy", help="elicitation strategy (default: the scenario's)")
    sim.add_argument("--noise", help="answer noise: exact, flip:P or logistic:T")
    sim.add_argument(
        "--indifference",
        type=float,
        default=0.0,
        metavar="TAU",
        help="answer 'can't tell' when |ψ_A − ψ_B| < TAU",
    )
    sim.add_argument("--budget", type=int, help="maximum number of questions")
    sim.add_argument("--epsilon", type=float, help="target precision of each ratio")
    sim.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    sim.add_argument("--runs", type=int, default=1, help="number of simulated stakeholders")
    sim.add_argument("--json", action="store_true", help="print one JSON document")
    sim.set_defaults(func=cmd_simulate)

    rk = sub.add_parser("rank", help="rank a candidate pool with COPA or a baseline")
    rk.add_argument("pool", help="CSV or Parquet file, one row per model")
    rk.add_argument(
        "--objective",
        action="append",
        metavar="COL:min|max",
        help="an objective column and its direction (repeat for each)",
    )
    rk.add_argument("--name-column", help="column with model names")
    rk.add_argument("--where", help="pandas query selecting the population")
    rk.add_argument("--drop-missing", action="store_true", help="leave out rows with NaN/inf")
    rk.add_argument("--weight", action="append", metavar="COL=W", help="weight of an objective")
    rk.add_argument(
        "--alpha-objective",
        action="append",
        metavar="COL",
        help="objective(s) that share weight α; the others share 1 − α",
    )
    rk.add_argument("--alpha", type=float, help="the weight α (default 0.5)")
    rk.add_argument("--p", default="inf", help="the p of the p-norm: a number ≥ 1 or inf")
    rk.add_argument(
        "--constraint",
        action="append",
        metavar="EXPR",
        help="pandas condition on raw values a selectable model must meet",
    )
    rk.add_argument("--method", choices=["copa", "naive", "delta", "norm"], default="copa")
    rk.add_argument("--top", type=int, default=10, help="how many ranked models to show")
    rk.add_argument("--sweep", type=int, metavar="N", help="sweep N values of α in [0, 1]")
    rk.add_argument("--scenario", help="scenario whose [pool] columns the metric maps onto")
    rk.add_argument("--metric", help="elicited weights W1,W2,... in the scenario's order")
    rk.add_argument("--json", action="store_true", help="print one JSON document")
    rk.set_defaults(func=cmd_rank)

    def selection_arguments(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument("pool", help="CSV or Parquet file of candidate models")
        cmd.add_argument("--session", action="append", metavar="FILE", help="a session (repeat)")
        cmd.add_argument("--scenario", help="scenario file (default: the one in the sessions)")
        cmd.add_argument("--name-column", help="column with model names")
        cmd.add_argument("--p", default="inf", help="the p of COPA's p-norm: a number ≥ 1 or inf")
        cmd.add_argument("--top", type=int, default=10, help="ranked models to report")
        cmd.add_argument("--json", action="store_true", help="print one JSON document")

    sel = sub.add_parser("select", help="from sessions and a pool to a decision")
    selection_arguments(sel)
    sel.add_argument("--tui", action="store_true", help="open the selection screen")
    sel.set_defaults(func=cmd_select)

    rep = sub.add_parser("report", help="write an HTML and Markdown decision report")
    selection_arguments(rep)
    rep.add_argument("--out", required=True, help="output directory")
    rep.set_defaults(func=cmd_report)

    cmp_ = sub.add_parser("compare", help="compare systems: indicators, radar, permutation test")
    cmp_.add_argument("pool", help="CSV or Parquet file, one row per solution")
    cmp_.add_argument("--system", required=True, help="column naming each row's system")
    cmp_.add_argument(
        "--objective",
        action="append",
        metavar="COL:min|max",
        help="an objective column and its direction (repeat)",
    )
    cmp_.add_argument("--seed-col", help="column with the seed of each run (permutation test)")
    cmp_.add_argument("--ref", help="reference point V1,V2,... in the objectives' units")
    cmp_.add_argument(
        "--sigma",
        type=float,
        default=0.1,
        help="niche radius of UD, in units of the joint front's range",
    )
    cmp_.add_argument("--permutations", type=int, default=5000, help="B (default 5000)")
    cmp_.add_argument("--baseline", help="the baseline system (default: the first)")
    cmp_.add_argument("--seed", type=int, default=0, help="seed of the permutations")
    cmp_.add_argument("--radar", metavar="FILE.png", help="write the radar chart")
    cmp_.add_argument("--json", action="store_true", help="print one JSON document")
    cmp_.set_defaults(func=cmd_compare)

    gap = sub.add_parser("gap", help="validation-to-test generalisation of a Pareto front")
    gap.add_argument("pool", help="CSV or Parquet file, one row per configuration")
    gap.add_argument("--validation", required=True, help="validation columns COL,COL")
    gap.add_argument("--test", required=True, help="test columns COL,COL")
    gap.add_argument("--test-file", help="read the test columns from this file instead")
    gap.add_argument("--direction", choices=["min", "max"], default="min")
    gap.add_argument("--ref", help="reference point V1,V2,...")
    gap.add_argument(
        "--drop-point", help="drop configurations whose validation or test point equals this point"
    )
    gap.add_argument("--id-column", help="column naming each configuration")
    gap.add_argument("--group", help="column naming the method of each row; compares methods")
    gap.add_argument("--json", action="store_true", help="print one JSON document")
    gap.set_defaults(func=cmd_gap)

    bench = sub.add_parser("bench", help="run a benchmark and write its table and figure")
    bench.add_argument("name", choices=["elicitation"], help="which benchmark")
    bench.add_argument("--runs", type=int, default=100, help="stakeholders per cell")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--out", default="benchmarks/results", help="output directory")
    bench.set_defaults(func=cmd_bench)
    return parser


def _quiet_stdout() -> None:
    """After a broken pipe: send what is still buffered nowhere, so exit stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _error(text: str) -> None:
    sys.stderr.write("\n".join(clean_text(line) for line in text.split("\n")) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tradeoff`` console script; returns the exit code."""
    from tradeoff.session import SessionWriteError, ignore_file_size_signal

    ignore_file_size_signal()
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0)
    args.argv = argv
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        code = func(args)
        sys.stdout.flush()
        return code
    except InputError as exc:
        _error(exc.renamed(FLAG_NAMES).message())
        return 2
    except UsageError as exc:
        _error(f"tradeoff: {exc}")
        return 2
    except SessionWriteError as exc:
        _error(f"tradeoff: {exc} Free some space or fix the folder, then resume the session.")
        return 1
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
