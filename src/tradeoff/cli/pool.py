"""``tradeoff pool from-sklearn``, ``tradeoff pool from-mlflow`` and ``tradeoff pool
from-optuna``: a candidate pool from where the models live. The work is
:func:`tradeoff.pool.measure`, :func:`tradeoff.pool.tracking.from_mlflow` and
:func:`tradeoff.pool.searches.from_optuna`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tradeoff.cli.common import Progress, UsageError, emit, error, say, writable_file

if TYPE_CHECKING:
    from tradeoff.ask.scenario import Scenario
    from tradeoff.pool import Measured


def _new_file(args: argparse.Namespace) -> None:
    """``--out`` must be a file in an existing folder and, without ``--force``, not be
    there yet (nor its provenance file): a recorded pool is never replaced by accident."""
    out = writable_file(args.out, "--out")
    if args.force:
        return
    for existing in (out, out.with_suffix(".provenance.json")):
        if existing.exists():
            raise UsageError(
                f"--out {args.out!r}: {str(existing)!r} already exists and is left as it is; "
                "give another --out, or add --force to replace it"
            )


def _written(
    args: argparse.Namespace, measured: Measured, what: str, extra: dict[str, Any] | None = None
) -> int:
    for note in measured.notes:
        error(note)
    table, side = measured.write(args.out, replace=args.force)
    frame = measured.frame
    if args.json:
        emit(
            {
                "pool": str(table),
                "provenance": str(side),
                "models": frame["model"].tolist(),
                "columns": [str(c) for c in frame.columns],
                "notes": list(measured.notes),
                **(extra or {}),
            }
        )
    else:
        say(f"{what}: {len(frame)} models into {table} (provenance: {side})")
        say(frame.to_string(index=False, max_rows=40))
    return 0


def cmd_pool_sklearn(args: argparse.Namespace) -> int:
    from tradeoff.pool import load_dataset, load_estimators, measure
    from tradeoff.pool.sklearn_inputs import MAX_FOLDS, MAX_LATENCY_REPEATS

    _new_file(args)
    if args.folds is not None and args.test_size is not None:
        raise UsageError("give --folds or --test-size, not both")
    if args.folds is not None and not 2 <= args.folds <= MAX_FOLDS:
        raise UsageError(
            f"--folds {args.folds}: cross-validation needs between 2 and {MAX_FOLDS} folds "
            "(default 5); or give --test-size to hold out a share instead"
        )
    if not 1 <= args.latency_repeats <= MAX_LATENCY_REPEATS:
        raise UsageError(
            f"--latency-repeats {args.latency_repeats}: give between 1 and "
            f"{MAX_LATENCY_REPEATS:,} single-case predictions to time (default 60)"
        )
    estimators = load_estimators(args.estimators)
    dataset = load_dataset(args.dataset, args.target)
    tuned = None
    extra: dict[str, Any] = {}
    if args.for_session is not None:
        from tradeoff.choose.scorer import session_certainty, tuning_for

        tuned = tuning_for(args.for_session, dataset)
        certainty = session_certainty(args.for_session)
        if certainty is not None:
            extra["tuned_threshold"] = certainty.to_dict()
            if not certainty.settled:  # said before the minutes of measuring
                error(f"{tuned.participant}: {certainty.words()}")
    measured = measure(
        estimators,
        dataset,
        folds=5 if args.folds is None else args.folds,
        test_size=args.test_size,
        seed=args.seed,
        latency_repeats=args.latency_repeats,
        tuned=tuned,
        progress=Progress("measured", "models"),
    )
    measured.provenance["command"] = "tradeoff " + " ".join(args.argv)
    if "tuned_threshold" in extra and isinstance(measured.provenance.get("tuned"), dict):
        measured.provenance["tuned"]["threshold"] = extra["tuned_threshold"]
    return _written(args, measured, "measured", extra)


def _mapped_scenario(args: argparse.Namespace, example: str) -> Scenario | None:
    """The ``--scenario`` a store's values are mapped onto, or ``None`` when ``--map``
    names every column (``example``: a source of the store, for the message)."""
    if args.scenario:
        from tradeoff.ask.scenario import load_scenario

        return load_scenario(args.scenario).scenario
    if not args.map:
        raise UsageError(f"map at least one column (--map NAME={example}), or give --scenario")
    return None


def cmd_pool_mlflow(args: argparse.Namespace) -> int:
    from tradeoff.pool.tracking import from_mlflow, parse_mapping

    _new_file(args)
    scenario = _mapped_scenario(args, "metrics.KEY")
    measured = from_mlflow(
        parse_mapping(args.map or []),
        tracking_uri=args.tracking_uri,
        experiment=args.experiment,
        registered_model=args.registered_model,
        scenario=scenario,
        name=args.name,
        skip_incomplete=args.skip_incomplete,
    )
    measured.provenance["command"] = "tradeoff " + " ".join(args.argv)
    return _written(args, measured, "read from MLflow")


def cmd_pool_optuna(args: argparse.Namespace) -> int:
    from tradeoff.pool.searches import from_optuna, parse_mapping

    _new_file(args)
    scenario = _mapped_scenario(args, "values.0")
    measured = from_optuna(
        parse_mapping(args.map or []),
        storage=args.storage,
        study=args.study,
        trials=args.trials,
        scenario=scenario,
        name=args.name,
        skip_incomplete=args.skip_incomplete,
    )
    measured.provenance["command"] = "tradeoff " + " ".join(args.argv)
    return _written(args, measured, "read from Optuna")


def add_optuna_command(pl_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tradeoff pool from-optuna``: the parser entry."""
    op = pl_sub.add_parser(
        "from-optuna", help="the Pareto-front (or all completed) trials of an Optuna study"
    )
    op.add_argument(
        "--storage",
        required=True,
        metavar="URL",
        help="the study's storage, an RDB URL such as sqlite:///study.db",
    )
    op.add_argument("--study", metavar="NAME", help="the study (default: the storage's only one)")
    op.add_argument(
        "--trials",
        choices=("pareto", "all"),
        help="the Pareto front (study.best_trials) or every completed trial (default: "
        "pareto for several objectives, all for one)",
    )
    op.add_argument(
        "--map",
        action="append",
        metavar="NAME=values.I",
        help="a pool column (or, with --scenario, a class or attribute) from a trial's "
        "values.INDEX, values.METRIC (the study's metric names), user_attrs.KEY or "
        "params.KEY (repeat)",
    )
    op.add_argument(
        "--scenario",
        help="write the columns the scenario's [pool] names; classes and attributes not "
        "mapped are read from objectives (metric names), then user attributes, of their "
        "column's name or their own",
    )
    op.add_argument(
        "--name",
        default="number",
        metavar="number|user_attrs.KEY|params.KEY",
        help="each trial's model name (default: trial-<number>)",
    )
    op.add_argument(
        "--skip-incomplete",
        action="store_true",
        help="leave out (and name) trials that lack a value or hold an impossible one",
    )
    op.add_argument("--out", required=True, help="the pool file to write (CSV or .parquet)")
    op.add_argument("--force", action="store_true", help="replace --out if it exists")
    op.add_argument("--json", action="store_true", help="print one JSON document")
    op.set_defaults(func=cmd_pool_optuna)


