"""``tradeoff judge compare`` (paper 003 indicators, paper 002 permutation test) and
``tradeoff judge gap`` (paper 001's optimistic and pessimistic fronts)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tradeoff.cli.common import (
    UsageError,
    emit,
    objectives,
    point,
    prose_width,
    say,
    writable_file,
)

if TYPE_CHECKING:
    from tradeoff.judge import GapReport, SystemComparison


def format_comparison(comparison: SystemComparison, radar: str | None, width: int = 80) -> str:
    """The text ``tradeoff judge compare`` prints: the table, the radar, the tests, warnings;
    its sentences broken between words to fit ``width`` columns (the table and the radar
    keep theirs)."""
    from tradeoff.judge.render import measurement_table, radar_text
    from tradeoff.text import fit_lines

    how_hv = (
        "HV (radar) is HV itself, paper 003's convention for objectives in [0, 1]"
        if comparison.hv_scale == "raw"
        else "HV (radar) is HV divided by the box from the joint ideal point to the reference"
    )
    lines = [measurement_table(comparison.rows), fit_lines(how_hv + ".", width)]
    lines += ["", radar_text(comparison.rows)]
    said = []
    for t in comparison.tests:
        how = f"all {t.permutations} splits" if t.exact else f"B = {t.permutations}"
        said.append(
            f"\npermutation test: {t.candidate} vs {t.baseline}: ΔHV = {t.delta:.6g}, "
            f"p = {t.p_value:.4g} ({how})"
        )
    said += [f"warning: {w}" for w in comparison.warnings]
    if radar:
        said.append(f"radar chart written to {radar}")
    return "\n".join(lines + [fit_lines(line, width) for line in said])


def cmd_compare(args: argparse.Namespace) -> int:
    from tradeoff.judge import compare_systems
    from tradeoff.judge.render import radar_png
    from tradeoff.pool import load_pool

    objs = objectives(args.objective)  # --permutations, --seed: checked as parsed
    if not (args.sigma > 0 and math.isfinite(args.sigma)):
        raise UsageError("--sigma must be a positive finite number")
    if args.radar:
        writable_file(args.radar, "--radar")
    pool = load_pool(args.pool, objs, name_column=args.system, unique_names=False)
    comparison = compare_systems(
        pool,
        ref=point(args.ref, "--ref", len(objs)),
        sigma=args.sigma,
        hv_scale=args.hv_scale,
        seed_column=args.seed_col,
        baseline=args.baseline,
        permutations=args.permutations,
        seed=args.seed,
    )
    data = comparison.to_dict()
    if args.radar:
        radar_png(comparison.rows, args.radar, title=Path(args.pool).name)
        data["radar"] = args.radar
    if args.json:
        emit(data)
    else:
        say(format_comparison(comparison, args.radar, prose_width()))
    return 0


def format_gaps(report: GapReport, width: int = 80) -> str:
    """The text ``tradeoff judge gap`` prints, broken between words to fit ``width``
    columns; with several methods, each one's findings under its name, and each pair's
    comparison one finding a line."""
    from tradeoff.text import fit_lines

    lines = []
    several = len(report.results) > 1
    for g, r in report.results.items():
        head = "  " if several else ""  # each method's findings under its name
        lines += [f"{g}:"] if several else []
        lines += [
            f"{head}validation HV {r.validation_hv:.4f}, optimistic HV {r.optimistic_hv:.4f}, "
            f"pessimistic HV {r.pessimistic_hv:.4f}, gap {r.gap:.4f}",
            f"{head}validation Pareto set: {', '.join(r.validation_pareto)}",
            f"{head}optimistic: {', '.join(r.optimistic)}",
            f"{head}pessimistic: {', '.join(r.pessimistic)}",
        ]
        if r.dropped:
            lines.append(f"{head}dropped ({len(r.dropped)}): {', '.join(r.dropped)}")
    if several:
        for c in report.comparisons():
            lines += [
                f"{c['a']} vs {c['b']}:",
                f"  smaller gap: {c['smaller_gap']}",
                f"  {c['a']} pessimistic HV above {c['b']} optimistic: "
                f"{c['a_pessimistic_above_b_optimistic']}",
                "  pessimistic front dominates optimistic: "
                f"{c['a_pessimistic_dominates_b_optimistic']}",
            ]
    return "\n".join(fit_lines(line, width) for line in lines)


def cmd_gap(args: argparse.Namespace) -> int:
    from tradeoff.errors import InputError
    from tradeoff.judge import gaps
    from tradeoff.pool import Objective, Pool, load_pool

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

    def table(source: str, cols: list[str]) -> Pool:
        return load_pool(
            source,
            [Objective(c, direction) for c in cols],
            name_column=args.id_column,
            unique_names=False,
        )

    val_pool = table(args.pool, val_cols)
    test_pool = table(args.test_file or args.pool, test_cols)
    ids = [str(x) for x in val_pool.names]
    frame = val_pool.frame
    if args.id_column is None and "config_id" in frame.columns:
        ids = [str(x) for x in frame["config_id"]]
    groups = None
    if args.group:
        if args.group not in frame.columns:
            raise InputError.single(
                args.pool,
                f"column {args.group!r}",
                "not found.",
                "name the column that says which method ran each row.",
            )
        groups = [str(g) for g in frame[args.group]]
    d = len(val_cols)
    report = gaps(
        val_pool,
        test_pool,
        ids=ids,
        groups=groups,
        ref=point(args.ref, "--ref", d),
        drop_point=point(args.drop_point, "--drop-point", d),
    )
    if args.json:
        emit(report.to_dict())
    else:
        say(format_gaps(report, prose_width()))
    return 0
