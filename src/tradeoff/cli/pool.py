"""``tradeoff pool from-sklearn``, ``tradeoff pool from-mlflow`` and ``tradeoff pool
from-optuna``: a candidate pool from where the models live. The work is each model
source's ``pool`` (:mod:`tradeoff.pool.model_sources`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tradeoff.cli.common import (
    Progress,
    UsageError,
    emit,
    error,
    say,
    terminal_width,
    writable_file,
)

if TYPE_CHECKING:
    import pandas as pd

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


def _fitted(frame: pd.DataFrame, width: int) -> str:
    """The pool as written, its columns in blocks that fit ``width`` columns, each block
    headed by the models' names (the first 20 and last 20 rows of a longer pool); a block
    that goes on below carries no trailing backslash.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"model": ["a", "b"], "recall_x": [0.9, 0.8], "size_kb": [1, 2]})
    >>> print(_fitted(frame, 80))
           recall_x  size_kb
    model
    a           0.9        1
    b           0.8        2
    """
    text = frame.set_index("model").to_string(line_width=width, max_rows=40)
    return "\n".join(line.rstrip().removesuffix("\\").rstrip() for line in text.splitlines())


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
        say(f"{what}: {len(frame)} models into {table} (provenance: {side})", wrap=True)
        say(_fitted(frame, terminal_width()))
    return 0


def cmd_pool_sklearn(args: argparse.Namespace) -> int:
    from tradeoff.pool import load_dataset, load_estimators
    from tradeoff.pool.model_sources import SklearnSource

    _new_file(args)  # --folds and --latency-repeats: in range as the command line is parsed
    if args.folds is not None and args.test_size is not None:
        raise UsageError("give --folds or --test-size, not both")
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
    measured = SklearnSource(
        estimators,
        dataset,
        folds=5 if args.folds is None else args.folds,
        test_size=args.test_size,
        seed=args.seed,
        latency_repeats=args.latency_repeats,
        tuned=tuned,
        progress=Progress("measured", "models"),
    ).pool({})
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
    from tradeoff.pool.model_sources import MlflowSource

    _new_file(args)
    scenario = _mapped_scenario(args, "metrics.KEY")
    source = MlflowSource(
        tracking_uri=args.tracking_uri,
        experiment=args.experiment,
        registered_model=args.registered_model,
        name=args.name,
    )
    measured = source.pool(
        source.fields.parse_mapping(args.map or []),
        scenario=scenario,
        skip_incomplete=args.skip_incomplete,
    )
    measured.provenance["command"] = "tradeoff " + " ".join(args.argv)
    return _written(args, measured, "read from MLflow")


def cmd_pool_optuna(args: argparse.Namespace) -> int:
    from tradeoff.pool.model_sources import OptunaSource

    _new_file(args)
    scenario = _mapped_scenario(args, "values.0")
    source = OptunaSource(args.storage, study=args.optuna_study, trials=args.trials, name=args.name)
    measured = source.pool(
        source.fields.parse_mapping(args.map or []),
        scenario=scenario,
        skip_incomplete=args.skip_incomplete,
    )
    measured.provenance["command"] = "tradeoff " + " ".join(args.argv)
    return _written(args, measured, "read from Optuna")
