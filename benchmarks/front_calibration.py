"""Where the noise-aware P(best) of :mod:`tradeoff.pool.front` is overstated, and why.

Run: ``.venv/bin/python -m benchmarks.front_calibration --truth arc --noise 0.03
[--cases 0] [--pools 30] [--people 20] [--seed 7] [--curves 100] [--leave-out 0]
[--reach R] [--posterior known-curve] [--bend-spread K] [--scatter drawn|fitted|none]``
(prints; writes nothing).

The weights are known exactly here (one point per person, Dirichlet(1, 1) over the two
recalls), so any miscalibration comes from the posterior over the true recalls alone.
Pools of 10–30 models whose true recalls are drawn by ``--truth``:

- ``arc``: as ``benchmarks/measurement_noise.py`` (a circular arc, each model pulled
  inwards by |N(0, 0.003)|);
- ``arc0``: the same arc, no pull (no scatter about the curve);
- ``arc-wide``: the same arc, each model pulled inwards by |N(0, 0.02)| (a scatter as large
  as the noise of a few hundred cases);
- ``parabola``: a parabola in the frame of its own axis, no pull (the curve the posterior
  assumes, exactly).

Each model is measured with Gaussian noise of a known standard deviation ``--noise`` (given
to the posterior as a standard error: no binomial, no Jeffreys centring), or binomially on
``--cases`` cases a class. ``--curves 0``: the fitted bend plugged in. ``--leave-out
STEPS``: an experiment, each model's numbers drawn from the curve fitted (``STEPS`` EM
steps, its own frame and scatter) to the other models alone (:func:`left_out_sample`:
whether the fit's use of a model's own luck overstates its P(best)). Ablations, to find which
part of the posterior overstates P(best): ``--posterior known-curve`` (``parabola`` and
``arc0`` truths): the truth's own curve and range known, each model on it (no scatter), its
place uniform on the range, weighed by its measurement's likelihood (binomial with
``--cases``; :func:`known_curve_sample`: the exact posterior of those truths, the reference
every part of the fit is measured against); ``--bend-spread K``: the bend drawn with K
times its covariance; ``--scatter fitted``: the fitted scatter plugged in; ``--scatter
none``: no scatter (each model on the drawn curve); ``--scatter spike``: half the scatter's
prior on no scatter, half spread as shipped. For the pick (the
measured best) and for the model of highest P(best): people, mean P(best) and share right
overall (with a 90 % interval of the gap, pools resampled, :mod:`benchmarks.bands`) and
per band; the rms distance of the true recalls from the posterior mean in posterior
standard deviations; and the likeliest best's true ψ less its posterior mean, in its
posterior standard deviations (near 0 on average when the prior is right, whatever the
selection).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from benchmarks.bands import pool_bootstrap
from benchmarks.measurement_noise import BINS, true_pool
from tradeoff.pool import front
from tradeoff.pool.front import (
    CURVES,
    FrontPosterior,
    _curve_draws,
    _draw,
    _loglik,
    _mixture,
    front_posterior,
    front_sample,
)
from tradeoff.pool.uncertainty import Uncertainty


def truths(kind: str, rng: np.random.Generator) -> np.ndarray:
    """True recalls (models × 2) of one pool drawn as ``kind`` says (module docstring)."""
    if kind == "arc":
        return true_pool(rng, 0.003)
    if kind == "arc0":
        return true_pool(rng, 0.0)
    if kind == "arc-wide":
        return true_pool(rng, 0.02)
    m = int(rng.integers(10, 31))
    t = np.sort(rng.uniform(-0.18, 0.18, m))
    along, across = np.array([1.0, -1.0]) / np.sqrt(2), np.array([1.0, 1.0]) / np.sqrt(2)
    out: np.ndarray = 0.88 + t[:, None] * along - 1.5 * (t**2)[:, None] * across
    return out


def truth_curve(kind: str) -> tuple[Callable[[np.ndarray], np.ndarray], float, float]:
    """The curve of the ``kind`` of truth (``parabola`` or ``arc0``) as a function of its
    place, and the range its models' places are drawn from (:func:`truths`)."""
    if kind == "parabola":
        along, across = np.array([1.0, -1.0]) / np.sqrt(2), np.array([1.0, 1.0]) / np.sqrt(2)

        def parabola(t: np.ndarray) -> np.ndarray:
            out: np.ndarray = 0.88 + t[:, None] * along - 1.5 * (t**2)[:, None] * across
            return out

        return parabola, -0.18, 0.18
    if kind == "arc0":

        def arc(theta: np.ndarray) -> np.ndarray:
            out: np.ndarray = 0.70 + 0.28 * np.column_stack((np.sin(theta), np.cos(theta)))
            return out

        return arc, 0.15, 1.42
    raise SystemExit(f"--posterior known-curve needs --truth parabola or arc0, not {kind}")


