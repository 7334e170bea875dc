"""Where the noise-aware P(best) of :mod:`tradeoff.pool.front` is overstated, and why.

Run: ``.venv/bin/python -m benchmarks.front_calibration --truth arc --noise 0.03
[--pools 30] [--people 20] [--seed 7] [--curves 100]`` (prints; writes nothing).

The weights are known exactly here (one point per person, Dirichlet(1, 1) over the two
recalls), so any miscalibration comes from the posterior over the true recalls alone.
Pools of 10–30 models whose true recalls are drawn by ``--truth``:

- ``arc``: as ``benchmarks/measurement_noise.py`` (a circular arc, each model pulled
  inwards by |N(0, 0.003)|);
- ``arc0``: the same arc, no pull (no scatter about the curve);
- ``parabola``: a parabola in the frame of its own axis, no pull (the curve the posterior
  assumes, exactly).

Each model is measured with Gaussian noise of a known standard deviation ``--noise`` (given
to the posterior as a standard error: no binomial, no Jeffreys centring), or binomially on
``--cases`` cases a class. ``--curves 0``: the fitted bend plugged in. For the pick (the
measured best) and for the model of highest P(best): people, mean P(best) and share right
per band, and the rms distance of the true recalls from the posterior mean in posterior
standard deviations.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence

import numpy as np

from benchmarks.measurement_noise import BINS, true_pool
from tradeoff.pool.front import CURVES, front_sample
from tradeoff.pool.uncertainty import Uncertainty


def truths(kind: str, rng: np.random.Generator) -> np.ndarray:
    """True recalls (models × 2) of one pool drawn as ``kind`` says (module docstring)."""
    if kind == "arc":
        return true_pool(rng, 0.003)
    if kind == "arc0":
        return true_pool(rng, 0.0)
    m = int(rng.integers(10, 31))
    t = np.sort(rng.uniform(-0.18, 0.18, m))
    along, across = np.array([1.0, -1.0]) / np.sqrt(2), np.array([1.0, 1.0]) / np.sqrt(2)
    out: np.ndarray = 0.88 + t[:, None] * along - 1.5 * (t**2)[:, None] * across
    return out


def run(args: argparse.Namespace) -> list[str]:
    rng = np.random.default_rng(args.seed)
    rows, z = [], []
    for _ in range(args.pools):
        truth = truths(args.truth, rng)
        if args.cases:
            x = rng.binomial(args.cases, truth) / args.cases
            u = Uncertainty(
                np.zeros_like(x),
                np.full(x.shape, float(args.cases)),
                np.zeros(2),
                np.ones(2),
                ("", ""),
            )
        else:
            x = truth + rng.normal(0.0, args.noise, truth.shape)
            u = Uncertainty(
                np.full(x.shape, args.noise),
                np.zeros_like(x),
                np.full(2, -np.inf),
                np.full(2, np.inf),
                ("", ""),
            )
        draws = front_sample(u, x, 2000, 1, args.curves)
        z.append(((truth - draws.mean(axis=0)) / draws.std(axis=0)).ravel())
        for _ in range(args.people):
            w = rng.dirichlet(np.ones(2))
            p_best = np.bincount((draws @ w).argmax(axis=1), minlength=len(x)) / len(draws)
            best = int(np.argmax(truth @ w))
            pick, likeliest = int(np.argmax(x @ w)), int(np.argmax(p_best))
            rows.append((p_best[pick], pick == best, p_best[likeliest], likeliest == best))
    found = np.array(rows, dtype=float)
    out = [f"rms z of the true recalls: {np.sqrt(np.mean(np.concatenate(z) ** 2)):.2f}"]
    for name, k in (("pick (measured best)", 0), ("highest P(best)", 2)):
        line = [f"{name}: stated {found[:, k].mean():.3f}, right {found[:, k + 1].mean():.3f}"]
        for low, high in itertools.pairwise(BINS):
            inside = (found[:, k] >= low) & (found[:, k] < high)
            if inside.any():
                line.append(
                    f"[{low:.2f}, {min(high, 1.0):.2f}): {int(inside.sum())} "
                    f"{found[inside, k].mean():.3f} → {found[inside, k + 1].mean():.1%}"
                )
        out.append("; ".join(line))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--truth", choices=("arc", "arc0", "parabola"), default="arc")
    parser.add_argument("--noise", type=float, default=0.03)
    parser.add_argument("--cases", type=int, default=0, help="binomial on this many cases")
    parser.add_argument("--pools", type=int, default=30)
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--curves", type=int, default=CURVES)
    print("\n".join(run(parser.parse_args(argv))))


if __name__ == "__main__":
    main()
