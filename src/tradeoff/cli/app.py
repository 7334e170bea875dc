"""The app and its sessions: ``tradeoff`` (no command), ``tradeoff elicit`` and ``tradeoff
session show``."""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from tradeoff.ask.strategies import STRATEGY_NAMES
from tradeoff.cli.common import (
    UsageError,
    default_scenario,
    emit,
    say,
    scenarios_dir,
)

if TYPE_CHECKING:
    from tradeoff.ask.scenario import SpecOverrides
    from tradeoff.pool import Pool
    from tradeoff.record.summary import SessionSummary
    from tradeoff.study.folder import Study


def has_terminal() -> bool:
    """Whether the app can draw: a terminal on stdin and stdout."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _run_app(
    scenario: str | None,
    *,
    participant: str | None = None,
    sessions_dir: str = "sessions",
    resume: str | None = None,
    overrides: SpecOverrides | None = None,
    study: Study | None = None,
) -> int:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.record.log import read_session
    from tradeoff.record.recorder import check_sessions_dir
    from tradeoff.record.records import check_participant

    path = Path(scenario) if scenario else default_scenario()
    log = None
    if resume is not None:
        log = read_session(resume)  # a bad file is reported before the screen opens
    else:
        load_scenario(path)
        check_sessions_dir(sessions_dir)
    if participant is not None:
        check_participant(participant)
    if not has_terminal():
        raise UsageError(
            "the app needs a terminal (standard input and output are not one here); run it in "
            "a terminal, or use 'tradeoff simulate' for answers without a person"
        )
    from tradeoff.tui import make_app

    app = make_app(
        path,
        scenarios_dir=scenarios_dir() if scenario is None else None,
        sessions_dir=sessions_dir,
        participant=participant,
        resume=resume,
        resume_log=log,
        overrides=overrides,
        study=study,
    )
    app.run()
    if app.farewell is not None:
        text, line = app.farewell
        say(textwrap.fill(text, width=min(100, shutil.get_terminal_size().columns)))
        if line:
            say(line)  # whole, never wrapped: a file name or command to copy
    return app.return_code or 0


def cmd_default(args: argparse.Namespace) -> int:
    """``tradeoff`` with no arguments: the start screen on the default scenario."""
    return _run_app(None)


def overrides(strategy: str | None, budget: int | None) -> SpecOverrides:
    """The elicitation settings given on the command line (the budget's range checked by
    the parser, :func:`tradeoff.cli.numbers.whole`)."""
    from tradeoff.ask.scenario import SpecOverrides

    if strategy is not None and strategy not in STRATEGY_NAMES:
        raise UsageError(f"unknown strategy {strategy!r}; known: {', '.join(STRATEGY_NAMES)}")
    return SpecOverrides.model_validate({"strategy": strategy, "budget": budget})


def cmd_elicit(args: argparse.Namespace) -> int:
    if args.study is not None:
        if args.scenario or args.participant or args.resume:
            raise UsageError(
                "--study takes the scenario from the study and the participant from the "
                "access code; give neither a scenario, --participant nor --resume"
            )
        from tradeoff.cli.nearby import open_study

        study = open_study(args.study)
        from tradeoff.cli.arms import refuse_language_arms

        refuse_language_arms(study)
        return _run_app(
            str(study.scenario_path),
            sessions_dir=str(study.sessions_dir),
            overrides=overrides(args.strategy, args.budget),
            study=study,
        )
    return _run_app(
        args.scenario,
        participant=args.participant,
        sessions_dir=args.sessions_dir,
        resume=args.resume,
        overrides=overrides(args.strategy, args.budget),
    )


def recorded_candidates(summary: SessionSummary) -> tuple[Pool, tuple[str, ...]] | None:
    """The pool a session's recorded candidates are found in and their names
    (:func:`~tradeoff.choose.candidates.recorded_pool`), searched for once per
    ``session show``."""
    from tradeoff.choose.candidates import recorded_pool

    h = summary.log.header
    return recorded_pool(h.scenario, h.candidate_array(), summary.result.priors, h.scenario_path)


def noise_sentences(
    summary: SessionSummary, found: tuple[Pool, tuple[str, ...]] | None
) -> list[str]:
    """What ``session show`` says of a pool's measurement noise beside the pick the
    questions stopped on: why it is not the model that measured best, on how many cases
    each was measured, and the models within measurement noise of it
    (:func:`~tradeoff.choose.measurement_words.stop_sentences`, the words the app, the
    report and the study page's review use); none for a pool whose numbers are exact.
    ``found``: :func:`recorded_candidates`."""
    from tradeoff.choose.measurement_words import session_recommendation, stop_sentences

    h, r, v = summary.log.header, summary.result, summary.verdict
    if v is None or (v.measured_best is None and summary.measured is None):
        return []
    rows = h.candidate_array()
    count = 0 if rows is None else len(rows)
    called = list(found[1]) if found else [f"candidate {i + 1}" for i in range(count)]
    rec = None
    if found is not None:
        rec = session_recommendation(
            h.scenario,
            h.scenario_path,
            rows,
            r.weights,
            r.priors,
            summary.posterior,
            summary.measured,
            found[0],
        )
    return stop_sentences(v, called, rec)


def format_session(summary: SessionSummary) -> str:
    """The text ``tradeoff session show`` prints: who and what, each weight with its 90%
    interval (or that no answer asked about it), the trade-offs under headings that say
    whether the answers settled them, and the consistency check; a session whose questions
    were not finished is said to be provisional."""
    from tradeoff.ask.words import not_asked_words, tradeoff_headings
    from tradeoff.choose.range_words import outside_range_words
    from tradeoff.choose.words import stated_words, unfinished_words
    from tradeoff.learn.shares import left_out_words
    from tradeoff.stable import whole_percents
    from tradeoff.text import line_spans

    h, r = summary.log.header, summary.result
    lines = [
        str(summary.log.path),
        f"participant {h.participant}, scenario {h.scenario.id}, strategy {h.strategy}, "
        f"started {h.started}",
        f"answers {summary.answers} (recorded {summary.recorded}, undos {summary.undos}), "
        f"complete: {'yes' if summary.log.finished else 'no'}",
    ]
    if (source := summary.source) is not None:
        where = f" {line_spans(source['lines'])}" if source["lines"] else ""
        lines.append(
            f"the answers are choices recorded elsewhere, read from {source['file']}{where} "
            f"(SHA-256 {source['sha256'][:12]}…)"
        )
    if checks := summary.log.checks:
        failed = [str(c.position) for c in checks if c.failed]
        lines.append(
            f"attention checks: {len(checks)} shown, never learned from; "
            + (f"failed before question {', '.join(failed)}" if failed else "all passed")
        )
    if not r.complete:
        lines.append(
            unfinished_words(
                summary.answers, what="these weights, and any pick made from them, are"
            )
        )
    v = summary.verdict
    if v is None and h.scenario.pool is not None:
        lines.append(
            "No pick here: the questions were not aimed at the pool's models (the session "
            "records none). tradeoff pick --session FILE picks from these weights."
        )
    if v is not None:
        found = recorded_candidates(summary)
        names = None if found is None else found[1]
        pick = names[v.pick] if names else f"candidate {v.pick + 1} of the recorded pool"
        tied = [names[i] if names else f"candidate {i + 1}" for i in v.tied]
        said = stated_words(
            pick,
            v.p_best,
            v.p_near,
            tied if v.practically_tied else (),
            classes=bool(h.scenario.classes),
        )
        stopped = "stopped on" if r.complete else "stand on now"
        if summary.source is None:
            lines.append(f"The pick the questions {stopped}: {pick} ({said}).")
        else:  # no question was asked: the answers were read from a file
            lines.append(f"The pick these choices make: {pick} ({said}).")
        if found is not None:
            lines.append(
                f"It is one of the {len(found[1])} models of {Path(found[0].source).name}, the "
                "pool the session was learned with; tradeoff pick POOL --session FILE picks "
                "from another."
            )
        if found is not None and (
            outside := outside_range_words(h.scenario, found[0].values[v.pick], pick)
        ):
            lines.append(outside)  # as the app's result, pick and the report say it
        lines += noise_sentences(summary, found)  # as the app, the report and the page say them
        if v.one_answer:
            lines.append(v.rests_words(r.names, summary.voice))
    # The names' column as wide as the longest (at most 16): the table fits 80 columns.
    wide = min(16, max(len(n) for n in r.names))
    lines.append(
        f"  {'':<{wide}} {'per unit (3 significant digits)':<36} over its whole range (swing)"
    )
    # Swing weights as the review shows them: shares of the asked aspects only.
    shares = summary.shares
    # The shares are parts of one whole: rounded so that the shown ones add up to 100 %.
    if shares is not None:
        whole = whole_percents(shares.values, decimals=1)
    else:
        swing = r.swing_weights
        whole = (None,) * len(r.names) if swing is None else whole_percents(swing, decimals=1)
    for i, name in enumerate(r.names):
        if not r.informed(i):  # the starting guess, not something the person said
            lines.append(f"  {name:<{wide}} {not_asked_words(summary.voice)}")
            continue
        # per-unit weights of small units (per ms, per KB) are tiny: significant digits,
        # not decimals (0.0000 said nothing); swing weights as the review shows them
        line = f"  {name:<{wide}} {r.weights[i]:<9.3g}"
        if r.intervals is not None:
            lo, hi = r.intervals[i]
            line += f" 90% [{lo:.3g}, {hi:.3g}]".ljust(27)
        else:
            line += " " * 27
        if shares is not None:
            share, span = shares.values[i], shares.intervals[i]
        else:
            share = None if r.swing_weights is None else r.swing_weights[i]
            span = None if r.swing_intervals is None else r.swing_intervals[i]
        if share is not None:
            line += f"  {whole[i] or f'{share:.1%}':>5}"
        if span is not None:
            line += f" 90% [{span[0]:.1%}, {span[1]:.1%}]"
        lines.append(line)
    if shares is not None and (left_out := left_out_words(shares, r.names, summary.voice)):
        lines.append(f"  {left_out}")
    for heading, settled in zip(tradeoff_headings(summary.voice), (True, False), strict=True):
        group = [t.text for t in summary.said if t.settled is settled]
        if group:
            lines.append(f"{heading}:")
            lines += [f"  • {text}" for text in group]
    if summary.threshold_sentence:
        lines.append(summary.threshold_sentence)
    if summary.consistency is not None:
        lines.append(summary.consistency.sentence())
    lines += [f"warning: {w}" for w in summary.log.warnings]
    return "\n".join(lines)


def cmd_session_show(args: argparse.Namespace) -> int:
    from tradeoff.choose.range_words import outside_range_words
    from tradeoff.record.summary import summarise
    from tradeoff.study.cache import command_population

    summary = summarise(args.file, populations=command_population)
    if args.json:
        data = summary.to_dict()
        if "pick" in data:  # the sentences on the measurement noise, as the text says them
            found = recorded_candidates(summary)
            data["pick"]["measurement_noise_sentences"] = noise_sentences(summary, found)
            if found is not None:  # the model's name, and the pool it is one of
                index = data["pick"]["candidate"]
                data["pick"]["name"] = found[1][index]
                data["pick"]["pool"] = found[0].source
                data["pick"]["outside_ranges_sentence"] = outside_range_words(
                    summary.log.header.scenario, found[0].values[index], found[1][index]
                )
        emit(data)
    else:
        say(format_session(summary), wrap=True)
    return 0
