"""``tradeoff choices``: learn from choices people made elsewhere (a finished survey or a
study run in another tool), with the engine's own posterior and answer model
(:mod:`tradeoff.study.choices`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tradeoff.cli.common import emit, say
from tradeoff.text import count, plain_number

if TYPE_CHECKING:
    from tradeoff.study.choices import ChoiceTable


def cmd_choices_predict(args: argparse.Namespace) -> int:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.choices import alike_lines, predict_file, read_choices, worse_lines

    loaded = load_scenario(args.scenario)
    sc = loaded.scenario
    train = read_choices(args.train, sc, answers=True, scenario_path=loaded.path)
    holdout = read_choices(args.holdout, sc, answers=False, scenario_path=loaded.path)
    done = predict_file(sc, train, holdout, args.out, seed=args.seed, pooled=args.pooled)
    alike = alike_lines(train)
    worse = worse_lines(train, sc)
    n, pooled = done.rows, done.pooled
    people = len(holdout.people())
    taught = set(train.people())
    unseen = len(set(holdout.people()) - taught)
    if args.json:
        emit(
            {
                "out": str(args.out),
                "rows": n,
                "people": people,
                "people_without_train": unseen,
                "people_pooled": pooled,
                "base_share": done.share,
                "train_people": len(taught),
                "train_lines_alike": alike,
                "train_lines_chose_worse": worse,
            }
        )
        return 0
    say(f"{count(n, 'prediction')} for {count(people, 'person', 'people')} written to {args.out}.")
    if pooled:
        say(
            f"{pooled:,} of them started from the population prior learnt from the other "
            f"people of {args.train} ({count(len(taught), 'person', 'people')} in it; the "
            f"engine's own prior is {plain_number(100 * (done.share or 0.0))}% of it, as "
            "their choices give it).",
            wrap=True,
        )
    if args.pooled and pooled < people:
        say(
            f"{people - pooled:,} of them had no one else in {args.train} to learn from and "
            "started from the engine's own prior.",
            wrap=True,
        )
    _say_alike(args.train, alike)
    _say_worse(args.train, worse, _answered(train))
    if unseen:
        whose = "the population prior's" if args.pooled else "the prior's"
        have = "has" if unseen == 1 else "have"
        say(
            f"{unseen:,} of them {have} no choices in {args.train}: their p_A is {whose}.",
            wrap=True,
        )
    return 0


def _answered(table: ChoiceTable) -> int:
    """How many rows of ``table`` chose A or B (not "can't tell")."""
    from tradeoff.learn.base import Choice

    return sum(r.choice in (Choice.LEFT, Choice.RIGHT) for r in table.rows)


def _named(lines: list[int]) -> str:
    """ "line 4", "lines 4 and 9", or "lines 4, 9, 12, 20, 31 and 3 more" (the first five).

    >>> _named([4, 9, 12])
    'lines 4, 9 and 12'
    """
    if len(lines) == 1:
        return f"line {lines[0]}"
    shown = [str(n) for n in lines[:5]]
    if len(lines) > 5:
        return f"lines {', '.join(shown)} and {len(lines) - 5:,} more"
    return f"lines {', '.join(shown[:-1])} and {shown[-1]}"


def _say_alike(path: str, lines: list[int]) -> None:
    """Say which rows of ``path`` show two options the same on every aspect (none: nothing)."""
    if not lines:
        return
    one = len(lines) == 1
    say(
        f"{count(len(lines), 'row')} of {path} ({_named(lines)}) "
        f"{'shows' if one else 'show'} two options the same on every aspect: "
        f"{'the answer there says' if one else 'the answers there say'} nothing of what "
        "matters to the person, only how they answer between equals.",
        wrap=True,
    )


def _say_worse(path: str, lines: list[int], answered: int) -> None:
    """Say which rows of ``path`` chose an option worse on every aspect the two differ on
    (:func:`~tradeoff.study.choices.worse_lines`; none: nothing)."""
    if not lines:
        return
    share = plain_number(100 * len(lines) / max(answered, 1))
    say(
        f"{len(lines):,} of {count(answered, 'choice')} in {path} ({_named(lines)}: "
        f"{share}%) took the option that is no better on any aspect and worse on at least "
        "one: a slip, or something that mattered to the person is not in the file. The "
        "engine reads them as it reads every answer "
        "(its answer model allows slips); if there are many, check how the file was made.",
        wrap=True,
    )


def cmd_choices_fit(args: argparse.Namespace) -> int:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.choices import alike_lines, fit_file, read_choices, worse_lines

    loaded = load_scenario(args.scenario)
    train = read_choices(args.train, loaded.scenario, answers=True, scenario_path=loaded.path)
    files = fit_file(loaded, train, args.sessions_dir, seed=args.seed, summary=args.summary)
    alike = alike_lines(train)
    worse = worse_lines(train, loaded.scenario)
    if args.json:
        emit(
            {
                "sessions": [str(f) for f in files],
                "lines_alike": alike,
                "lines_chose_worse": worse,
                "summary": args.summary,
            }
        )
        return 0
    say(f"{count(len(files), 'session')} written under {args.sessions_dir}:")
    for f in files:
        say(f"  {f}")
    if args.summary is not None:
        say(f"A row per person (their shares and ranges) written to {args.summary}.")
    _say_alike(args.train, alike)
    _say_worse(args.train, worse, _answered(train))
    sc = loaded.scenario
    if sc.pool is not None:
        say("Read them with tradeoff session show FILE, tradeoff pick --session FILE ….")
    else:
        columns = ", ".join(sc.weight_names)
        say(
            f"Read them with tradeoff session show FILE. The scenario {sc.id!r} names no "
            "pool of options to choose from, so give one to pick and report: tradeoff pick "
            f"POOL.csv --session FILE …, POOL.csv holding a row per option with a name "
            f"column (model or name) and the columns {columns}.",
            wrap=True,
        )
    return 0
