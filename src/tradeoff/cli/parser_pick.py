"""The parser of the commands that pick a model and judge systems (part of
:func:`tradeoff.cli.parser.build_parser`, the one place the command line is built):
``pool …`` (make a pool, rank one), ``pick``, ``report`` and ``judge …``.

Choices come from the single registries (ranking methods from
:data:`tradeoff.choose.copa.METHODS`, read when needed: :class:`~tradeoff.cli.common.LazyNames`).
"""

from __future__ import annotations

import argparse

from tradeoff.cli.common import LazyNames
from tradeoff.cli.decide import cmd_pick, cmd_report
from tradeoff.cli.judge import cmd_compare, cmd_gap
from tradeoff.cli.layout import Commands, OldOption, add_commands
from tradeoff.cli.numbers import seed_of, top, whole
from tradeoff.cli.per_unit import WHAT as PER_UNIT
from tradeoff.cli.pool import cmd_pool_mlflow, cmd_pool_optuna, cmd_pool_sklearn
from tradeoff.cli.rank import MAX_SWEEP, cmd_rank

PICK = "Pick a model"
JUDGE = "Judge and compare"


def add_pick_commands(sub: Commands) -> None:
    """``pool …`` (``rank`` among them), ``pick`` and ``report``; ``select`` and ``rank``
    kept as old names."""
    pool = add_pool_commands(sub)
    sub.add_old_name("rank", pool.choices["rank"])

    sel = sub.add_parser(
        "pick",
        help="pick the model: from people's answers (sessions) and a pool",
        description="Pick the model from people's answers (session files) and a pool of "
        "candidates: each person's recommendation with how sure it is and what would change "
        "it, the regrets between them, and a consensus.",
        section=PICK,
        usage="%(prog)s [POOL] --session FILE [FILE ...] [options]",
    )
    selection_arguments(sel)
    sel.add_argument("--tui", action="store_true", help="open the selection screen")
    sel.add_argument(
        "--mlflow-model",
        metavar="NAME",
        help="write the decision to this MLflow registered model: an alias on the decided "
        "version, tags (P(best), sessions) and the report attached to its run (the pool "
        "comes from tradeoff pool from-mlflow); nothing is written without it",
    )
    sel.add_argument("--alias", help="the alias to set (default: champion)")
    sel.add_argument(
        "--mlflow-tracking-uri", metavar="URI", help="MLflow's store (default: MLFLOW_TRACKING_URI)"
    )
    sel.add_argument(
        "--optuna-storage",
        metavar="URL",
        help="write the pick to this Optuna storage (sqlite:///study.db): the study's user "
        "attribute tradeoff_pick names the picked trial, with P(best), participants, "
        "scenario and time (the pool comes from tradeoff pool from-optuna); nothing is "
        "written without it",
    )
    sel.add_argument(
        "--optuna-study", metavar="NAME", help="the study (default: the storage's only one)"
    )
    sel.add_argument(
        "--sklearn-estimators",
        metavar="FILE.py|MODULE|FILE.pkl",
        help="write the pick back for scikit-learn: the picked one of these estimators (as "
        "pool from-sklearn --estimators takes them; a variant tuned to a person is made again "
        "from the pool's provenance) refitted on --sklearn-dataset, pickled beside the pool as "
        "POOL.pick-N.pkl, and a line in POOL.picks.jsonl; nothing is written without it",
    )
    sel.add_argument(
        "--sklearn-dataset",
        metavar="FILE|NAME",
        help="the cases to refit the picked estimator on, as pool from-sklearn --dataset "
        "takes them (a CSV or Parquet file, or breast_cancer, iris, wine, digits)",
    )
    sel.add_argument(
        "--sklearn-target",
        metavar="COL",
        help="the column of each case's class in --sklearn-dataset",
    )
    sel.set_defaults(func=cmd_pick, command="pick")

    rep = sub.add_parser(
        "report", help="write the pick as an HTML and Markdown report", section=PICK
    )
    rep.usage = "%(prog)s [POOL] --session FILE [FILE ...] --out DIR [options]"
    selection_arguments(rep)
    rep.add_argument(
        "--out", required=True, metavar="DIR", help="the folder to write report.html and report.md"
    )
    rep.add_argument("--force", action="store_true", help="replace a report already in --out")
    rep.set_defaults(func=cmd_report, command="report")
    sub.add_old_name("select", sel)


