"""``tradeoff select`` and ``tradeoff report``: from recorded sessions (and a pool, or the
one the scenario names) to a decision. The work is :func:`tradeoff.decide.decide`."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tradeoff.cli.common import UsageError, emit, parse_p, say

if TYPE_CHECKING:
    from tradeoff.decide import Decision
    from tradeoff.selection import Selection

#: Suffixes of pool files: a session argument with one of these was meant as the pool.
POOL_SUFFIXES = (".csv", ".parquet", ".pq")


def check_out(out: str | None) -> None:
    """A report folder: refused before any work when it is a file or lies below one
    (``/dev/null``, ``/dev/null/x``), or exists and cannot be written to; nothing is made
    here (a folder that cannot be made is reported when the report is written)."""
    if out is None:
        return
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise UsageError(f"--out {out!r} is a file; give a folder for the report")
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"--out {out!r} lies below the file {str(parent)!r}")
            break
    if p.is_dir() and not os.access(p, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out!r}: the folder cannot be written to; give another folder")


def decision(args: argparse.Namespace) -> Decision:
    """The decide step for ``select`` and ``report``: the options as the core takes them."""
    from tradeoff.decide import decide

    sessions: list[str] = args.session or []
    if args.pool is None:
        meant = next((s for s in sessions if Path(s).suffix.lower() in POOL_SUFFIXES), None)
        if meant is not None:
            raise UsageError(
                f"--session {meant!r} looks like a pool file; give the pool first: "
                f"tradeoff {(getattr(args, 'argv', None) or ['select'])[0]} POOL --session FILE ..."
            )
    return decide(
        sessions,
        args.pool,
        scenario=args.scenario,
        name_column=args.name_column,
        p=parse_p(args.p),
        top=args.top,
        exclude_inconsistent=args.exclude_inconsistent,
    )


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
    chosen = decision(args)
    if args.tui:
        from tradeoff.tui.select import run_selection_app

        run_selection_app(chosen.selection, chosen.scenario)
        return 0
    if args.json:
        emit(chosen.to_dict())
    else:
        say(format_selection(chosen.selection))
    return 0


def write_report(chosen: Decision, out: str, argv: Sequence[str], *, json: bool) -> int:
    """Write the decision report into ``out`` and say where (the one report writer of
    ``tradeoff report`` and ``tradeoff study report``)."""
    import shlex

    from tradeoff.report import write_report as write

    command = "tradeoff " + " ".join(shlex.quote(a) for a in argv)
    check_out(out)
    try:
        html_path, md_path = write(chosen.selection, chosen.scenario, out, command=command)
    except OSError as exc:
        raise UsageError(
            f"--out {out!r}: the report could not be written ({exc.strerror or exc}); give "
            "a folder you can write to, with room for a few megabytes"
        ) from None
    if json:
        emit({"html": str(html_path), "markdown": str(md_path), "consensus": chosen.consensus})
    else:
        say(f"report written: {html_path} and {md_path}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    check_out(args.out)
    return write_report(decision(args), args.out, args.argv, json=args.json)
