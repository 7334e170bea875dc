"""``tradeoff choices``: learn from choices people made elsewhere (a finished survey or a
study run in another tool), with the engine's own posterior and answer model
(:mod:`tradeoff.study.choices`)."""

from __future__ import annotations

import argparse

from tradeoff.cli.common import emit, say, seed


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
        say("Read them with tradeoff session show FILE, tradeoff pick --session FILE ….")
    return 0
