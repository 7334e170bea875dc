"""``tradeoff choices``: learn from choices people made elsewhere (a finished survey or a
study run in another tool), with the engine's own posterior and answer model
(:mod:`tradeoff.study.choices`)."""

from __future__ import annotations

import argparse

from tradeoff.cli.common import emit, say, seed


def add_choices_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``choices`` command and its actions."""
    ch = sub.add_parser("choices", help="learn from choices recorded elsewhere (CSV)")
    ch_sub = ch.add_subparsers(title="choices commands", metavar="ACTION", required=True)
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
    pr.add_argument("--out", required=True, metavar="PRED.csv", help="a new CSV file")
    pr.add_argument("--seed", type=int, default=0, help="seed of the posterior (default 0)")
    pr.add_argument(
        "--pooled",
        action="store_true",
        help="start each person from a population prior learnt from the other people of "
        "TRAIN (their posteriors, with a tenth of the engine's own prior) instead of the "
        "engine's prior",
    )
    pr.add_argument("--json", action="store_true", help="print one JSON document")
    pr.set_defaults(func=cmd_choices_predict)
    fit = ch_sub.add_parser(
        "fit",
        help="one session per person from their recorded choices",
        description="Write one finished session per person of TRAIN (weights, intervals, "
        "P(best) on the scenario's pool), which session show, select and report read. "
        + layout
        + ".",
    )
    fit.add_argument("train", metavar="TRAIN.csv", help="recorded choices to learn from")
    fit.add_argument("--scenario", required=True, help="scenario file, or a shipped one's id")
    fit.add_argument("--sessions-dir", default="sessions", help="where sessions are written")
    fit.add_argument("--seed", type=int, default=0, help="seed of the posterior (default 0)")
    fit.add_argument("--json", action="store_true", help="print one JSON document")
    fit.set_defaults(func=cmd_choices_fit)


def cmd_choices_predict(args: argparse.Namespace) -> int:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.choices import predict_file, read_choices

    seed(args.seed)
    loaded = load_scenario(args.scenario)
    sc = loaded.scenario
    train = read_choices(args.train, sc, answers=True, scenario_path=loaded.path)
    holdout = read_choices(args.holdout, sc, answers=False, scenario_path=loaded.path)
    n = predict_file(sc, train, holdout, args.out, seed=args.seed, pooled=args.pooled)
    people = len(holdout.people())
    unseen = len(set(holdout.people()) - set(train.people()))
    if args.json:
        emit({"out": str(args.out), "rows": n, "people": people, "people_without_train": unseen})
    else:
        say(f"{n} predictions for {people} people written to {args.out}.")
        if unseen:
            say(f"{unseen} of them have no choices in {args.train}: their p_A is the prior's.")
    return 0


def cmd_choices_fit(args: argparse.Namespace) -> int:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.choices import fit_file, read_choices

    seed(args.seed)
    loaded = load_scenario(args.scenario)
    train = read_choices(args.train, loaded.scenario, answers=True, scenario_path=loaded.path)
    files = fit_file(loaded, train, args.sessions_dir, seed=args.seed)
    if args.json:
        emit({"sessions": [str(f) for f in files]})
    else:
        say(f"{len(files)} sessions written under {args.sessions_dir}:")
        for f in files:
            say(f"  {f}")
        say("Read them with tradeoff session show FILE, tradeoff select --session FILE ….")
    return 0