def selection_arguments(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "pool",
        nargs="?",
        metavar="POOL",
        help="CSV or Parquet file of candidate models (default: the pool the scenario's "
        "[pool] names, relative to the scenario file)",
    )
    cmd.add_argument(
        "--session",
        action="extend",
        nargs="+",
        metavar="FILE",
        help="session files (several after one flag, or the flag repeated)",
    )
    cmd.add_argument(
        "--scenario", metavar="FILE", help="scenario file (default: the one in the sessions)"
    )
    cmd.add_argument("--name-column", metavar="COL", help="column with model names")
    cmd.add_argument(
        "--p", metavar="P", default="inf", help="the p of COPA's p-norm: a number ≥ 1 or inf"
    )
    cmd.add_argument(
        "--top", type=top("models"), default=10, metavar="N", help="ranked models to report"
    )
    cmd.add_argument("--json", action="store_true", help="print one JSON document")
    cmd.add_argument(
        "--exclude-inconsistent",
        action="store_true",
        help="leave people whose answers are flagged as inconsistent out of the consensus",
    )


def add_optuna_command(pl_sub: Commands) -> None:
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
    op.add_argument(
        "--optuna-study", metavar="NAME", help="the study (default: the storage's only one)"
    )
    op.add_argument("--study", dest="optuna_study", action=OldOption, new="--optuna-study")
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
    op.add_argument(
        "--out", required=True, metavar="POOL.csv", help="the pool to write (.csv or .parquet)"
    )
    op.add_argument("--force", action="store_true", help="replace --out if it exists")
    op.add_argument("--json", action="store_true", help="print one JSON document")
    op.set_defaults(func=cmd_pool_optuna)


