"""Tables and figures of the judging analyses (Markdown, terminal text, PNG).

The analyses themselves (:mod:`tradeoff.judge`) return typed results; this module only
draws them. Their Markdown tables are :func:`tradeoff.text.markdown_table`'s, every cell
escaped by the one rule (:func:`tradeoff.text.markdown_text`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tradeoff.judge.indicators import RADAR_AXES, SystemIndicators
from tradeoff.text import markdown_table


def measurement_table(rows: Sequence[SystemIndicators]) -> str:
    """The measurement table as Markdown ("n/d" where an indicator is not defined)."""

    def f(x: float | None) -> str:
        return "n/d" if x is None else f"{x:.4g}"

    headers = ["system", "solutions", "HV", "HV (radar)", "ONVG", "ONVG/max", "ONVGR", "D_nc"]
    headers += ["UD", "OS", "area"]
    cells = []
    for r in rows:
        rest = (r.onvg_normalised, r.onvgr, r.d_nc, r.ud, r.os, r.area)
        cells.append([r.name, r.solutions, f(r.hv), f(r.hv_normalised), r.onvg, *map(f, rest)])
    return markdown_table(headers, cells)


def radar_png(rows: Sequence[SystemIndicators], path: str, title: str = "") -> None:
    """Draw the radar chart of ``rows`` to a PNG file (matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(RADAR_AXES)
    theta = np.concatenate((2 * np.pi * np.arange(n) / n, [0.0]))
    fig = plt.figure(figsize=(5, 5))
    ax = fig.add_subplot(projection="polar")
    for r in rows:
        vals = list(r.radar_values())
        ax.plot(theta, vals + vals[:1], label=f"{r.name} (area {r.area:.2f})")
        ax.fill(theta, vals + vals[:1], alpha=0.15)
    ax.set_xticks(theta[:-1])
    ax.set_xticklabels(RADAR_AXES)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper right", bbox_to_anchor=(1.3, 1.12), fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def radar_text(rows: Sequence[SystemIndicators], width: int = 41, height: int = 21) -> str:
    """A terminal rendering of the radar chart: each system's polygon drawn in characters."""
    grid = [[" "] * width for _ in range(height)]
    cx, cy = (width - 1) / 2, (height - 1) / 2
    n = len(RADAR_AXES)
    angles = [np.pi / 2 - 2 * np.pi * i / n for i in range(n)]

    def plot(x: float, y: float, ch: str) -> None:
        col = round(cx + x * cx)
        row = round(cy - y * cy)
        if 0 <= row < height and 0 <= col < width:
            grid[row][col] = ch

    for a in angles:
        for t in np.linspace(0, 1, 30):
            plot(t * math.cos(a), t * math.sin(a), "·")
    marks = "#*o+x%@"
    for k, r in enumerate(rows):
        vals = r.radar_values()
        pts = [(v * math.cos(a), v * math.sin(a)) for v, a in zip(vals, angles, strict=True)]
        for i in range(n):
            (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % n]
            for t in np.linspace(0, 1, 40):
                plot(x0 + t * (x1 - x0), y0 + t * (y1 - y0), marks[k % len(marks)])
    for a, label in zip(angles, RADAR_AXES, strict=True):
        col = round(cx + 1.0 * math.cos(a) * cx)
        row = round(cy - 1.0 * math.sin(a) * cy)
        row = min(max(row, 0), height - 1)
        start = min(max(col - len(label) // 2, 0), width - len(label))
        for j, ch in enumerate(label):
            grid[row][start + j] = ch
    lines = ["".join(r).rstrip() for r in grid]
    legend = [f"  {marks[k % len(marks)]} {r.name}: area {r.area:.3f}" for k, r in enumerate(rows)]
    return "\n".join(lines + legend)