def add_pool_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``tradeoff pool ...``: the parser entries."""
    pl = sub.add_parser(
        "pool", help="make a candidate pool from scikit-learn models, MLflow or Optuna"
    )
    pl_sub = pl.add_subparsers(title="pool commands", metavar="ACTION", required=True)
    sk = pl_sub.add_parser(
        "from-sklearn",
        help="measure scikit-learn estimators on a dataset: recall per class, latency, size",
    )
    sk.add_argument(
        "--estimators",
        required=True,
        metavar="FILE.py|MODULE|FILE.pkl",
        help="a Python file or module defining ESTIMATORS (a list, or a dict name → "
        "estimator; FILE.py:NAME for another name), or a pickled list or dict (your own "
        "files only: unpickling runs code)",
    )
    sk.add_argument(
        "--dataset",
        required=True,
        metavar="FILE|NAME",
        help="a CSV or Parquet file of cases (with --target), or one of scikit-learn's "
        "bundled datasets: breast_cancer, iris, wine, digits",
    )
    sk.add_argument("--target", metavar="COL", help="the column of each case's class")
    sk.add_argument(
        "--folds", type=int, help="cross-validation folds for recall (2 to 100, default 5)"
    )
    sk.add_argument(
        "--test-size",
        type=float,
        metavar="SHARE",
        help="instead of cross-validation, hold out this share of the cases",
    )
    sk.add_argument("--seed", type=int, default=0, help="seed of the folds or split")
    sk.add_argument(
        "--latency-repeats",
        type=int,
        default=60,
        help="single-case predictions timed (1 to 10,000, default 60)",
    )
    sk.add_argument(
        "--for",
        dest="for_session",
        metavar="SESSION",
        help="add to every model with class probabilities a variant tuned to the person of "
        "this session file: its decisions maximise their expected metric",
    )
    sk.add_argument("--out", required=True, help="the pool file to write (CSV or .parquet)")
    sk.add_argument("--force", action="store_true", help="replace --out if it exists")
    sk.add_argument("--json", action="store_true", help="print one JSON document")
    sk.set_defaults(func=cmd_pool_sklearn)

    ml = pl_sub.add_parser(
        "from-mlflow", help="the runs of an experiment, or a registered model's versions"
    )
    src = ml.add_mutually_exclusive_group(required=True)
    src.add_argument("--experiment", metavar="NAME", help="one row per run")
    src.add_argument("--registered-model", metavar="NAME", help="one row per version")
    ml.add_argument(
        "--tracking-uri", metavar="URI", help="MLflow's store (default: MLFLOW_TRACKING_URI)"
    )
    ml.add_argument(
        "--map",
        action="append",
        metavar="NAME=metrics.KEY",
        help="a pool column (or, with --scenario, a class or attribute) from a run's "
        "metrics.KEY, params.KEY or tags.KEY (repeat)",
    )
    ml.add_argument(
        "--scenario",
        help="write the columns the scenario's [pool] names; classes and attributes not "
        "mapped are read from metrics of their column's name",
    )
    ml.add_argument(
        "--name",
        default="run_name",
        metavar="run_name|params.KEY|tags.KEY",
        help="each run's model name (default: the run name)",
    )
    ml.add_argument(
        "--skip-incomplete",
        action="store_true",
        help="leave out (and name) runs that lack a value or hold an impossible one",
    )
    ml.add_argument("--out", required=True, help="the pool file to write (CSV or .parquet)")
    ml.add_argument("--force", action="store_true", help="replace --out if it exists")
    ml.add_argument("--json", action="store_true", help="print one JSON document")
    ml.set_defaults(func=cmd_pool_mlflow)
    add_optuna_command(pl_sub)
