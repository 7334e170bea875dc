"""``tradeoff pool rank``: a pool ranked by COPA or a baseline, or by an elicited metric."""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from tradeoff.cli.common import (
    UsageError,
    emit,
    floats,
    objectives,
    parse_p,
    prose_width,
    say,
    terminal_width,
)
from tradeoff.cli.per_unit import say_swing_shares

if TYPE_CHECKING:
    from tradeoff.choose.rank import RankOutcome

MAX_SWEEP = 100_001
"""The most values of α ``--sweep`` takes (checked as the command line is parsed)."""


def parse_weights(items: Sequence[str]) -> dict[str, float]:
    """``--weight COL=W`` options as numbers by column (their values are checked by
    :func:`tradeoff.choose.rank.weights_from_options`)."""
    out: dict[str, float] = {}
    for item in items:
        col, sep, value = item.rpartition("=")
        if not sep or not col:
            raise UsageError(f"--weight looks like COL=W, got {item!r}")
        try:
            out[col] = float(value)
        except ValueError:
            raise UsageError(f"--weight {item!r}: W must be a number") from None
    return out


def selected_lines(outcome: RankOutcome) -> list[str]:
    """The selected model under its name, then its explanation one indented clause a line
    (:func:`tradeoff.choose.rank.explain`: "top-18% on recall (0.93; best 0.96, median
    0.92)"), as an 80-column terminal shows it."""
    return [f"Selected: {outcome.selected.name}", *(f"  {c}" for c in outcome.clauses)]


def format_rank(
    outcome: RankOutcome,
    labels: Mapping[str, str] | None = None,
    noun: str = "model",
    width: int = 80,
    table_width: int | None = None,
) -> str:
    """The text ``tradeoff pool rank`` prints (practitioner's view: û as top-%, ω, p, Pareto).

    ``labels`` names the columns as people read them (:attr:`tradeoff.pool.Pool.labels`);
    ``noun`` one of the pool's options ("option" where a scenario describes them by their
    aspects alone: :func:`~tradeoff.ask.words.option_noun`). Sentences are broken between
    words to fit ``width`` columns (:func:`~tradeoff.text.fit_lines`); table rows are kept
    whole and fit ``table_width`` (the terminal's width; ``width`` if not given), as
    :func:`_table` lays them out.
    """
    from tradeoff.choose.words import omega_mapping_words, order_words, top_words
    from tradeoff.text import fit_lines

    def prose(*texts: str) -> list[str]:
        return [line for text in texts for line in fit_lines(text, width).split("\n")]

    p = "inf" if math.isinf(outcome.p) else f"{outcome.p:g}"
    lines = []
    if outcome.recommended is not None:
        rec = outcome.recommended
        lines += prose(
            f"Recommended by the metric: {rec.name} (the selectable {noun} of highest ψ)"
        )
        if rec.trade:
            lines += prose(f"  {rec.trade[0].upper()}{rec.trade[1:]}.")
        mapping = outcome.linear.omega_mapping if outcome.linear is not None else "swing"
        lines += ["", *prose(omega_mapping_words(mapping, noun))]
    lines += prose(
        f"{outcome.selectable} selectable of {outcome.n} {noun}s; "
        f"{outcome.pareto_count} Pareto-optimal",
        f"method {outcome.method}, p = {p}, ω = [{', '.join(f'{w:.3g}' for w in outcome.weights)}]",
        order_words(outcome.method),
        top_words(noun),
    )
    lines += _table(outcome, labels, noun, width if table_width is None else table_width)
    lines += ["", *prose(*selected_lines(outcome))]
    if outcome.linear is not None:
        lin = outcome.linear
        lines += prose(
            f"Linear metric picks {lin.selected}; Kendall τ with COPA {lin.kendall_tau:.3f}; "
            f"same top pick: {'yes' if lin.top_match else 'no'}"
        )
    if outcome.sweep is not None:
        lines += [
            "",
            *prose(
                f"alpha sweep ({len(outcome.sweep)} values of α; each {noun} it picks, as in "
                "paper 000 Table 2):"
            ),
            f"  {'α from–to':<11}  {'û α':>5}  {'û rest':>6}  {noun}",
        ]
        for s in outcome.sweep_picks:
            lines.append(
                f"  {s.alpha_min:.3f}–{s.alpha_max:.3f}  {s.u_group:5.2f}  {s.u_rest:6.2f}  "
                f"{s.name}"
            )
        lines += prose(
            f"  û α: the share of {noun}s better on what α weighs;",
            f"  û rest: the same for the other objectives (their equally weighted p-norm, "
            f"p = {p}).",
        )
    lines += prose(*(f"warning: {w}" for w in outcome.warnings))
    return "\n".join(lines)


