"""The engine's answer model on real people: held-out choices of the train-trip travellers.

235 Dutch travellers chose between two train trips 2,929 times (data/train-choices,
converted by benchmarks/train_choices.py; scenario ``train-trips``). Each model predicts
P(A) of held-out choices; three splits:

* **5-fold**: each person's choices dealt into five folds (seeded); each fold held out once,
  the model learning from the person's other choices (and, for pooled models, everyone's
  training choices of that fold);
* **later questions**: each person's last 3 choices held out;
* **after 3**: the people dealt into five groups; a person's first 3 choices are all the
  model sees of them, their later ones are held out, and pooled models learn the population
  from the other four groups' people (all their choices): a study's later participant.

Models: the engine per person (:func:`tradeoff.learn.choices.learn_choices`, its own
prior); the engine with the population prior (:mod:`tradeoff.learn.pooled`, learnt from the
other people's engines, never the person's own); a pooled conditional logit; a per-person
logistic regression (scikit-learn); a panel mixed logit (xlogit, normal β) with
individual-level predictions (benchmarks/choice_models.py). Scores pooled over the held-out
rows: log loss, Brier, accuracy, ECE (10 bins) and the ECE of a perfectly calibrated model
on the same rows (median and 95th percentile of 200 simulations).

By position: the held-out rows by their position in the person's sequence (design, and
per model confidence against hit rate; benchmarks/choice_positions.py), the pooled logit's
weights per group of positions, and an experiment that is not part of the engine: the
population prior with a lapse that grows with the answer's position, the growth learnt from
the other people (benchmarks/position_lapse.py).

Run (about 8 minutes of CPU, 10 or more on two busy workers; ``--people 40`` for a first
look)::

    python -m benchmarks.real_choices [--people N] [--workers 2]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks import choice_positions, position_lapse
from benchmarks._table import cpu_name, importable, markdown, reference_unit, write
from benchmarks.choice_models import (
    accuracy,
    brier,
    conditional_logit_p,
    ece,
    ece_floor,
    fit_conditional_logit,
    fit_mixed_logit,
    log_loss,
    mixed_logit_draws,
    mixed_logit_posterior,
    per_person_logistic,
    reliability,
)
from benchmarks.train_choices import ASPECTS, converted
from tradeoff.arrays import FloatArray
from tradeoff.ask.scenario import load_scenario
from tradeoff.learn.choices import forced, learn_choices, pairs, predictive
from tradeoff.learn.engine import Particles
from tradeoff.learn.likelihood import NoiseGrid
from tradeoff.learn.noise_unit import noise_grid, scenario_noise_unit
from tradeoff.learn.pooled import (
    PER_PERSON,
    differences,
    fitted_base_share,
    pooled_predictive,
    population_prior,
    posterior_draws,
)
from tradeoff.simulation.parallel import Backend, run_people

SCENARIO = "scenarios/train-trips.toml"
FOLDS = 5
LATER = 3
FIRST = 3
SEED = 48
#: Population draws of β the mixed logit's individual posteriors weight.
MIXED_DRAWS = 20_000
MODELS = (
    "engine per person",
    "engine, population prior",
    "conditional logit (pooled)",
    "logistic per person",
    "mixed logit (xlogit), individual",
    "experiment: population prior, lapse growing with position",
)
ENGINE, POOLED, CLOGIT, LOGISTIC, MIXED, GROWING = MODELS
SPLITS = ("5-fold", "later questions", "after 3")


@dataclass(frozen=True)
class Person:
    name: str
    a: np.ndarray  # (choices, aspects)
    b: np.ndarray
    y: np.ndarray  # 1: picked A

    @property
    def d(self) -> np.ndarray:
        out: np.ndarray = self.a - self.b
        return out


@dataclass(frozen=True)
class Task:
    """One person's training and held-out rows in one part (a fold or a group) of a split."""

    split: str
    part: int
    person: int
    train: tuple[int, ...]
    test: tuple[int, ...]


