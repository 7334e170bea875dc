"""The argument parser of ``tradeoff``: every command, its options, and its function.

Choices come from the single registries (strategy names from
:data:`tradeoff.ask.strategies.STRATEGY_NAMES`, ranking methods from
:data:`tradeoff.pool.copa.METHODS`). Building the parser imports none of the work: the
command modules import the core inside their functions, and a registry kept in a heavy
module is read when a value is checked or a command's help is written
(:class:`~tradeoff.cli.common.LazyNames`), so ``tradeoff --help`` loads neither numpy,
pandas, scipy, pydantic nor textual (tests/test_import_hygiene.py).
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from tradeoff.ask.strategies import STRATEGY_NAMES
from tradeoff.cli.app import cmd_default, cmd_elicit, cmd_session_show
from tradeoff.cli.arms import add_arm_arguments, add_arm_report_arguments
from tradeoff.cli.choices import add_choices_commands
from tradeoff.cli.common import LazyNames
from tradeoff.cli.decide import cmd_report, cmd_select
from tradeoff.cli.judge import cmd_compare, cmd_gap
from tradeoff.cli.pool import add_pool_commands
from tradeoff.cli.rank import cmd_rank
from tradeoff.cli.scenarios import cmd_bench, cmd_scenario_check, cmd_scenario_list, cmd_simulate
from tradeoff.cli.study import (
    add_panel_arguments,
    add_pilot_commands,
    cmd_study_create,
    cmd_study_export,
    cmd_study_report,
    cmd_study_serve,
    cmd_study_status,
    cmd_study_withdraw,
)
from tradeoff.net import redacted
from tradeoff.simulation.noise import noise_help
from tradeoff.version import __version__

SCENARIO_HELP = "scenario TOML file, or a shipped scenario's id (tradeoff scenario list)"


class Parser(argparse.ArgumentParser):
    """The parser of every command: a usage error, which repeats what was typed
    (``unrecognized arguments: …``), shows a URL in it without its credentials
    (:func:`tradeoff.net.redacted`)."""

    def error(self, message: str) -> NoReturn:
        super().error(redacted(message))


def build_parser() -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = Parser(
        prog="tradeoff",
        description="Find out what a person values in a classifier, then pick the model.",
    )
    parser.add_argument("--version", action="version", version=f"tradeoff {__version__}")
    parser.set_defaults(func=cmd_default)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    el = sub.add_parser("elicit", help="answer questions in the app (a session is recorded)")
    el.add_argument("scenario", nargs="?", help=SCENARIO_HELP + " (default: the shipped one)")
    el.add_argument("--participant", help="participant id")
    el.add_argument("--sessions-dir", default="sessions", help="where sessions are recorded")
    el.add_argument("--resume", metavar="FILE", help="continue this session file")
    el.add_argument("--budget", type=int, help="number of questions")
    el.add_argument("--strategy", choices=STRATEGY_NAMES, help="elicitation strategy")
    el.add_argument("--study", metavar="DIR", help="a study folder: ask for an access code")
    el.set_defaults(func=cmd_elicit)

    ss = sub.add_parser("session", help="work with recorded sessions")
    ss_sub = ss.add_subparsers(title="session commands", metavar="ACTION", required=True)
    show = ss_sub.add_parser("show", help="participant, answers and the replayed result")
    show.add_argument("file", help="session .jsonl file")
    show.add_argument("--json", action="store_true", help="print one JSON document")
    show.set_defaults(func=cmd_session_show)

    st = sub.add_parser("study", help="run a study: many participants, each with an access code")
    st_sub = st.add_subparsers(title="study commands", metavar="ACTION", required=True)
    mk = st_sub.add_parser("create", help="make a study folder and the participants' codes")
    mk.add_argument("scenario", help=SCENARIO_HELP + " (copied into the study)")
    mk.add_argument(
        "--participants",
        metavar="FILE|N",
        help="a file of participant ids, one per line, or a number N (ids p01 … pN); "
        "each gets an access code (not needed with a panel)",
    )
    mk.add_argument("--out", required=True, help="the new study folder")
    mk.add_argument("--codes", metavar="FILE.csv", help="write the codes here, not on screen")
    mk.add_argument(
        "--consent",
        metavar="FILE.md",
        help="information and consent text (Markdown) the study web page shows before the "
        "first question; agreeing opens the participant's session, declining records nothing",
    )
    mk.add_argument(
        "--consent-version", default="1", help="the consent text's version (recorded with it)"
    )
    mk.add_argument(
        "--language",
        metavar="TAG",
        help="show the page in this language (en, de) whatever the browser asks for; "
        "participants may still pick another on the first page (default: the browser's)",
    )
    add_panel_arguments(mk)
    add_arm_arguments(mk)
    mk.add_argument("--json", action="store_true", help="print one JSON document")
    mk.set_defaults(func=cmd_study_create)
    status = st_sub.add_parser("status", help="who has answered, who is done")
    status.add_argument("study", help="study folder")
    status.add_argument("--json", action="store_true", help="print one JSON document")
    status.add_argument("--watch", action="store_true", help="a live view that refreshes")
    status.add_argument(
        "--interval", type=float, default=2.0, help="seconds between refreshes (--watch)"
    )
    status.set_defaults(func=cmd_study_status)
    srep = st_sub.add_parser("report", help="the decision report over the complete sessions")
    srep.add_argument("study", help="study folder")
    srep.add_argument("--out", required=True, help="output directory")
    srep.add_argument("--p", default="inf", help="the p of COPA's p-norm: a number ≥ 1 or inf")
    srep.add_argument("--top", type=int, default=10, help="ranked models to report")
    srep.add_argument("--exclude-inconsistent", action="store_true")
    srep.add_argument(
        "--include-pilot", action="store_true", help="count pilot sessions (left out by default)"
    )
    add_arm_report_arguments(srep)
    srep.add_argument("--json", action="store_true", help="print one JSON document")
    srep.set_defaults(func=cmd_study_report)
    wd = st_sub.add_parser("withdraw", help="leave a participant out of status, report, export")
    wd.add_argument("study", help="study folder")
    wd.add_argument("participant", help="the participant's id (or their panel id)")
    wd.add_argument("--json", action="store_true", help="print one JSON document")
    wd.set_defaults(func=cmd_study_withdraw)
    web = st_sub.add_parser(
        "serve", help="the study's web page: code, consent, questions (plain HTML forms)"
    )
    web.add_argument("study", help="study folder")
    web.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    web.add_argument("--port", type=int, default=8000)
    web.add_argument(
        "--workers", type=int, default=1, help="server processes sharing the study (default 1)"
    )
    web.add_argument(
        "--trust-proxy",
        action="store_true",
        help="a reverse proxy in front sets X-Forwarded-For and X-Forwarded-Proto: take the "
        "client's address and https from there; leave off without such a proxy",
    )
    web.add_argument(
        "--header-seconds",
        type=float,
        default=10.0,
        help="seconds a connection has to send a request's line and headers, from its opening "
        "or its last answer; an idle connection is closed after it (default 10)",
    )
    web.add_argument(
        "--body-seconds",
        type=float,
        default=10.0,
        help="seconds a request has to send its body once its headers are in (default 10)",
    )
    web.set_defaults(func=cmd_study_serve)
    ex = st_sub.add_parser(
        "export", help="every answer as one table (CSV or Parquet) with its codebook"
    )
    ex.add_argument("study", help="study folder")
    ex.add_argument("--out", required=True, metavar="FILE.csv|FILE.parquet", help="a new file")
    ex.add_argument(
        "--include-pilot", action="store_true", help="export pilot sessions (left out by default)"
    )
    ex.add_argument("--json", action="store_true", help="print one JSON document")
    ex.set_defaults(func=cmd_study_export)
    add_pilot_commands(st_sub)

    add_choices_commands(sub)

    sc = sub.add_parser("scenario", help="work with scenario files")
    sc_sub = sc.add_subparsers(title="scenario commands", metavar="ACTION", required=True)
    check = sc_sub.add_parser("check", help="validate a scenario file and print a summary")
    check.add_argument("file", help=SCENARIO_HELP)
    check.add_argument("--json", action="store_true", help="print one JSON document")
    check.set_defaults(func=cmd_scenario_check)
    listing = sc_sub.add_parser(
        "list", help="the shipped scenarios: id, title, whether a pool comes with it, path"
    )
    listing.add_argument("--json", action="store_true", help="print one JSON document")
    listing.set_defaults(func=cmd_scenario_list)

    sim = sub.add_parser("simulate", help="run the elicitation against simulated stakeholders")
    sim.add_argument("scenario", help=SCENARIO_HELP)
    sim.add_argument("--truth", help="true weights W1,W2,... (default: flat Dirichlet per run)")
    sim.add_argument(
        "--truths",
        metavar="FILE.csv",
        help="one simulated person per row: weights in the scenario's order, as --truth "
        "(a header row naming the weights is allowed); --runs is then the number of rows",
    )
    sim.add_argument(
        "--strategy", choices=STRATEGY_NAMES, help="elicitation strategy (default: the scenario's)"
    )
    sim.add_argument(
        "--noise",
        help=noise_help(),
    )
    sim.add_argument(
        "--indifference",
        type=float,
        default=0.0,
        metavar="TAU",
        help="answer 'can't tell' when |ψ_A − ψ_B| < TAU",
    )
    sim.add_argument("--budget", type=int, help="maximum number of questions")
    sim.add_argument(
        "--stop",
        choices=["decision", "weights"],
        help="with a [pool]: aim the questions at the pick and stop once it is settled "
        "(decision, the default) or aim at the weights alone",
    )
    sim.add_argument("--epsilon", type=float, help="target precision of each ratio")
    sim.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    sim.add_argument("--runs", type=int, default=1, help="number of simulated stakeholders")
    sim.add_argument(
        "--trace",
        action="store_true",
        help="report the L1 error after every question (paper 004 Fig. 4)",
    )
    sim.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="run the simulated people in N local processes (default 1); the results are "
        "the same whatever N",
    )
    sim.add_argument(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="run the simulated people on the workers of a running Dask cluster "
        "(tcp://host:8786; needs tradeoff[cluster]); the results are the same as on one "
        "machine",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON document")
    sim.set_defaults(func=cmd_simulate)

    add_pool_commands(sub)

    rk = sub.add_parser("rank", help="rank a candidate pool with COPA or a baseline")
    rk.add_argument("pool", help="CSV or Parquet file, one row per model")
    rk.add_argument(
        "--objective",
        action="append",
        metavar="COL:min|max",
        help="an objective column and its direction (repeat for each)",
    )
    rk.add_argument("--name-column", help="column with model names")
    rk.add_argument("--where", help="condition selecting the population (see README)")
    rk.add_argument("--drop-missing", action="store_true", help="leave out rows with NaN/inf")
    rk.add_argument("--weight", action="append", metavar="COL=W", help="weight of an objective")
    rk.add_argument(
        "--alpha-objective",
        action="append",
        metavar="COL",
        help="objective(s) that share weight α; the others share 1 − α",
    )
    rk.add_argument("--alpha", type=float, help="the weight α (default 0.5)")
    rk.add_argument("--p", default="inf", help="the p of the p-norm: a number ≥ 1 or inf")
    rk.add_argument(
        "--constraint",
        action="append",
        metavar="EXPR",
        help="condition on raw values a selectable model must meet",
    )
    rk.add_argument(
        "--method",
        choices=LazyNames("tradeoff.pool.copa", "METHODS"),
        default="copa",
        metavar="METHOD",
        help="how models are ranked: %(choices)s (default: %(default)s)",
    )
    rk.add_argument(
        "--reference",
        metavar="NAME",
        help="measure models against this model instead of the ideal point "
        "(--method ideal|delta|norm, --p 1 or inf)",
    )
    rk.add_argument("--top", type=int, default=10, help="how many ranked models to show")
    rk.add_argument("--sweep", type=int, metavar="N", help="sweep N values of α in [0, 1]")
    rk.add_argument("--scenario", help="scenario whose [pool] columns the metric maps onto")
    rk.add_argument("--metric", help="elicited weights W1,W2,... in the scenario's order")
    rk.add_argument("--json", action="store_true", help="print one JSON document")
    rk.set_defaults(func=cmd_rank)

    def selection_arguments(cmd: argparse.ArgumentParser) -> None:
        cmd.add_argument(
            "pool",
            nargs="?",
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
        cmd.add_argument("--scenario", help="scenario file (default: the one in the sessions)")
        cmd.add_argument("--name-column", help="column with model names")
        cmd.add_argument("--p", default="inf", help="the p of COPA's p-norm: a number ≥ 1 or inf")
        cmd.add_argument("--top", type=int, default=10, help="ranked models to report")
        cmd.add_argument("--json", action="store_true", help="print one JSON document")
        cmd.add_argument(
            "--exclude-inconsistent",
            action="store_true",
            help="leave people whose answers are flagged as inconsistent out of the consensus",
        )

    sel = sub.add_parser("select", help="from sessions and a pool to a decision")
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
    sel.set_defaults(func=cmd_select)

    rep = sub.add_parser("report", help="write an HTML and Markdown decision report")
    selection_arguments(rep)
    rep.add_argument("--out", required=True, help="output directory")
    rep.set_defaults(func=cmd_report)

    cmp_ = sub.add_parser("compare", help="compare systems: indicators, radar, permutation test")
    cmp_.add_argument("pool", help="CSV or Parquet file, one row per solution")
    cmp_.add_argument("--system", required=True, help="column naming each row's system")
    cmp_.add_argument(
        "--objective",
        action="append",
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
    cmp_.add_argument("--permutations", type=int, default=5000, help="B (default 5000)")
    cmp_.add_argument("--baseline", help="the baseline system (default: the first)")
    cmp_.add_argument("--seed", type=int, default=0, help="seed of the permutations")
    cmp_.add_argument("--radar", metavar="FILE.png", help="write the radar chart")
    cmp_.add_argument("--json", action="store_true", help="print one JSON document")
    cmp_.set_defaults(func=cmd_compare)

    gap = sub.add_parser("gap", help="validation-to-test generalisation of a Pareto front")
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

    bench = sub.add_parser("bench", help="run a benchmark and write its table and figure")
    bench.add_argument("name", choices=["elicitation"], help="which benchmark")
    bench.add_argument("--runs", type=int, default=100, help="stakeholders per cell")
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument("--out", default="benchmarks/results", help="output directory")
    bench.set_defaults(func=cmd_bench)
    return parser
