"""A simulated study that learns across its participants.

Run: ``.venv/bin/python -m benchmarks.population_study [--people 300] [--every 10]
[--answers flip:0.1] [--shares 0.45,0.45,0.1] [--control | --control-only | --true-prior]
[--seed 0] [--no-write]`` (writes benchmarks/results/population-study.md, with
``--control-only`` population-study-control.md, with ``--true-prior``
population-study-true-prior.md, unless ``--no-write``).

300 simulated people (benchmarks/decision.py's setting of ``breast-cancer-triage``: the
shipped pool of 34 real models, strategy ``joint``, budget 30, the scenario's stop) from
three preference groups, 45 %, 45 % and 10 % of them (``--shares``) (swing weights drawn from a
Dirichlet around each group's centre), come one after another in a seeded order and answer
adaptively (:mod:`tradeoff.simulation.oracles`). Every ``--every`` finished people the
study's population prior is pooled again from everyone finished so far
(:func:`tradeoff.learn.study_prior.study_prior`, each person's own posterior:
:func:`~tradeoff.learn.study_prior.own_particles`), and the people after start from it,
as a study's sessions do. With ``--control`` the same people (same answers' seeds) are
asked again without any population prior; ``--control-only`` asks only the last third so
(what the prior saved them, paired person by person, at a third of the cost).

Reported: median questions of the first and the last third (the goal: the last 100 need
≥ 30 % fewer than the first 100 at the same right-pick rate), right picks (the truth's
best model) and picks within the truth's perceivable margin per third; per group the
confident stops (stated P ≥ the scenario's ``decision_confidence`` before the budget) and
the share of them that were wrong (goal ≤ 5 % in every group); and the groups found
among the participants' posterior-mean swing weights (:func:`tradeoff.study.groups.
find_groups`) against the true groups by adjusted Rand index (goal ≥ 0.8).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from benchmarks._table import cpu_name, markdown, write
from benchmarks.decision import BUDGET, setting
from tradeoff.learn import Engine
from tradeoff.learn.engine import Particles
from tradeoff.learn.particles import perceivable_margin
from tradeoff.learn.starting_prior import StartingPrior
from tradeoff.learn.study_prior import STUDY_BASE_SHARE, own_particles, study_prior
from tradeoff.simulation.oracles import Noise, SimulatedOracle
from tradeoff.simulation.simulate import score_run
from tradeoff.study.groups import find_groups

SCENARIO = "breast-cancer-triage"
#: Group centres (swing weights) and shares of the population: the third is the minority.
#: On the shipped pool each group's people mostly want a model of their own (at the
#: centres: the fifth, the sixth and the second of scenarios/pools/breast-cancer.csv).
CENTRES = (
    (0.70, 0.10, 0.10, 0.10),
    (0.35, 0.25, 0.20, 0.20),
    (0.15, 0.55, 0.15, 0.15),
)
SHARES = (0.45, 0.45, 0.10)
#: Concentration of each group's Dirichlet around its centre.
CONCENTRATION = 60.0


def population(
    people: int, seed: int, shares: tuple[float, ...] = SHARES
) -> tuple[np.ndarray, np.ndarray]:
    """(true natural-unit weights, group) of every person, in the order they come."""
    s = setting(SCENARIO)
    rng = np.random.default_rng([seed, 48])
    counts = [round(people * share) for share in shares[:-1]]
    counts.append(people - sum(counts))
    groups = np.concatenate([np.full(c, g) for g, c in enumerate(counts)])
    rng.shuffle(groups)
    swing = np.array([rng.dirichlet(CONCENTRATION * np.asarray(CENTRES[g])) for g in groups])
    natural = swing / np.asarray(s.spans)
    natural /= natural.sum(axis=1, keepdims=True)
    return natural, groups


def ask(
    truth: np.ndarray, start: StartingPrior | None, answers: str, index: int, seed: int
) -> tuple[dict[str, Any], Engine]:
    s = setting(SCENARIO)
    sc = s.scenario
    spec = sc.elicitation.override(strategy="joint", budget=BUDGET)
    ss = np.random.SeedSequence([seed, index, 3])
    oracle_seed, engine_seed = (int(x) for x in ss.generate_state(2))
    engine = Engine(
        sc, spec, seed=engine_seed, population=s.population, candidates=s.rows, start=start
    )
    oracle = SimulatedOracle.for_scenario(sc, truth, noise=Noise.parse(answers), seed=oracle_seed)
    while (q := engine.next_query()) is not None:
        engine.answer(oracle.choose(q))
    psi = s.rows @ truth
    best = int(np.argmax(psi))
    score = score_run(sc, s.pool, engine, truth, s.rows)
    pick = s.pool.names.index(score.recommended)
    within = float(psi[best] - psi[pick]) <= float(perceivable_margin(truth[None, :], s.spans)[0])
    verdict = engine.verdict()
    tied = verdict is not None and verdict.practically_tied
    stated = engine.decision()
    p = None if stated is None else stated[0]
    confident = p is not None and p >= spec.decision_confidence and engine.answered < BUDGET
    result = engine.result()
    return {
        "questions": engine.answered,
        "right": score.right,
        "within": within,
        "stated_right": score.right or (tied and within),
        "confident": confident,
        "swing": result.swing_weights,
    }, engine


def run(
    people: int,
    every: int,
    answers: str,
    seed: int,
    pooled: bool,
    shares: tuple[float, ...] = SHARES,
) -> dict[str, Any]:
    s = setting(SCENARIO)
    truths, groups = population(people, seed, shares)
    finished: dict[str, Particles] = {}
    start: StartingPrior | None = None
    rows = []
    refreshes = []
    cpu = time.process_time()
    for i, truth in enumerate(truths):
        row, engine = ask(truth, start, answers, i, seed)
        row["group"] = int(groups[i])
        row["prior"] = 0 if start is None else len(start.sessions)
        rows.append(row)
        if pooled:
            finished[f"p{i:04d}"] = own_particles(engine)
            if len(finished) % every == 0:
                t = time.process_time()
                start = study_prior(s.scenario, s.spans, finished, seed=seed) or start
                refreshes.append(time.process_time() - t)
    return {
        "rows": rows,
        "groups": groups,
        "cpu": time.process_time() - cpu,
        "refresh": refreshes,
    }


def adjusted_rand(a: np.ndarray, b: np.ndarray) -> float:
    """Adjusted Rand index of two labelings (Hubert & Arabie 1985)."""
    _, ia = np.unique(a, return_inverse=True)
    _, ib = np.unique(b, return_inverse=True)
    table = np.zeros((ia.max() + 1, ib.max() + 1))
    np.add.at(table, (ia, ib), 1)

    def pairs(x: np.ndarray) -> float:
        return float((x * (x - 1) / 2).sum())

    n = len(a)
    index, rows, cols = pairs(table), pairs(table.sum(axis=1)), pairs(table.sum(axis=0))
    expected = rows * cols / (n * (n - 1) / 2)
    top = (rows + cols) / 2
    return 1.0 if top == expected else (index - expected) / (top - expected)


def thirds(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    n = len(rows)
    third = n // 3
    return [
        (f"first {third}", rows[:third]),
        (f"middle {n - 2 * third}", rows[third : n - third]),
        (f"last {third}", rows[n - third :]),
    ]


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def report(out: dict[str, Any], control: dict[str, Any] | None, args: argparse.Namespace) -> str:
    rows = out["rows"]
    lines = []
    table = []
    for label, part in thirds(rows):
        q = np.array([r["questions"] for r in part])
        table.append(
            [
                label,
                f"{np.median(q):g}",
                f"{q.mean():.2f}",
                pct(np.mean([r["right"] for r in part])),
                pct(np.mean([r["within"] for r in part])),
                f"{np.median([r['prior'] for r in part]):g}",
            ]
        )
    headers = ["people", "questions (median)", "mean", "right pick", "within margin", "prior of"]
    lines.append("## Questions as the study learns\n")
    lines.append(markdown(headers, table))
    first, last = thirds(rows)[0][1], thirds(rows)[2][1]
    q_first = float(np.median([r["questions"] for r in first]))
    q_last = float(np.median([r["questions"] for r in last]))
    saving = 1 - q_last / q_first
    right_first = float(np.mean([r["right"] for r in first]))
    right_last = float(np.mean([r["right"] for r in last]))
    paired = None
    if control is not None:
        ctable = []
        for label, part in thirds(control["rows"]):
            q = np.array([r["questions"] for r in part])
            ctable.append(
                [
                    label + ", no prior",
                    f"{np.median(q):g}",
                    f"{q.mean():.2f}",
                    pct(np.mean([r["right"] for r in part])),
                    pct(np.mean([r["within"] for r in part])),
                ]
            )
        lines.append("\nThe same people, answer and engine seeds, without a population prior:\n")
        lines.append(markdown(headers[:5], ctable))
        c_last = thirds(control["rows"])[2][1]
        paired = (
            float(np.median([r["questions"] for r in c_last])),
            float(np.mean([r["right"] for r in c_last])),
        )
    lines.append("\n## Confident stops by group\n")
    gtable = []
    worst = 0.0
    for g in range(len(CENTRES)):
        members = [r for r in rows if r["group"] == g]
        conf = [r for r in members if r["confident"]]
        wrong = sum(not r["stated_right"] for r in conf)
        share = wrong / len(conf) if conf else 0.0
        worst = max(worst, share)
        gtable.append(
            [
                f"{g + 1} ({pct(args.shares[g])})",
                len(members),
                len(conf),
                wrong,
                pct(share),
                pct(np.mean([r["right"] for r in members])),
                f"{np.median([r['questions'] for r in members]):g}",
            ]
        )
    lines.append(
        markdown(
            ["group", "people", "confident stops", "wrong", "wrong share", "right", "questions"],
            gtable,
        )
    )
    swing = np.array([r["swing"] for r in rows])
    groups = find_groups(swing, seed=args.seed)
    ari = adjusted_rand(groups.labels, out["groups"])
    lines.append("\n## Groups found\n")
    lines.append(
        f"{groups.count} groups (BIC by number of groups: "
        + ", ".join(f"{b:.1f}" for b in groups.bic)
        + f"), sizes {groups.sizes()}, mean membership probability "
        + ", ".join(f"{x:.2f}" for x in groups.sureness())
        + f"; adjusted Rand index against the true groups {ari:.3f}.\n"
    )
    goals = [
        [
            "last third needs ≥ 30 % fewer questions (median) at the same right-pick rate",
            f"{q_first:g} → {q_last:g} ({pct(saving)} fewer); right {pct(right_first)} → "
            f"{pct(right_last)}",
            "met" if saving >= 0.3 and right_last >= right_first - 0.02 else "missed",
        ],
        *(
            []
            if paired is None
            else [
                [
                    "last third with the prior vs the same people without (paired): "
                    "≥ 30 % fewer questions (median)",
                    f"{paired[0]:g} → {q_last:g} ({pct(1 - q_last / paired[0])} fewer); right "
                    f"{pct(paired[1])} → {pct(right_last)}",
                    "met"
                    if 1 - q_last / paired[0] >= 0.3 and right_last >= paired[1] - 0.02
                    else "missed",
                ]
            ]
        ),
        [
            "wrong among confident stops ≤ 5 % in every group",
            f"worst group {pct(worst)}",
            "met" if worst <= 0.05 else "missed",
        ],
        ["groups recovered, ARI ≥ 0.8", f"{ari:.3f}", "met" if ari >= 0.8 else "missed"],
    ]
    lines.append("\n## Goals\n")
    lines.append(markdown(["goal", "measured", ""], goals))
    refresh = out["refresh"]
    lines.append(
        f"\nCommand: `python -m benchmarks.population_study --people {args.people} --every "
        f"{args.every} --answers {args.answers} --seed {args.seed}"
        + ("" if args.shares == SHARES else " --shares " + ",".join(f"{x:g}" for x in args.shares))
        + (" --control" if control is not None else "")
        + f"`. CPU: {cpu_name()}. CPU time of the study {out['cpu']:.0f} s"
        + (
            f", of which {sum(refresh):.0f} s in {len(refresh)} refreshes of the prior "
            f"(the last {refresh[-1]:.1f} s)"
            if refresh
            else ""
        )
        + (f"; the control without a prior {control['cpu']:.0f} s" if control else "")
        + "."
    )
    return "\n".join(lines)


def last_third(args: argparse.Namespace, prior: StartingPrior | None) -> list[dict[str, Any]]:
    """The last third of the study's people (the same truths, answer and engine seeds),
    each asked from ``prior`` (``None``: the engine's own)."""
    truths, groups = population(args.people, args.seed, args.shares)
    rows = []
    for i in range(args.people - args.people // 3, args.people):
        row, _ = ask(truths[i], prior, args.answers, i, args.seed)
        row["group"] = int(groups[i])
        rows.append(row)
    return rows


def control_only(args: argparse.Namespace) -> str:
    """The last third of the study's people (the same truths, answer and engine seeds)
    asked from the engine's own prior: what the population prior saved them."""
    start = args.people - args.people // 3
    cpu = time.process_time()
    rows = last_third(args, None)
    q = np.array([r["questions"] for r in rows])
    table = [
        [
            f"{start + 1}–{args.people}, no prior",
            f"{np.median(q):g}",
            f"{q.mean():.2f}",
            pct(np.mean([r["right"] for r in rows])),
            pct(np.mean([r["within"] for r in rows])),
        ]
    ]
    gtable = []
    for g in range(len(CENTRES)):
        conf = [r for r in rows if r["group"] == g and r["confident"]]
        wrong = sum(not r["stated_right"] for r in conf)
        gtable.append([g + 1, len(conf), wrong, pct(wrong / len(conf) if conf else 0.0)])
    return (
        markdown(["people", "questions (median)", "mean", "right pick", "within margin"], table)
        + "\n\n"
        + markdown(["group", "confident stops", "wrong", "wrong share"], gtable)
        + f"\n\nCommand: `python -m benchmarks.population_study --control-only --people "
        f"{args.people} --answers {args.answers} --seed {args.seed}`. CPU: {cpu_name()}. "
        f"CPU time {time.process_time() - cpu:.0f} s."
    )


#: People drawn afresh from the true population to fit its prior (``--true-prior``).
TRUE_DRAWS = 2000


def true_prior(seed: int, shares: tuple[float, ...], base_share: float) -> StartingPrior:
    """The population the people are drawn from, as a study's prior: the same mixture
    model (:meth:`~tradeoff.learn.starting_prior.StartingPrior.of`) fitted to
    ``TRUE_DRAWS`` true swing weights of people drawn afresh from the three groups (other
    people than the study's), with the engine's own prior at ``base_share``. No prior
    pooled from answers can know the population better: what it saves is the most a
    population prior can save these people."""
    s = setting(SCENARIO)
    natural, _ = population(TRUE_DRAWS, seed + 1000, shares)
    swing = natural * np.asarray(s.spans)
    swing = np.maximum(swing / swing.sum(axis=1, keepdims=True), 1e-12)
    return StartingPrior.of(swing, base_share, ("the true population",))


def with_true_prior(args: argparse.Namespace) -> str:
    """The last third of the study's people (the same truths, answer and engine seeds)
    asked from no prior, and from the true population's prior at the study's base share
    and at 1 %: the most any population prior can save them."""
    start = args.people - args.people // 3
    cpu = time.process_time()
    priors: list[tuple[str, StartingPrior | None]] = [
        ("no prior", None),
        (
            f"the true population, base share {STUDY_BASE_SHARE:g}",
            true_prior(args.seed, args.shares, STUDY_BASE_SHARE),
        ),
        ("the true population, base share 0.01", true_prior(args.seed, args.shares, 0.01)),
    ]
    table = []
    none = 0.0
    for label, prior in priors:
        rows = last_third(args, prior)
        q = np.array([r["questions"] for r in rows])
        median = float(np.median(q))
        none = none or median
        wrong = []
        for g in range(len(CENTRES)):
            conf = [r for r in rows if r["group"] == g and r["confident"]]
            bad = sum(not r["stated_right"] for r in conf)
            wrong.append(f"{bad} of {len(conf)}")
        table.append(
            [
                label,
                f"{median:g}",
                f"{q.mean():.2f}",
                "" if prior is None else pct(1 - median / none),
                pct(np.mean([r["right"] for r in rows])),
                pct(np.mean([r["within"] for r in rows])),
                ", ".join(wrong),
            ]
        )
    headers = [
        f"people {start + 1}–{args.people}, asked from",
        "questions (median)",
        "mean",
        "fewer than with no prior",
        "right pick",
        "within margin",
        "wrong among confident stops, by group",
    ]
    return (
        markdown(headers, table)
        + f"\n\nCommand: `python -m benchmarks.population_study --true-prior --people "
        f"{args.people} --answers {args.answers} --seed {args.seed}`. CPU: {cpu_name()}. "
        f"CPU time {time.process_time() - cpu:.0f} s."
    )


def shares_arg(text: str) -> tuple[float, ...]:
    """``--shares``: one share per group, positive, summing to 1."""
    try:
        shares = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: write numbers, e.g. 0.45,0.45,0.1") from None
    if len(shares) != len(CENTRES) or min(shares) <= 0 or abs(sum(shares) - 1) > 1e-9:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give {len(CENTRES)} positive shares that sum to 1, e.g. 0.45,0.45,0.1"
        )
    return shares


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=300)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--answers", default="flip:0.1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--shares",
        type=shares_arg,
        default=SHARES,
        help="the three groups' shares of the people, e.g. 0.47,0.47,0.06 (a smaller minority)",
    )
    parser.add_argument("--control", action="store_true")
    parser.add_argument(
        "--control-only",
        action="store_true",
        help="only the last third, without a prior (the same people and seeds as the "
        "study's): writes population-study-control.md",
    )
    parser.add_argument(
        "--true-prior",
        action="store_true",
        help="only the last third, from no prior and from the true population's prior "
        "(the most a population prior can save): writes population-study-true-prior.md",
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    # The last third alone: asked without a prior, or also from the true population's.
    alone = [
        (args.true_prior, with_true_prior, "true-prior", "What the true population saves"),
        (args.control_only, control_only, "control", "The study's last third without a prior"),
    ]
    for chosen, make, name, title in alone:
        if chosen:
            body = make(args)
            if args.no_write:
                print(body)
            else:
                write(f"population-study-{name}", title, body)
            return
    out = run(args.people, args.every, args.answers, args.seed, True, args.shares)
    control = (
        run(args.people, args.every, args.answers, args.seed, False, args.shares)
        if args.control
        else None
    )
    body = report(out, control, args)
    if args.no_write:
        print(body)
    else:
        write("population-study", "A study that learns across its participants", body)


if __name__ == "__main__":
    main()