def load(limit: int | None = None) -> list[Person]:
    rows: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in converted():
        rows[row["person"]].append(row)
    people = []
    for name in sorted(rows)[:limit]:
        own = rows[name]
        people.append(
            Person(
                name,
                np.array([[float(r[f"A_{x}"]) for x in ASPECTS] for r in own]),
                np.array([[float(r[f"B_{x}"]) for x in ASPECTS] for r in own]),
                np.array([1.0 if r["answer"] == "A" else 0.0 for r in own]),
            )
        )
    return people


def tasks(people: list[Person]) -> list[Task]:
    """Every (split, part, person) with its rows; ``full`` tasks learn from all of a
    person's choices (the population the ``after 3`` split borrows from)."""
    rng = np.random.default_rng(SEED)
    out = []
    groups = rng.permutation(len(people)) % FOLDS
    for i, person in enumerate(people):
        n = len(person.y)
        fold = np.empty(n, dtype=int)
        fold[rng.permutation(n)] = np.arange(n) % FOLDS
        for k in range(FOLDS):
            train = tuple(int(j) for j in np.flatnonzero(fold != k))
            out.append(
                Task("5-fold", k, i, train, tuple(int(j) for j in np.flatnonzero(fold == k)))
            )
        out.append(
            Task("later questions", 0, i, tuple(range(n - LATER)), tuple(range(n - LATER, n)))
        )
        out.append(Task("after 3", int(groups[i]), i, tuple(range(FIRST)), tuple(range(FIRST, n))))
        out.append(Task("full", int(groups[i]), i, tuple(range(n)), ()))
    return out


