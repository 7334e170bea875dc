"""``tradeoff pick`` and ``tradeoff report``: from recorded sessions (and a pool, or the
one the scenario names) to a decision. The work is :func:`tradeoff.choose.decide.decide`."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from tradeoff.cli.common import UsageError, emit, parse_p, say

if TYPE_CHECKING:
    from tradeoff.choose.decide import Decision
    from tradeoff.pool.mlflow_pick import RecordedDecision
    from tradeoff.pool.model_sources import SklearnSource
    from tradeoff.pool.optuna_pick import RecordedPick
    from tradeoff.pool.sklearn_pick import RecordedEstimator

#: Suffixes of pool files: a session argument with one of these was meant as the pool.
POOL_SUFFIXES = (".csv", ".parquet", ".pq")


#: What a report folder holds that a new report would replace.
REPORT_FILES = ("report.md", "report.html")


def check_out(out: str | None, force: bool = True) -> None:
    """A report folder: refused before any work when it is a file or lies below one
    (``/dev/null``, ``/dev/null/x``), or exists and cannot be written to, or (without
    ``force``) already holds a report; nothing is made here (a folder that cannot be made
    is reported when the report is written)."""
    if out is None:
        return
    p = Path(out)
    if p.exists() and not p.is_dir():
        raise UsageError(f"--out {out!r} is a file; give a folder for the report")
    held = [name for name in REPORT_FILES if (p / name).is_file()]
    if held and not force:
        raise UsageError(
            f"--out {out!r} already holds a report ({', '.join(held)}); give another "
            "folder, or add --force to replace it"
        )
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"--out {out!r} lies below the file {str(parent)!r}")
            break
    if p.is_dir() and not os.access(p, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out!r}: the folder cannot be written to; give another folder")


def decision(args: argparse.Namespace) -> Decision:
    """The decide step for ``pick`` and ``report``: the options as the core takes them."""
    from tradeoff.choose.decide import decide
    from tradeoff.study.cache import command_population

    sessions: list[str] = args.session or []
    if args.pool is None:
        meant = next((s for s in sessions if Path(s).suffix.lower() in POOL_SUFFIXES), None)
        if meant is not None:
            raise UsageError(
                f"--session {meant!r} looks like a pool file; give the pool first: "
                f"tradeoff {getattr(args, 'command', 'pick')} POOL --session FILE ..."
            )
    return decide(
        sessions,
        args.pool,
        scenario=args.scenario,
        name_column=args.name_column,
        p=parse_p(args.p),
        top=args.top,
        exclude_inconsistent=args.exclude_inconsistent,
        populations=command_population,
    )


def record_in_mlflow(chosen: Decision, args: argparse.Namespace) -> RecordedDecision:
    """``pick --mlflow-model``: the alias on the decided model's version, its tags, and
    the report attached to its run."""
    import tempfile

    from tradeoff.choose.decide import decision_tags
    from tradeoff.choose.report import write_report
    from tradeoff.pool.model_sources import MlflowSource
    from tradeoff.pool.sources import Pick

    index, tags = decision_tags(chosen)
    row = {str(k): v for k, v in chosen.pool.frame.iloc[index].to_dict().items()}
    source = MlflowSource(args.mlflow_tracking_uri, model=args.mlflow_model, alias=args.alias)
    with tempfile.TemporaryDirectory(prefix="tradeoff-report-") as folder:
        html_path, md_path = write_report(chosen, folder, argv=args.argv)
        pick = Pick(row, tags=tags, artifacts=(html_path, md_path), pool_path=chosen.pool_path)
        return source.write_pick(pick)


def record_in_optuna(chosen: Decision, study: object, args: argparse.Namespace) -> RecordedPick:
    """``pick --optuna-storage``: the pick as the study's user attribute."""
    from tradeoff.choose.decide import decision_facts
    from tradeoff.pool.model_sources import OptunaSource
    from tradeoff.pool.sources import Pick

    index, facts = decision_facts(chosen)
    row = {str(k): v for k, v in chosen.pool.frame.iloc[index].to_dict().items()}
    source = OptunaSource(args.optuna_storage, study=args.optuna_study, option="--optuna-study")
    return source.write_pick(Pick(row, facts, pool_path=chosen.pool_path), study=study)


def sklearn_source(args: argparse.Namespace) -> SklearnSource | None:
    """``pick --sklearn-estimators FILE --sklearn-dataset FILE|NAME``: the estimators and
    the dataset, read before any work (each mistake located in its file); None without
    the option."""
    if not args.sklearn_estimators:
        for value, option in (
            (args.sklearn_dataset, "--sklearn-dataset"),
            (args.sklearn_target, "--sklearn-target"),
        ):
            if value is not None:
                raise UsageError(
                    f"{option} needs --sklearn-estimators FILE (nothing is written without it)"
                )
        return None
    if not args.sklearn_dataset:
        raise UsageError(
            "--sklearn-estimators needs --sklearn-dataset FILE|NAME: the cases to refit the "
            "picked estimator on (the dataset the pool was measured on)"
        )
    from tradeoff.pool import load_dataset, load_estimators
    from tradeoff.pool.model_sources import SklearnSource

    estimators = load_estimators(args.sklearn_estimators)
    return SklearnSource(estimators, load_dataset(args.sklearn_dataset, args.sklearn_target))


