"""The argument parser of ``tradeoff``: every command, its options, and its function, built
here and only here (:func:`build_parser`; the commands that run a study are in
:mod:`~tradeoff.cli.parser_study`, those that pick a model or judge systems in
:mod:`~tradeoff.cli.parser_pick`, both called from here). The ``tradeoff`` script,
``python -m tradeoff`` and the tests all parse with it (:func:`tradeoff.cli.main`).

Choices come from the single registries (strategy names from
:data:`tradeoff.ask.strategies.STRATEGY_NAMES`, ranking methods from
:data:`tradeoff.choose.copa.METHODS`). Building the parser imports none of the work: the
command modules import the core inside their functions, and a registry kept in a heavy
module is read when a value is checked or a command's help is written
(:class:`~tradeoff.cli.common.LazyNames`), so ``tradeoff --help`` loads neither numpy,
pandas, scipy, pydantic nor textual (tests/test_import_hygiene.py).
"""

from __future__ import annotations

import argparse

from tradeoff.ask.strategies import STRATEGY_NAMES
from tradeoff.cli.app import cmd_default, cmd_elicit, cmd_session_show
from tradeoff.cli.choices import cmd_choices_fit, cmd_choices_predict
from tradeoff.cli.layout import Commands, Parser, add_commands
from tradeoff.cli.numbers import seed_of, whole
from tradeoff.cli.parser_pick import JUDGE, PICK, add_judge_commands, add_pick_commands
from tradeoff.cli.parser_study import RUN, SCENARIO_HELP, add_study_commands
from tradeoff.cli.per_unit import WHAT as PER_UNIT
from tradeoff.cli.scenarios import cmd_bench, cmd_scenario_check, cmd_scenario_list, cmd_simulate
from tradeoff.simulation.noise import NOISE_OPTION_HELP
from tradeoff.version import __version__

ASK = "Ask a person"
TOOLS = "Tools"
SECTIONS = (ASK, RUN, PICK, JUDGE, TOOLS)
"""The sections of ``tradeoff --help``, in order: the three jobs first."""