def add_pool_commands(sub: Commands) -> Commands:
    """``tradeoff pool ...``: make a pool of candidate models, rank one; its level of
    commands is returned."""
    pl = sub.add_parser(
        "pool",
        help="make a pool of models (scikit-learn, MLflow, Optuna), rank one",
        section=PICK,
    )
    pl_sub = add_commands(pl, "pool commands")
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
        "--folds",
        type=whole(
            "--folds",
            "how many cross-validation folds measure recall",
            5,
            2,
            ("tradeoff.pool.sklearn_inputs", "MAX_FOLDS"),
        ),
        help="cross-validation folds for recall (2 to 100, default 5)",
    )
    sk.add_argument(
        "--test-size",
        type=float,
        metavar="SHARE",
        help="instead of cross-validation, hold out this share of the cases",
    )
    sk.add_argument(
        "--seed", type=seed_of("the folds or split"), default=0, help="seed of the folds or split"
    )
    sk.add_argument(
        "--latency-repeats",
        type=whole(
            "--latency-repeats",
            "how many single-case predictions are timed",
            60,
            1,
            ("tradeoff.pool.sklearn_inputs", "MAX_LATENCY_REPEATS"),
        ),
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
    sk.add_argument(
        "--out", required=True, metavar="POOL.csv", help="the pool to write (.csv or .parquet)"
    )
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
    ml.add_argument(
        "--out", required=True, metavar="POOL.csv", help="the pool to write (.csv or .parquet)"
    )
    ml.add_argument("--force", action="store_true", help="replace --out if it exists")
    ml.add_argument("--json", action="store_true", help="print one JSON document")
    ml.set_defaults(func=cmd_pool_mlflow)
    add_optuna_command(pl_sub)
    add_rank_command(pl_sub)
    return pl_sub


def add_rank_command(pl_sub: Commands) -> None:
    """``tradeoff pool rank``."""
    rk = pl_sub.add_parser(
        "rank",
        help="rank a pool by objectives and weights you give (COPA or a baseline)",
        description="Rank a pool of models by objectives and weights you give (COPA or a "
        "baseline). To pick the model from people's answers, use tradeoff pick.",
        usage="%(prog)s POOL --objective COL:min|max ... [options]\n"
        "       %(prog)s POOL --scenario FILE --metric W1,W2,... [options]",
    )
    rk.add_argument("pool", metavar="POOL", help="CSV or Parquet file, one row per model")
    rk.add_argument(
        "--objective",
        action="append",
        metavar="COL:min|max",
        help="an objective column and its direction (repeat for each); needed unless "
        "--scenario gives the objectives",
    )
    rk.add_argument("--name-column", metavar="COL", help="column with model names")
    rk.add_argument(
        "--where", metavar="EXPR", help="condition selecting the population (see README)"
    )
    rk.add_argument("--drop-missing", action="store_true", help="leave out rows with NaN/inf")
    rk.add_argument("--weight", action="append", metavar="COL=W", help="weight of an objective")
    rk.add_argument(
        "--alpha-objective",
        action="append",
        metavar="COL",
        help="an objective that shares weight α (repeat for each); the others share 1 − α",
    )
    rk.add_argument("--alpha", type=float, metavar="A", help="the weight α (default 0.5)")
    rk.add_argument(
        "--p", default="inf", metavar="P", help="the p of the p-norm: a number ≥ 1 or inf"
    )
    rk.add_argument(
        "--constraint",
        action="append",
        metavar="EXPR",
        help="condition on raw values a selectable model must meet",
    )
    rk.add_argument(
        "--method",
        choices=LazyNames("tradeoff.choose.copa", "METHODS"),
        default="copa",
        metavar="METHOD",
        help="%(choices)s (default: %(default)s): how models are ranked",
    )
    rk.add_argument(
        "--reference",
        metavar="NAME",
        help="measure models against this model instead of the ideal point "
        "(--method ideal|delta|norm, --p 1 or inf)",
    )
    rk.add_argument(
        "--top", type=top("models"), default=10, metavar="N", help="how many ranked models to show"
    )
    rk.add_argument(
        "--sweep",
        type=whole("--sweep", "how many values of α in [0, 1] to rank at", 11, 2, MAX_SWEEP),
        metavar="N",
        help="sweep N values of α in [0, 1]",
    )
    rk.add_argument(
        "--scenario", metavar="FILE", help="scenario whose [pool] columns the metric maps onto"
    )
    rk.add_argument("--metric", metavar="W1,W2,...", help="the elicited " + PER_UNIT)
    rk.add_argument("--json", action="store_true", help="print one JSON document")
    rk.set_defaults(func=cmd_rank)


def add_judge_commands(sub: Commands) -> None:
    """``tradeoff judge compare`` and ``judge gap``; ``compare`` and ``gap`` kept as old
    names."""
    jd = sub.add_parser(
        "judge", help="compare systems' fronts; a front's validation-to-test gap", section=JUDGE
    )
    jd_sub = add_commands(jd, "judge commands")
    cmp_ = jd_sub.add_parser("compare", help="compare systems: indicators, radar, permutation test")
    cmp_.add_argument("pool", help="CSV or Parquet file, one row per solution")
    cmp_.add_argument("--system", required=True, help="column naming each row's system")
    cmp_.add_argument(
        "--objective",
        action="append",
        required=True,
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
    cmp_.add_argument(
        "--hv-scale",
        choices=["raw", "box"],
        help="HV on the radar: raw (paper 003's convention; the default when every objective "
        "and the reference lie in [0, 1]) or divided by the ideal-to-reference box",
    )
    cmp_.add_argument(
        "--permutations",
        type=whole("--permutations", "how many permutations the test draws", 5000, 1, 10_000_000),
        default=5000,
        help="B (default 5000)",
    )
    cmp_.add_argument("--baseline", help="the baseline system (default: the first)")
    cmp_.add_argument(
        "--seed", type=seed_of("the permutations"), default=0, help="seed of the permutations"
    )
    cmp_.add_argument("--radar", metavar="FILE.png", help="write the radar chart")
    cmp_.add_argument("--json", action="store_true", help="print one JSON document")
    cmp_.set_defaults(func=cmd_compare)

    gap = jd_sub.add_parser("gap", help="validation-to-test generalisation of a Pareto front")
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
    sub.add_old_name("compare", cmp_)
    sub.add_old_name("gap", gap)