def engine_task(shared: Any, task: Task) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The engine per person: P(A) of the held-out rows, and draws of its posterior."""
    scenario, people = shared
    person = people[task.person]
    train, test = list(task.train), list(task.test)
    choices = ["left" if v else "right" for v in person.y[train]]
    engine = learn_choices(
        scenario, pairs(scenario, person.a[train], person.b[train]), choices, seed=task.person
    )
    p = forced(predictive(engine, pairs(scenario, person.a[test], person.b[test])))
    particles = engine.particles()
    assert particles is not None
    natural, noise = posterior_draws(particles, PER_PERSON, seed=task.person)
    return p, natural, noise


def _particles(natural: np.ndarray, noise: np.ndarray, grid: NoiseGrid) -> Particles:
    return Particles(natural, noise, np.full(len(noise), 1.0 / len(noise)), grid)


def run(limit: int | None, workers: int) -> str:
    started = time.perf_counter()
    scenario = load_scenario(SCENARIO).scenario
    # The grid the engine learnt with (T and δ in the scenario's unit), for its draws.
    grid = noise_grid(scenario_noise_unit(scenario))
    people = load(limit)
    everything = tasks(people)
    engine_out = run_people(
        importable(engine_task), (scenario, people), everything, Backend(workers), per_chunk=10
    )
    engine_seconds = time.perf_counter() - started
    by_part: dict[tuple[str, int], list[int]] = defaultdict(list)
    for t, task in enumerate(everything):
        by_part[(task.split, task.part)].append(t)
    scale = np.vstack([p.d for p in people]).std(axis=0)
    # Per split: held-out y, each model's P(A), the pooled logit's utility difference,
    # the person of each row, and the population prior's effective draws.
    y: dict[str, list[float]] = defaultdict(list)
    preds: dict[tuple[str, str], list[float]] = defaultdict(list)
    closeness: dict[str, list[float]] = defaultdict(list)
    owner: dict[str, list[int]] = defaultdict(list)
    position: dict[str, list[int]] = defaultdict(list)  # 0: the person's first choice
    from_end: dict[str, list[int]] = defaultdict(list)  # 0: the person's last choice
    growth: dict[str, list[FloatArray]] = defaultdict(list)  # P(g) of the experiment
    held_d: dict[str, list[FloatArray]] = defaultdict(list)  # aspects A − B, held-out rows
    ess: dict[str, list[float]] = defaultdict(list)
    ess_mixed: dict[str, list[float]] = defaultdict(list)
    shares: dict[str, list[float]] = defaultdict(list)  # the engine's prior's fitted share
    xlogit_fits = []
    for (split, part), members in sorted(by_part.items()):
        if split == "full":
            continue
        if split == "after 3":  # the population: everyone outside the group, all choices
            source = [t for (s, g), ts in by_part.items() if s == "full" and g != part for t in ts]
        else:
            source = members
        pop_d = np.vstack(
            [people[everything[t].person].d[list(everything[t].train)] for t in source]
        )
        pop_y = np.concatenate(
            [people[everything[t].person].y[list(everything[t].train)] for t in source]
        )
        pop_names = [people[everything[t].person].name for t in source for _ in everything[t].train]
        beta = fit_conditional_logit(pop_d, pop_y)
        fit_start = time.perf_counter()
        means, sds = fit_mixed_logit(pop_d, pop_y, pop_names, ASPECTS, seed=SEED)
        xlogit_fits.append(time.perf_counter() - fit_start)
        draws = mixed_logit_draws(means, sds, size=MIXED_DRAWS, seed=SEED)
        prior = population_prior(
            scenario,
            {
                people[everything[t].person].name: _particles(*engine_out[t][1:], grid)
                for t in source
            },
            seed=SEED,
        )
        # The engine's own prior at the share the source people's choices give it, as
        # `tradeoff choices predict --pooled` does (tradeoff.learn.pooled.fitted_base_share).
        evidence = {}
        for t in source:
            who = people[everything[t].person]
            rows = list(everything[t].train)
            evidence[who.name] = (
                pairs(scenario, who.a[rows], who.b[rows]),
                ["left" if v else "right" for v in who.y[rows]],
            )
        prior = prior.with_base_share(fitted_base_share(scenario, prior, evidence))
        shares[split].append(prior.base_share)
        # The experiment: each source person's log P(training answers | draw, g) under the
        # prior without them, and the posterior of g from everyone but the person predicted.
        log_lik, log_m = {}, {}
        for t in source:
            task = everything[t]
            person = people[task.person]
            own = prior.without(person.name)
            rows = list(task.train)
            picked = [0 if v else 1 for v in person.y[rows]]
            v = differences(scenario, pairs(scenario, person.a[rows], person.b[rows]))
            log_lik[t] = position_lapse.log_likelihoods(own, v, picked, rows)
            log_m[task.person] = position_lapse.log_marginal(own, log_lik[t])
        for t in members:
            task = everything[t]
            person = people[task.person]
            train, test = list(task.train), list(task.test)
            d, d_new = person.d[train], person.d[test]
            own = prior.without(person.name)
            queries = pairs(scenario, person.a[train], person.b[train])
            choices = ["left" if v else "right" for v in person.y[train]]
            pooled, n_eff = pooled_predictive(
                scenario, own, queries, choices, pairs(scenario, person.a[test], person.b[test])
            )
            ess[split].append(n_eff)
            y[split] += person.y[test].tolist()
            owner[split] += [task.person] * len(test)
            closeness[split] += (d_new @ beta).tolist()
            preds[(split, ENGINE)] += engine_out[t][0].tolist()
            preds[(split, POOLED)] += forced(pooled).tolist()
            preds[(split, CLOGIT)] += conditional_logit_p(beta, d_new).tolist()
            preds[(split, LOGISTIC)] += per_person_logistic(
                d, person.y[train], d_new, scale
            ).tolist()
            mixed, n_mixed = mixed_logit_posterior(draws, d, person.y[train], d_new)
            preds[(split, MIXED)] += mixed.tolist()
            ess_mixed[split].append(n_mixed)
            others = position_lapse.growth_posterior(
                [m for i, m in log_m.items() if i != task.person]
            )
            if t not in log_lik:
                picked = [0 if v else 1 for v in person.y[train]]
                log_lik[t] = position_lapse.log_likelihoods(
                    own, differences(scenario, queries), picked, train
                )
            v_new = differences(scenario, pairs(scenario, person.a[test], person.b[test]))
            growing, _ = position_lapse.growing_predictive(own, others, log_lik[t], (v_new, test))
            preds[(split, GROWING)] += forced(growing).tolist()
            growth[split].append(others)
            position[split] += test
            held_d[split].append(d_new)
            from_end[split] += [len(person.y) - 1 - j for j in test]
    seconds = time.perf_counter() - started
    noise = _noise_summary(everything, engine_out, grid)
    return report(
        people,
        y,
        preds,
        closeness,
        owner,
        (ess, ess_mixed, shares),
        choice_positions.Where(position, from_end, growth, held_d),
        noise,
        limit,
        (engine_seconds, seconds, float(np.median(xlogit_fits)), workers),
    )


def _noise_summary(
    everything: list[Task], engine_out: list[Any], grid: NoiseGrid
) -> dict[str, float]:
    """The engine's posterior answer noise after all of each person's choices."""
    lapse, temperature, band = [], [], []
    for task, (_, _, cells) in zip(everything, engine_out, strict=True):
        if task.split == "full":
            e, t, b = grid.values(cells)
            lapse.append(float(e.mean()))
            temperature.append(float((t > 0).mean()))
            band.append(float(b.mean()))
    return {
        "lapse median": float(np.median(lapse)),
        "lapse q90": float(np.quantile(lapse, 0.9)),
        "graded share": float(np.median(temperature)),
    }


def _scores(y: np.ndarray, p: np.ndarray) -> tuple[float, float, float, float, float, float]:
    median, high = ece_floor(p, seed=SEED)
    return log_loss(y, p), brier(y, p), accuracy(y, p), ece(y, p), median, high


def report(
    people: list[Person],
    y: dict[str, list[float]],
    preds: dict[tuple[str, str], list[float]],
    closeness: dict[str, list[float]],
    owner: dict[str, list[int]],
    ess_both: tuple[dict[str, list[float]], dict[str, list[float]], dict[str, list[float]]],
    where: choice_positions.Where,
    noise: dict[str, float],
    limit: int | None,
    timing: tuple[float, float, float, int],
) -> str:
    engine_seconds, seconds, xlogit_seconds, workers = timing
    parts = []
    table: dict[tuple[str, str], tuple[float, ...]] = {}
    rows = []
    for split in SPLITS:
        ys = np.array(y[split])
        for model in MODELS:
            scores = _scores(ys, np.array(preds[(split, model)]))
            table[(split, model)] = scores
            rows.append(
                [
                    split,
                    model,
                    len(ys),
                    *(f"{s:.3f}" for s in scores[:4]),
                    f"{scores[4]:.3f} / {scores[5]:.3f}",
                ]
            )
    parts.append(
        "## Held-out choices\n\n"
        "Pooled over every held-out row of the split; ECE floor: the ECE of a perfectly "
        "calibrated model on the same rows (outcomes drawn from the model's own p; median / "
        "95th percentile of 200 draws).\n\n"
        + markdown(
            ["split", "model", "rows", "log loss", "Brier", "accuracy", "ECE", "ECE floor"], rows
        )
    )
    fits = choice_positions.weights_by_position([(p.d, p.y) for p in people], seed=SEED)
    parts.append(_goals(table, y, preds, owner, (where, fits)))
    parts.append(_reliability(y, preds))
    for split in ("5-fold", "later questions"):
        parts.append(_closeness(split, y, preds, closeness))
    parts.append(
        choice_positions.section(
            [(p.d, p.y) for p in people],
            y,
            preds,
            closeness,
            where,
            ((ENGINE, "engine"), (POOLED, "prior"), (MIXED, "mixed"), (GROWING, "growing")),
            (fits, ASPECTS),
        )
    )
    ess, ess_mixed, shares = ess_both
    fitted = "; ".join(
        f"{s} {min(shares[s]):.1%}"
        + ("" if max(shares[s]) == min(shares[s]) else f" to {max(shares[s]):.1%}")
        for s in SPLITS
    )
    ess_rows = [
        [
            "population prior" if e is ess else f"mixed logit ({MIXED_DRAWS:,} draws)",
            s,
            f"{np.median(e[s]):.0f}",
            f"{np.quantile(e[s], 0.05):.0f}",
            f"{min(e[s]):.0f}",
        ]
        for e in (ess, ess_mixed)
        for s in SPLITS
    ]
    parts.append(
        "## The population prior\n\n"
        "The mixture of the other people's posteriors (100 draws each) and the engine's own "
        "prior, at the share the source people's choices give it "
        "(`tradeoff.learn.pooled.fitted_base_share`: its posterior mean under a flat prior; "
        f"by split, over its parts: {fitted}); a person's posterior weights those draws by "
        "their choices. Effective draws carrying each person's posterior:\n\n"
        + markdown(["draws of", "split", "median", "5th percentile", "fewest"], ess_rows)
        + "\n\nThe engine per person, after all of a person's choices: median posterior mean "
        f"lapse ε {noise['lapse median']:.3f} (90th percentile over people "
        f"{noise['lapse q90']:.3f}); median posterior share of graded answers (T > 0) "
        f"{noise['graded share']:.2f}."
    )
    who = "all 235 people" if limit is None else f"the first {len(people)} people"
    parts.append(
        f"## Run\n\n{who}, {sum(len(p.y) for p in people)} choices; engine runs on {workers} "
        f"worker processes: {engine_seconds:.0f} s; whole benchmark {seconds:.0f} s; one "
        f"xlogit fit (median) {xlogit_seconds:.1f} s. CPU: {cpu_name()}; reference unit "
        f"{reference_unit() * 1e3:.1f} ms.\n\nCommand: `python -m benchmarks.real_choices"
        + ("" if limit is None else f" --people {limit}")
        + f" --workers {workers}`"
    )
    return "\n\n".join(parts)


def _goals(
    table: dict[tuple[str, str], tuple[float, ...]],
    y: dict[str, list[float]],
    preds: dict[tuple[str, str], list[float]],
    owner: dict[str, list[int]],
    by_position: tuple[choice_positions.Where, dict[str, tuple[FloatArray, FloatArray]]],
) -> str:
    lines = ["## Goals of issue 48", ""]
    where, fits = by_position
    for split in ("5-fold", "later questions"):
        pooled, mixed = table[(split, POOLED)][0], table[(split, MIXED)][0]
        gap = (pooled - mixed) / mixed
        lines.append(
            f"- {split}: log loss with the population prior {pooled:.3f} vs mixed logit "
            f"{mixed:.3f}: {'met' if pooled <= mixed else 'missed'} ({gap:+.1%})."
        )
        e, high = table[(split, POOLED)][3], table[(split, POOLED)][5]
        lines.append(
            f"- {split}: ECE with the population prior {e:.3f} vs the floor's 95th percentile "
            f"{high:.3f}: {'met' if e <= high else 'missed'} (by {e - high:+.3f})."
        )
        if split == "later questions":
            lines.append("  " + choice_positions.later_explained(fits, y, preds, where, POOLED))
        own, logistic = table[(split, ENGINE)][0], table[(split, LOGISTIC)][0]
        ys = np.array(y[split])
        who = np.array(owner[split])
        better = 0
        people = np.unique(who)
        for i in people:
            rows = who == i
            pe = log_loss(ys[rows], np.array(preds[(split, ENGINE)])[rows])
            pl = log_loss(ys[rows], np.array(preds[(split, LOGISTIC)])[rows])
            better += pe <= pl
        lines.append(
            f"- {split}: engine per person {own:.3f} vs per-person logistic {logistic:.3f}: "
            f"{'met' if own <= logistic else 'missed'} ({(own - logistic) / logistic:+.1%}); "
            f"no worse for {better} of {len(people)} people."
        )
    own, pooled = table[("after 3", ENGINE)][0], table[("after 3", POOLED)][0]
    cut = 1 - pooled / own
    lines.append(
        f"- (not a goal) after 3 choices the engine per person scores log loss {own:.3f}, "
        f"against {np.log(2):.3f} for a coin (P(A) = ½ throughout), with ECE "
        f"{table[('after 3', ENGINE)][3]:.3f} (floor's 95th percentile "
        f"{table[('after 3', ENGINE)][5]:.3f})."
    )
    lines.append(
        f"- after each person's first 3 choices: log loss {pooled:.3f} with the prior vs "
        f"{own:.3f} without, {cut:.1%} lower: {'met' if cut >= 0.2 else 'missed'} "
        f"(goal ≥ 20 %)."
    )
    return "\n".join(lines)


def _reliability(y: dict[str, list[float]], preds: dict[tuple[str, str], list[float]]) -> str:
    out = ["## Reliability (5-fold)", ""]
    ys = np.array(y["5-fold"])
    for model in (ENGINE, POOLED, MIXED):
        p = np.array(preds[("5-fold", model)])
        rows = [[span, n, f"{mp:.3f}", f"{obs:.3f}"] for span, n, mp, obs in reliability(ys, p)]
        out.append(f"{model}:\n\n" + markdown(["P(A)", "rows", "mean P(A)", "picked A"], rows))
    return "\n\n".join(out)


def _closeness(
    split: str,
    y: dict[str, list[float]],
    preds: dict[tuple[str, str], list[float]],
    closeness: dict[str, list[float]],
) -> str:
    """Confidence against hit rate by how far apart the options are: rows in fifths of
    |β·d| (the pooled logit's utility difference, one axis for every model); per model,
    the mean probability of the side it favours and the share of rows where that side
    was picked, and its log loss."""
    ys = np.array(y[split])
    u = np.array(closeness[split])
    edges = np.quantile(np.abs(u), np.linspace(0, 1, 6))
    which = np.clip(np.searchsorted(edges, np.abs(u), side="right") - 1, 0, 4)
    rows = []
    for b in range(5):
        inside = which == b
        row: list[object] = [f"{edges[b]:.2f}–{edges[b + 1]:.2f}", int(inside.sum())]
        for model in (ENGINE, POOLED, MIXED):
            p = np.array(preds[(split, model)])[inside]
            confidence = float(np.maximum(p, 1 - p).mean())
            row += [
                f"{confidence:.3f} / {accuracy(ys[inside], p):.3f}",
                f"{log_loss(ys[inside], p):.3f}",
            ]
        rows.append(row)
    headers = ["|β·d|", "rows"]
    for short in ("engine", "prior", "mixed"):
        headers += [f"{short}: confidence / hit", f"{short}: log loss"]
    mean_gap = float(np.abs(u).mean())
    gaps = []
    for model in (ENGINE, POOLED, MIXED):
        p = np.array(preds[(split, model)])
        per_fifth = []
        for b in (0, 4):
            inside = which == b
            hit = accuracy(ys[inside], p[inside])
            per_fifth.append(float(np.maximum(p, 1 - p)[inside].mean()) - hit)
        gaps.append(
            f"{model}: {per_fifth[0]:+.3f} in the closest fifth, {per_fifth[1]:+.3f} in the "
            "farthest"
        )
    return (
        f"## By how close the options are ({split})\n\n"
        "Rows in fifths of |β·d|, the pooled conditional logit's utility difference (mean "
        f"{mean_gap:.2f} over this split's held-out rows); per model the mean probability of "
        "the side it favours (confidence) against the share of rows where that side was "
        "picked (hit), and the log loss.\n\n"
        + markdown(headers, rows)
        + "\n\nConfidence minus hit rate (positive: overconfident): "
        + "; ".join(gaps)
        + "."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=None, help="only the first N people")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    body = run(args.people, args.workers)
    name = "real-choices" if args.people is None else f"real-choices-{args.people}"
    write(name, "The engine's answer model on real choices (train trips)", body)


if __name__ == "__main__":
    main()