def _table(
    outcome: RankOutcome, labels: Mapping[str, str] | None, noun: str, room: int
) -> list[str]:
    """:func:`format_rank`'s table, one row a model, to fit ``room`` columns: each objective
    under its whole name (cut to a fixed width, recall_class_0, _1 and _2 all read
    "recall_class"), over two lines where the rows would not fit, and where they still
    would not, each model's name on a line of its own under its row."""
    from tradeoff.choose.copa import tied, top_percent
    from tradeoff.text import cut

    cols = list(outcome.selected.u)
    heads = [(labels or {}).get(c, c) for c in cols]
    name_width = min(60, max(12, *(len(r.name) for r in outcome.ranking)))
    uppers = [""] * len(heads)
    widths = [max(len("top-100%"), len(c)) for c in heads]
    if _row_width(name_width, widths) > room:
        split = [_two_lines(c) for c in heads]
        uppers, heads = [u for u, _ in split], [c for _, c in split]
        widths = [max(len("top-100%"), len(u), len(c)) for u, c in split]
    below = _row_width(name_width, widths) > room
    if below:  # the names under the rows, as wide as the terminal leaves them
        name_width = max(12, room - 5)
    lead = f"{'':>3}  " + ("" if below else f"{'':<{name_width}}  ") + f"{'':>7}   "
    upper = lead + "  ".join(f"{c:>{w}}" for c, w in zip(uppers, widths, strict=True))
    lines = [upper.rstrip()] if upper.strip() else []
    lines.append(
        f"{'#':>3}  "
        + ("" if below else f"{cut(noun, name_width):<{name_width}}  ")
        + f"{'score':>7}   "
        + "  ".join(f"{c:>{w}}" for c, w in zip(heads, widths, strict=True))
        + "  pareto"
    )
    if below:
        lines.append(f"{'':>3}  {noun}")
    ties = tied([r.score for r in outcome.ranking])
    for i, (r, tie) in enumerate(zip(outcome.ranking, ties, strict=True), 1):
        tops = "  ".join(
            f"{'top-' + str(top_percent(r.u[c])) + '%':>{w}}"
            for c, w in zip(cols, widths, strict=True)
        )
        name = cut(r.name, name_width)  # a cut name ends in "…": never read as a whole one
        lines.append(
            f"{i:>3}  "
            + ("" if below else f"{name:<{name_width}}  ")
            + f"{r.score:7.4f}{'=' if tie else ' '}  {tops}  {'yes' if r.pareto else ''}"
        )
        if below:
            lines.append(f"{'':>3}  {name}")
    return lines


def _row_width(name_width: int, widths: Sequence[int]) -> int:
    """How wide a row of :func:`format_rank`'s table is: rank, name, score, one column per
    objective, "pareto"."""
    return 3 + 2 + name_width + 2 + 7 + 3 + sum(widths) + 2 * (len(widths) - 1) + 8


def _two_lines(name: str) -> tuple[str, str]:
    """An objective's name over two lines, split after the "_", "-" or space nearest its
    middle (a name without one, in two halves).

    >>> _two_lines("recall_malignant"), _two_lines("recall_class_0"), _two_lines("CO2 (kg)")
    (('recall_', 'malignant'), ('recall_', 'class_0'), ('CO2', '(kg)'))
    >>> _two_lines("cost")
    ('co', 'st')
    """
    ends = [i + 1 for i, ch in enumerate(name[:-1]) if ch in "_- "]
    cut_at = min(ends, key=lambda i: (abs(2 * i - len(name)), i)) if ends else len(name) // 2
    return name[:cut_at].rstrip(" "), name[cut_at:]


def _check(args: argparse.Namespace) -> None:
    """What only the command line can check: which options go together. The size of an α
    sweep is refused as the command line is parsed (``--sweep``: 2 to :data:`MAX_SWEEP`);
    values are checked by the core (:mod:`tradeoff.choose.rank`), whose errors name its
    parameters; ``main`` maps them to these flags."""
    if args.scenario and not args.metric:
        raise UsageError("--scenario needs --metric W1,W2,... (the elicited weights)")
    if args.metric and not args.scenario:
        raise UsageError("--metric needs --scenario (to map weights onto the pool)")
    if not args.objective and not args.scenario:
        raise UsageError(
            "give at least one --objective COL:min|max, or --scenario FILE --metric "
            "W1,W2,... to rank by elicited weights"
        )
    if args.objective and args.scenario:
        raise UsageError(
            "give --objective or --scenario, not both: with --scenario the objectives are "
            "the columns of the scenario's [pool]"
        )


def cmd_rank(args: argparse.Namespace) -> int:
    import numpy as np

    from tradeoff.ask.words import option_noun
    from tradeoff.choose.pool_metric import metric_objectives
    from tradeoff.choose.rank import RankOptions, rank_pool, rank_with_metric, weights_from_options
    from tradeoff.pool import load_pool

    p = parse_p(args.p)
    _check(args)
    alphas = None if args.sweep is None else np.linspace(0.0, 1.0, args.sweep).tolist()
    common = RankOptions(
        p=p,
        method=args.method,
        reference=args.reference,
        constraints=args.constraint or [],
        top=args.top,
        sweep_group=args.alpha_objective or [],
        sweep_alphas=alphas,
    )
    noun = "model"  # a pool ranked by its own columns: its rows are models
    if args.scenario:
        from tradeoff.ask.population import scenario_priors
        from tradeoff.ask.scenario import load_scenario

        scenario = load_scenario(args.scenario).scenario
        noun = option_noun(scenario)
        metric = floats(args.metric, "--metric")
        say_swing_shares(metric, scenario, "--metric")
        pool = load_pool(
            args.pool,
            metric_objectives(scenario),
            name_column=args.name_column or (scenario.pool.name_column if scenario.pool else None),
            where=args.where,
            drop_missing=args.drop_missing,
        )
        outcome = rank_with_metric(pool, scenario, metric, scenario_priors(scenario), **common)
    else:
        pool = load_pool(
            args.pool,
            objectives(args.objective),
            name_column=args.name_column,
            where=args.where,
            drop_missing=args.drop_missing,
        )
        weights = weights_from_options(
            pool, parse_weights(args.weight or []), args.alpha_objective or [], args.alpha
        )
        outcome = rank_pool(pool, weights=weights, **common)
    if args.json:
        emit(outcome.to_dict())
    else:
        say(format_rank(outcome, pool.labels, noun, prose_width(), terminal_width()))
    return 0
