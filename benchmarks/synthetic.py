"""Paper 000's synthetic experiment (eq. 13): Figs. 2, 3 and 9, measured.

Run: ``.venv/bin/python -m benchmarks.synthetic`` (writes benchmarks/results/synthetic.md and
synthetic.png). The front of eq. 13: y₁ ~ U(0.02, 0.2), y₂ = 0.25·cos(39·y₁^0.85) − log y₁
− 0.46, both minimised, N = 240 points (seed 0); α sweeps 1,000 values of [0, 1] with
ω = (α, 1 − α).

* Fig. 2: p = ∞ and every normalisation (naive, ideal, delta, norm, COPA). A method that
  "navigates the front" spreads its picks along it as α moves: the KS distance between the
  picks' û₁ (over α) and U(0, 1) is small, and the α = 1/2 pick sits at the flat region
  (y₁ ≈ 0.1), as the paper says of COPA.
* Fig. 3: COPA with p = 1, 2, 5, ∞: how many distinct solutions the sweep reaches.
* Fig. 9: COPA, p = ∞, on the first N = 240, 120, 48, 24, 12 of the points: the α → y₁
  curve against the one from all 240 (mean absolute difference, as a share of y₁'s range).
"""

from __future__ import annotations

import math
import time

import numpy as np
from numpy.typing import NDArray
from scipy.stats import kstest

from benchmarks._table import RESULTS, markdown, write
from tradeoff.choose import copa

FloatArray = NDArray[np.float64]
ALPHAS = np.linspace(0.0, 1.0, 1000)


def eq13(n: int = 240, seed: int = 0) -> FloatArray:
    """Paper 000 eq. 13: ``n`` points of the synthetic front (both objectives minimised)."""
    y1 = np.random.default_rng(seed).uniform(0.02, 0.2, n)
    y2 = 0.25 * np.cos(39 * y1**0.85) - np.log(y1) - 0.46
    return np.column_stack((y1, y2))


def picks(y: FloatArray, method: copa.Method, p: float) -> FloatArray:
    phi, _ = copa.normalise(y, method)
    return np.asarray(copa.sweep(phi, [0], ALPHAS, p), dtype=np.intp)


def main() -> None:
    start = time.perf_counter()
    y = eq13()
    u = copa.rank_cdf(y)
    span = float(np.ptp(y[:, 0]))
    fig2 = {}
    rows2 = []
    for method in ("naive", "ideal", "delta", "norm", "copa"):
        chosen = picks(y, method, math.inf)
        fig2[method] = chosen
        mid = int(chosen[len(ALPHAS) // 2])
        rows2.append(
            [
                method,
                len(set(chosen.tolist())),
                f"{kstest(u[chosen, 0], 'uniform').statistic:.2f}",
                f"{np.median(u[chosen, 0]):.2f}",
                f"{y[mid, 0]:.3f}",
            ]
        )
    rows3 = []
    fig3 = {}
    for p in (1.0, 2.0, 5.0, math.inf):
        chosen = picks(y, "copa", p)
        fig3[p] = chosen
        rows3.append(
            [
                "∞" if math.isinf(p) else f"{p:g}",
                len(set(chosen.tolist())),
                f"{kstest(u[chosen, 0], 'uniform').statistic:.2f}",
            ]
        )
    full = y[picks(y, "copa", math.inf), 0]
    rows9 = []
    fig9 = {}
    for n in (240, 120, 48, 24, 12):
        small = y[:n]  # the first n of the same 240 draws
        curve = small[picks(small, "copa", math.inf), 0]
        fig9[n] = curve
        rows9.append([n, len(set(curve.tolist())), f"{np.mean(np.abs(curve - full)) / span:.3f}"])
    took = time.perf_counter() - start
    _figure(y, fig2, fig3, fig9)
    body = "\n\n".join(
        [
            "Fig. 2: p = ∞, 1,000 values of α, every normalisation.\n\n"
            + markdown(
                ["method", "distinct picks", "KS(û₁ of picks, U)", "median û₁", "y₁ at α = ½"],
                rows2,
            ),
            "Fig. 3: COPA at several p.\n\n"
            + markdown(["p", "distinct picks", "KS(û₁ of picks, U)"], rows3),
            "Fig. 9: COPA, p = ∞, fewer points (the α → y₁ curve against N = 240's).\n\n"
            + markdown(["N", "distinct picks", "mean |Δy₁| / range"], rows9),
            f"Figure: synthetic.png. {took:.1f} s.\n"
            "Reproduce: `.venv/bin/python -m benchmarks.synthetic`.",
        ]
    )
    write("synthetic", "Paper 000's synthetic front (eq. 13)", body)


def _figure(
    y: FloatArray,
    fig2: dict[str, FloatArray],
    fig3: dict[float, FloatArray],
    fig9: dict[int, FloatArray],
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    ax = axes[0]
    for method, chosen in fig2.items():
        ax.plot(ALPHAS, y[chosen, 0], label=method, lw=1.2)
    ax.set(title="Fig. 2: the pick's y₁ as α moves (p = ∞)", xlabel="α", ylabel="y₁ of the pick")
    ax.legend(fontsize=8)
    ax = axes[1]
    for k, chosen in enumerate(fig3.values()):
        xs = np.unique(y[chosen, 0])
        ax.scatter(xs, np.full(len(xs), k), s=14)
    ax.set_yticks(range(len(fig3)), ["∞" if math.isinf(p) else f"{p:g}" for p in fig3])
    ax.set(title="Fig. 3: COPA's distinct picks at each p", xlabel="y₁", ylabel="p")
    ax = axes[2]
    for n, curve in fig9.items():
        ax.plot(ALPHAS, curve, label=f"N = {n}", lw=1)
    ax.set(title="Fig. 9: COPA (p = ∞) pick against α", xlabel="α", ylabel="y₁ of the pick")
    ax.legend(fontsize=8)
    fig.tight_layout()
    RESULTS.mkdir(exist_ok=True)
    fig.savefig(RESULTS / "synthetic.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