def record_in_sklearn(chosen: Decision, source: SklearnSource) -> RecordedEstimator:
    """``pick --sklearn-estimators``: the picked estimator (or its variant tuned to the
    person the pool's provenance names) refitted on the whole dataset and pickled beside
    the pool, and a line in ``<pool>.picks.jsonl``."""
    from dataclasses import replace

    from tradeoff.choose.decide import decision_facts
    from tradeoff.pool.sklearn_pick import pool_tuning
    from tradeoff.pool.sources import Pick

    index, facts = decision_facts(chosen)
    row = {str(k): v for k, v in chosen.pool.frame.iloc[index].to_dict().items()}
    tuned = None if chosen.pool_path is None else pool_tuning(chosen.pool_path)
    pick = Pick(row, facts, pool_path=chosen.pool_path)
    return replace(source, tuned=tuned).write_pick(pick)


def cmd_pick(args: argparse.Namespace) -> int:
    from tradeoff.choose.pick_text import selection_text

    if args.alias is not None and not args.mlflow_model:
        raise UsageError("--alias needs --mlflow-model NAME (nothing is written without it)")
    if args.mlflow_tracking_uri is not None and not args.mlflow_model:
        raise UsageError("--mlflow-tracking-uri needs --mlflow-model NAME")
    if args.mlflow_model:
        from tradeoff.pool.tracking import check_alias

        args.alias = check_alias(args.alias)  # before any work: None means the default
    if args.optuna_study is not None and not args.optuna_storage:
        raise UsageError("--optuna-study needs --optuna-storage URL")
    study = None
    if args.optuna_storage and not args.tui:
        from tradeoff.pool.model_sources import OptunaSource

        study = OptunaSource(
            args.optuna_storage, study=args.optuna_study, option="--optuna-study"
        ).opened()
    sklearn = None if args.tui else sklearn_source(args)
    chosen = decision(args)
    if args.tui:
        from tradeoff.tui.select_app import run_selection_app

        run_selection_app(chosen.selection, chosen.scenario)
        return 0
    written = None
    if args.mlflow_model:
        written = record_in_mlflow(chosen, args)
    picked = None if study is None else record_in_optuna(chosen, study, args)
    refit = None if sklearn is None else record_in_sklearn(chosen, sklearn)
    if args.json:
        emit(
            chosen.to_dict()
            | ({"mlflow": asdict(written)} if written is not None else {})
            | ({"optuna": asdict(picked)} if picked is not None else {})
            | ({"sklearn": asdict(refit)} if refit is not None else {})
        )
    else:
        text = selection_text(chosen.selection, chosen.pool_path, pool_given=args.pool is not None)
        say(text, wrap=True)
        if written is not None:
            say(
                f"\nMLflow: alias {written.alias!r} set on {written.model} version "
                f"{written.version} ({written.tags['tradeoff.recommended']}), with "
                f"{len(written.tags)} tags (tradeoff.*) and the report attached to its run "
                "under tradeoff-decision/.",
                wrap=True,
            )
        if picked is not None:
            say(
                f"\nOptuna: study {picked.study!r} attribute {picked.attribute!r} set to trial "
                f"{picked.trial} ({picked.value['recommended']}).",
                wrap=True,
            )
        if refit is not None:
            say(
                f"\nscikit-learn: estimator {refit.model!r} refitted on "
                f"{refit.value['fitted_on']} and pickled to {refit.pickle} (SHA-256 "
                f"{refit.sha256}); the pick added to {refit.log}."
                + (
                    " It is the rule tuned to the person (tradeoff.pool.rule.PersonalRule): "
                    "load it where tradeoff is installed (pip install tradeoff), or it will "
                    "not unpickle."
                    if refit.needs_tradeoff
                    else ""
                ),
                wrap=True,
            )
    return 0


def emit_report(chosen: Decision, out: str, argv: Sequence[str], *, json: bool) -> int:
    """Write the decision report into ``out`` (:func:`tradeoff.choose.report.write_report`)
    and say where, for ``tradeoff report`` and ``tradeoff study report``."""
    from tradeoff.choose.report import write_report

    check_out(out)
    try:
        html_path, md_path = write_report(chosen, out, argv=argv)
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
    check_out(args.out, args.force)
    return emit_report(decision(args), args.out, args.argv, json=args.json)