FIRST_STEPS = """\
first steps:
  tradeoff elicit
      answer questions about the shipped scenario; the session is recorded
  tradeoff study create breast-cancer-triage --participants 20 --study my-study
      a study with 20 access codes; then: tradeoff study serve my-study
  tradeoff pick --session sessions/*/*.jsonl
      pick the model from the recorded answers (the scenario's pool)

Old names still work for this release, with a notice: select (now pick),
rank (pool rank), compare (judge compare), gap (judge gap).
Each command's options: tradeoff COMMAND --help.
"""


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (the only one: every way in parses with it)."""
    parser = Parser(
        prog="tradeoff",
        description="Find out what a person values in a classifier (or in any options "
        "described by their aspects), then pick the model. Without a command: the app on "
        "the shipped scenario.",
        epilog=FIRST_STEPS,
    )
    parser.add_argument("--version", action="version", version=f"tradeoff {__version__}")
    parser.set_defaults(func=cmd_default)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    assert isinstance(sub, Commands)
    sub.sections = {title: [] for title in SECTIONS}

    el = sub.add_parser(
        "elicit", help="answer questions in the app; the session is recorded", section=ASK
    )
    el.add_argument("scenario", nargs="?", help=SCENARIO_HELP + " (default: the shipped one)")
    el.add_argument("--participant", help="participant id")
    el.add_argument(
        "--sessions-dir",
        default="sessions",
        metavar="DIR",
        help="where sessions are recorded (default: sessions)",
    )
    el.add_argument("--resume", metavar="FILE", help="continue this session file")
    el.add_argument(
        "--budget",
        type=whole("--budget", "how many questions to ask", 12, 1, 10_000),
        help="number of questions",
    )
    el.add_argument("--strategy", choices=STRATEGY_NAMES, help="elicitation strategy")
    el.add_argument("--study", metavar="DIR", help="a study folder: ask for an access code")
    el.set_defaults(func=cmd_elicit)

    ss = sub.add_parser(
        "session", help="show a recorded session: answers, weights, the pick", section=ASK
    )
    ss_sub = add_commands(ss, "session commands")
    show = ss_sub.add_parser(
        "show", help="what a session learned: its pick, weights and what is still unsettled"
    )
    show.add_argument("file", help="session .jsonl file")
    show.add_argument("--json", action="store_true", help="print one JSON document")
    show.set_defaults(func=cmd_session_show)

    add_study_commands(sub)
    add_pick_commands(sub)
    add_judge_commands(sub)
    add_choices_commands(sub)

    sc = sub.add_parser(
        "scenario", help="list the shipped scenarios, check a scenario file", section=TOOLS
    )
    sc_sub = add_commands(sc, "scenario commands")
    check = sc_sub.add_parser("check", help="validate a scenario file and print a summary")
    check.add_argument("file", help=SCENARIO_HELP)
    check.add_argument("--json", action="store_true", help="print one JSON document")
    check.set_defaults(func=cmd_scenario_check)
    listing = sc_sub.add_parser(
        "list", help="the shipped scenarios: id, title, whether a pool comes with it, path"
    )
    listing.add_argument("--json", action="store_true", help="print one JSON document")
    listing.set_defaults(func=cmd_scenario_list)

    sim = sub.add_parser(
        "simulate", help="run the questions against simulated people", section=TOOLS
    )
    sim.add_argument("scenario", help=SCENARIO_HELP)
    sim.add_argument(
        "--truth",
        metavar="W1,W2,...",
        help="the simulated person's true "
        + PER_UNIT
        + "; default: a flat Dirichlet over swing shares, one per run",
    )
    sim.add_argument(
        "--truths",
        metavar="FILE.csv",
        help="one simulated person per row: weights per unit in the scenario's order, as "
        "--truth "
        "(a header row naming the weights is allowed); --runs is then the number of rows",
    )
    sim.add_argument(
        "--strategy", choices=STRATEGY_NAMES, help="elicitation strategy (default: the scenario's)"
    )
    sim.add_argument(
        "--noise",
        help=NOISE_OPTION_HELP,
    )
    sim.add_argument(
        "--indifference",
        type=float,
        default=0.0,
        metavar="TAU",
        help="answer 'can't tell' when |ψ_A − ψ_B| < TAU",
    )
    sim.add_argument(
        "--budget",
        type=whole("--budget", "the most questions a simulated person is asked", 20, 1, 10_000),
        help="maximum number of questions",
    )
    sim.add_argument(
        "--stop",
        choices=["decision", "weights"],
        help="with a [pool]: aim the questions at the pick and stop once it is settled "
        "(decision, the default) or aim at the weights alone",
    )
    sim.add_argument("--epsilon", type=float, help="target precision of each ratio")
    sim.add_argument(
        "--seed",
        type=seed_of("the simulation"),
        default=0,
        help="seed of the simulation (default 0)",
    )
    sim.add_argument(
        "--runs",
        type=whole("--runs", "how many simulated people answer", 100, 1, 1_000_000),
        default=1,
        help="number of simulated stakeholders",
    )
    sim.add_argument(
        "--trace",
        action="store_true",
        help="report the L1 error after every question (paper 004 Fig. 4)",
    )
    sim.add_argument(
        "--workers",
        type=whole("--workers", "how many local processes run the simulated people", 2, 1, 256),
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

    bench = sub.add_parser(
        "bench", help="run a benchmark and write its table and figure", section=TOOLS
    )
    bench.add_argument("name", choices=["elicitation"], help="which benchmark")
    bench.add_argument(
        "--runs",
        type=whole("--runs", "how many simulated people answer per cell", 100, 1, 100_000),
        default=100,
        help="stakeholders per cell",
    )
    bench.add_argument("--seed", type=seed_of("the benchmark"), default=0)
    bench.add_argument(
        "--out",
        default="benchmarks/results",
        metavar="DIR",
        help="the folder to write the table and figure (default: benchmarks/results)",
    )
    bench.set_defaults(func=cmd_bench)
    return parser


def add_choices_commands(sub: Commands) -> None:
    """The ``choices`` command and its actions."""
    ch = sub.add_parser(
        "choices", help="learn from choices recorded elsewhere (CSV)", section=TOOLS
    )
    ch_sub = add_commands(ch, "choices commands")
    layout = (
        "TRAIN.csv: person, A_<aspect> and B_<aspect> for every aspect of the scenario (its "
        "classes' recalls, then its attributes, named as it names them), answer (A, B or "
        "can't tell)"
    )
    pr = ch_sub.add_parser(
        "predict",
        help="the probability that each held-out choice is A, from each person's choices",
        description="Write, for each row of HOLDOUT, p_A: the posterior predictive "
        "probability that the person picks A over B, learned from their rows of TRAIN. "
        + layout
        + "; HOLDOUT.csv the same without answer (its other columns are kept).",
    )
    pr.add_argument("train", metavar="TRAIN.csv", help="recorded choices to learn from")
    pr.add_argument("holdout", metavar="HOLDOUT.csv", help="choices to predict")
    pr.add_argument("--scenario", required=True, help="scenario file, or a shipped one's id")
    pr.add_argument(
        "--out", required=True, metavar="PRED.csv", help="the predictions to write (a new file)"
    )
    pr.add_argument(
        "--seed", type=seed_of("the posterior"), default=0, help="seed of the posterior (default 0)"
    )
    pr.add_argument(
        "--pooled",
        action="store_true",
        help="start each person from a population prior learnt from the other people of "
        "TRAIN instead of the engine's prior: their posteriors, with some of the engine's "
        "own prior mixed in, as much as their choices give it (the share of them the "
        "engine's prior explains better than the others' posteriors do)",
    )
    pr.add_argument("--json", action="store_true", help="print one JSON document")
    pr.set_defaults(func=cmd_choices_predict)
    fit = ch_sub.add_parser(
        "fit",
        help="one session per person from their recorded choices",
        description="Write one finished session per person of TRAIN (weights, intervals, "
        "P(best) on the scenario's pool), which session show, pick and report read. "
        + layout
        + ".",
    )
    fit.add_argument("train", metavar="TRAIN.csv", help="recorded choices to learn from")
    fit.add_argument("--scenario", required=True, help="scenario file, or a shipped one's id")
    fit.add_argument(
        "--sessions-dir",
        default="sessions",
        metavar="DIR",
        help="where sessions are written, a folder per person (default: sessions)",
    )
    fit.add_argument(
        "--seed", type=seed_of("the posterior"), default=0, help="seed of the posterior (default 0)"
    )
    fit.add_argument(
        "--summary",
        metavar="FILE.csv",
        help="also a CSV with a row per person: their choices, each aspect's share and its "
        "90%% range (empty where their choices never varied it), their session file",
    )
    fit.add_argument("--json", action="store_true", help="print one JSON document")
    fit.set_defaults(func=cmd_choices_fit)
