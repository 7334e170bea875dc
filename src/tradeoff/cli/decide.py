"""``tradeoff select`` and ``tradeoff report``: from recorded sessions and a pool to a decision."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tradeoff.cli.common import UsageError, emit, parse_p, say

if TYPE_CHECKING:
    from tradeoff.scenario import Scenario
    from tradeoff.selection import Selection


def selection(args: argparse.Namespace) -> tuple[Selection, Scenario]:
    """Replay the sessions, load the pool and select: what both commands share."""
    from tradeoff.errors import InputError
    from tradeoff.pool import load_pool
    from tradeoff.ranking import metric_objectives
    from tradeoff.scenario import load_scenario
    from tradeoff.selection import load_stakeholders, select_for_stakeholders

    p = parse_p(args.p)
    if args.top < 1:
        raise UsageError("--top must be at least 1")
    out = getattr(args, "out", None)
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise UsageError(f"--out {out!r} is a file; give a folder for the report")
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
    chosen = select_for_stakeholders(
        scenario,
        stakeholders,
        pool,
        p=p,
        top=args.top,
        exclude_inconsistent=args.exclude_inconsistent,
    )
    return chosen, scenario


def format_selection(chosen: Selection) -> str:
    """The text ``tradeoff select`` prints: picks, the regret matrix and the consensus."""
    from tradeoff.selection import copa_differs

    lines = []
    for s, rec, pick, _ in chosen.rows():
        sure = (
            ""
            if rec.probability is None
            else f" (probability it is the best: {rec.probability:.0%})"
        )
        lines += [f"{s.participant}: recommended {rec.name}{sure}"]
        if rec.trade:
            lines.append(f"  {rec.trade[0].upper()}{rec.trade[1:]}.")
        if s.consistency is not None and s.consistency.flagged:
            lines.append(f"  {s.consistency.sentence()}")
        swing = s.swing_weights or s.weights
        shown = ", ".join(f"{n} {w:.2f}" for n, w in zip(s.names, swing, strict=True))
        lines.append(f"  weights over each aspect's whole range: {shown}")
        if pick.selected.name != rec.name:
            lines.append(f"  {copa_differs(chosen, rec, pick)}")
            lines.append(f"    ({pick.explanation})")
    names = [s.participant for s in chosen.stakeholders]
    if len(names) > 1:
        first = max(len(n) for n in names) + 2
        cells = [max(len(n), 5) + 2 for n in names]
        lines += ["", "regret (row: whose metric; column: whose recommendation)"]
        lines.append(" " * first + "".join(f"{n:>{w}}" for n, w in zip(names, cells, strict=True)))
        for n, row in zip(names, chosen.regret, strict=True):
            values = "".join(f"{r:>{w}.3f}" for r, w in zip(row, cells, strict=True))
            lines.append(f"{n:<{first}}" + values)
    lines += [
        "",
        f"consensus: {chosen.consensus_name} (largest regret "
        f"{chosen.consensus_max_regret:.3f}; rule: {chosen.consensus_rule})",
        f"COPA with the averaged ω picks: {chosen.average_pick.selected.name}",
    ]
    return "\n".join(lines)


def cmd_select(args: argparse.Namespace) -> int:
    chosen, scenario = selection(args)
    if args.tui:
        from tradeoff.tui.select import run_selection_app

        run_selection_app(chosen, scenario)
        return 0
    if args.json:
        emit(chosen.to_dict())
    else:
        say(format_selection(chosen))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    import shlex

    from tradeoff.report import write_report

    chosen, scenario = selection(args)
    command = "tradeoff " + " ".join(shlex.quote(a) for a in args.argv)
    html_path, md_path = write_report(chosen, scenario, args.out, command=command)
    if args.json:
        emit({"html": str(html_path), "markdown": str(md_path), "consensus": chosen.consensus_name})
    else:
        say(f"report written: {html_path} and {md_path}")
    return 0