def known_curve_sample(
    kind: str, x: np.ndarray, s: np.ndarray, cases: int, count: int, rng: np.random.Generator
) -> np.ndarray:
    """``count`` draws of each model's true numbers (count × models × 2) from the exact
    posterior of a ``kind`` truth: the curve and its range known, each model's place
    uniform on a grid of 2,001 places over the range, weighed by the measurement's
    likelihood there: binomial on ``cases`` cases a class, else N(x̂ᵢ; c(t), diag(sᵢ²))."""
    curve, low, high = truth_curve(kind)
    places = curve(np.linspace(low, high, 2001))
    if cases:
        hits, at = x[:, None, :] * cases, np.clip(places[None], 1e-12, 1.0 - 1e-12)
        ll = (hits * np.log(at) + (cases - hits) * np.log1p(-at)).sum(axis=-1)
    else:
        ll = -0.5 * (((x[:, None, :] - places[None]) / s[:, None, :]) ** 2).sum(axis=-1)
    weights = np.exp(ll - ll.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    out = np.empty((count, *x.shape))
    for i in range(len(x)):
        out[:, i] = places[rng.choice(len(places), size=count, p=weights[i])]
    return out


def left_out_sample(
    x: np.ndarray, s: np.ndarray, count: int, seed: int, steps: int, curves: int = CURVES
) -> np.ndarray:
    """``count`` draws of each model's true numbers (count × models × columns) from the
    curve posterior fitted to the other models alone (``steps`` EM steps), its bend drawn
    ``curves`` times, a uniform place on the whole grid (the others' stretch could cut
    an end model off); models drawn independently of one another."""
    n, d = x.shape
    rng = np.random.default_rng([seed, 3])
    out = np.empty((count, n, d))
    for i in range(n):
        keep = np.arange(n) != i
        post = front_posterior(x[keep], s[keep], steps)
        bends = _curve_draws(post, curves, rng)
        uniform = np.clip(rng.random((count, 1, 1 + d)), 1e-12, 1 - 1e-12)
        noise = np.diag(s[i] ** 2)[None]
        flat = np.full(len(post.log_prior), -np.log(len(post.log_prior)))
        for k, beta in enumerate(bends):
            ll, inv = _loglik(x[i : i + 1], noise, post.geometry, beta, post.scatter)
            w, m, c, _ = _mixture(
                ll + flat[None], inv, post.geometry, beta, post.scatter, x[i : i + 1]
            )
            one = FrontPosterior(
                w, m, c, post.scatter, post.curve, post.prior, 0.0, post.geometry, beta,
                post.beta_cov, flat,
            )  # fmt: skip
            out[k::curves, i : i + 1] = _draw(one, uniform[k::curves])
    return out


def run(args: argparse.Namespace) -> list[str]:
    rng = np.random.default_rng(args.seed)
    rows, z, resid = [], [], []
    for number in range(args.pools):
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
        if args.leave_out:
            draws = np.clip(left_out_sample(x, u.spread(x), 2000, 1, args.leave_out), u.low, u.high)
        elif args.posterior == "known-curve":
            known = np.random.default_rng([args.seed, number, 5])
            draws = known_curve_sample(args.truth, x, u.spread(x), args.cases, 2000, known)
        else:
            draws = front_sample(u, x, 2000, 1, args.curves, scatter=args.scatter != "fitted")
        z.append(((truth - draws.mean(axis=0)) / draws.std(axis=0)).ravel())
        for _ in range(args.people):
            w = rng.dirichlet(np.ones(2))
            p_best = np.bincount((draws @ w).argmax(axis=1), minlength=len(x)) / len(draws)
            best = int(np.argmax(truth @ w))
            pick, likeliest = int(np.argmax(x @ w)), int(np.argmax(p_best))
            psi = draws[:, likeliest] @ w
            resid.append((truth[likeliest] @ w - psi.mean()) / psi.std())
            rows.append((p_best[pick], pick == best, p_best[likeliest], likeliest == best, number))
    found = np.array(rows, dtype=float)
    out = [
        f"rms z of the true recalls: {np.sqrt(np.mean(np.concatenate(z) ** 2)):.2f}; the "
        "likeliest best's true ψ less its posterior mean, in posterior sds: mean "
        f"{np.mean(resid):+.2f}, rms {np.sqrt(np.mean(np.square(resid))):.2f}"
    ]
    for name, k in (("pick (measured best)", 0), ("highest P(best)", 2)):
        every = np.ones(len(found), dtype=bool)
        gap = pool_bootstrap(found[:, k], found[:, k + 1] > 0, found[:, 4], every)
        assert gap is not None
        line = [
            f"{name}: stated {found[:, k].mean():.3f}, right {found[:, k + 1].mean():.3f} "
            f"(right − stated, 90 %: {gap[0] * 100:+.1f} to {gap[1] * 100:+.1f} points)"
        ]
        for low, high in itertools.pairwise(BINS):
            inside = (found[:, k] >= low) & (found[:, k] < high)
            if inside.any():
                line.append(
                    f"[{low:.2f}, {min(high, 1.0):.2f}): {int(inside.sum())} "
                    f"{found[inside, k].mean():.3f} → {found[inside, k + 1].mean():.1%}"
                )
        out.append("; ".join(line))
    return out


def ablate(spread: float, scatter: str) -> None:
    """Replace the parts of :mod:`tradeoff.pool.front` an ablation changes (this process
    only): the bend's covariance times ``spread``; no scatter (``scatter`` "none")."""
    if spread != 1.0:
        drawn = front._curve_draws

        def wider(post: FrontPosterior, curves: int, rng: np.random.Generator) -> np.ndarray:
            return drawn(replace(post, beta_cov=post.beta_cov * spread), curves, rng)

        front._curve_draws = wider
    if scatter == "none":

        def nothing(
            post: FrontPosterior,
            x: np.ndarray,
            s: np.ndarray,
            curves: int,
            rng: np.random.Generator,
        ) -> np.ndarray:
            d = x.shape[1]
            return np.broadcast_to(1e-10 * np.mean(s**2) * np.eye(d), (curves, d, d)).copy()

        front._scatter_draws = nothing
    if scatter == "spike":
        sizes = front._scatter_sizes

        def spike(
            post: FrontPosterior, x: np.ndarray, s: np.ndarray
        ) -> tuple[np.ndarray, np.ndarray]:
            found, weights = sizes(post, x, s)
            weights = weights.copy()
            weights[0] *= len(weights) - 1  # half the prior on no scatter, half spread
            return found, weights / weights.sum()

        front._scatter_sizes = spike


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--truth", choices=("arc", "arc0", "arc-wide", "parabola"), default="arc")
    parser.add_argument("--noise", type=float, default=0.03)
    parser.add_argument("--cases", type=int, default=0, help="binomial on this many cases")
    parser.add_argument("--pools", type=int, default=30)
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--curves", type=int, default=CURVES)
    parser.add_argument(
        "--leave-out", type=int, default=0, help="EM steps of a fit to the other models (0: no)"
    )
    parser.add_argument(
        "--reach",
        type=float,
        default=None,
        help="the scatter's largest size drawn, in times the noise (tradeoff.pool.front.REACH)",
    )
    parser.add_argument("--posterior", choices=("fitted", "known-curve"), default="fitted")
    parser.add_argument(
        "--bend-spread", type=float, default=1.0, help="the bend's covariance times this"
    )
    parser.add_argument("--scatter", choices=("drawn", "fitted", "none", "spike"), default="drawn")
    args = parser.parse_args(argv)
    if args.reach is not None:
        front.REACH = args.reach
    ablate(args.bend_spread, args.scatter)
    print("\n".join(run(args)))


if __name__ == "__main__":
    main()
