"""A check for benchmarks/real_choices.py, not part of the engine: do a person's answers
predict their later ones better when the older answers count less?

The train travellers weigh travel time less and less as they go on (real-choices.md, "By
position"): a model that holds one set of weights per person, learnt from all their earlier
answers alike, is overconfident on their last ones. Weights that drift along the sequence
would let older answers count less. This check approximates that with the peer model's
individual posterior (benchmarks/choice_models.py): the panel mixed logit's population
draws weighted by the person's choices, each choice's log likelihood multiplied by
λ^k, k its distance in positions from the row predicted (a power prior; λ = 1 is the
benchmark's own mixed logit). Both splits of the benchmark; prints one line per λ.

Run (three to four minutes of CPU)::

    python -m benchmarks.recency_weights
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit, log_expit

from benchmarks.choice_models import (
    accuracy,
    ece,
    ece_floor,
    fit_mixed_logit,
    log_loss,
    mixed_logit_draws,
)
from benchmarks.real_choices import MIXED_DRAWS, SEED, load, tasks
from benchmarks.train_choices import ASPECTS

FloatArray = NDArray[np.float64]
LAMBDAS = (1.0, 0.9, 0.8, 0.7)


def recency_posterior(
    draws: FloatArray,
    d: FloatArray,
    y: FloatArray,
    distance: FloatArray,
    new: FloatArray,
    lam: float,
) -> float:
    """P(A) of one new pair (aspects A − B ``new``) from a person's choices (``d``, ``y``)
    whose log likelihoods count λ^``distance`` each, over the population ``draws`` of β.

    >>> rng = np.random.default_rng(0)
    >>> draws = rng.normal(size=(500, 2))
    >>> d, y = rng.normal(size=(6, 2)), np.array([1.0, 0, 1, 1, 0, 1])
    >>> from benchmarks.choice_models import mixed_logit_posterior
    >>> same = mixed_logit_posterior(draws, d, y, d[:1])[0][0]
    >>> bool(np.isclose(recency_posterior(draws, d, y, np.arange(6.0), d[0], 1.0), same))
    True
    """
    sign = 2 * y - 1
    log_w = (lam**distance)[:, None] * log_expit(sign[:, None] * (d @ draws.T))
    total = log_w.sum(axis=0)
    w = np.exp(total - total.max())
    w /= w.sum()
    return float(expit(draws @ new) @ w)


def run() -> list[str]:
    people = load()
    everything = tasks(people)
    by_part: dict[tuple[str, int], list[int]] = defaultdict(list)
    for t, task in enumerate(everything):
        by_part[(task.split, task.part)].append(t)
    lines = []
    for split in ("5-fold", "later questions"):
        ys: list[float] = []
        preds: dict[float, list[float]] = defaultdict(list)
        for (name, _), members in sorted(by_part.items()):
            if name != split:
                continue
            rows = [(people[everything[t].person], list(everything[t].train)) for t in members]
            means, sds = fit_mixed_logit(
                np.vstack([p.d[r] for p, r in rows]),
                np.concatenate([p.y[r] for p, r in rows]),
                [p.name for p, r in rows for _ in r],
                ASPECTS,
                seed=SEED,
            )
            draws = mixed_logit_draws(means, sds, size=MIXED_DRAWS, seed=SEED)
            for t in members:
                person, train = people[everything[t].person], np.array(everything[t].train)
                for j in everything[t].test:
                    ys.append(float(person.y[j]))
                    distance = np.abs(train - j).astype(np.float64)
                    for lam in LAMBDAS:
                        preds[lam].append(
                            recency_posterior(
                                draws, person.d[train], person.y[train], distance, person.d[j], lam
                            )
                        )
        y = np.array(ys)
        for lam in LAMBDAS:
            p = np.array(preds[lam])
            lines.append(
                f"{split}: λ {lam:.1f}: log loss {log_loss(y, p):.3f}, ECE {ece(y, p):.3f} "
                f"(floor's 95th percentile {ece_floor(p, seed=SEED)[1]:.3f}), accuracy "
                f"{accuracy(y, p):.3f}"
            )
    return lines


def main() -> None:
    for line in run():
        print(line)


if __name__ == "__main__":
    main()
