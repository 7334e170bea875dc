"""Two runs of the decision benchmark side by side, cell by cell, with 95% intervals.

Run: ``.venv/bin/python -m benchmarks.decision_compare BEFORE.md AFTER.md [--out NAME]``
(writes benchmarks/results/NAME.md, default ``decision_compare``). Each file holds the
Markdown table(s) ``benchmarks.decision`` prints; rows are matched by strategy, truths and
answers (the first table of each file, or the section ``--section`` names).

For every cell: the share of right picks before and after, with the Wilson 95% interval of
the share before and whether the share after lies inside it; the same for the share of
wrong picks among the people stopped at P(best) ≥ 0.95; the median questions before →
after. A cell "holds" when both shares after lie inside the intervals before. With the
same people (truths and seeds) in both runs, this is a conservative check: the two shares
are dependent, and the interval of one sample is wider than that of their difference.
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

from benchmarks._table import markdown, write

Z = 1.959963984540054  # the 97.5% normal quantile


def wilson(successes: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval of a share ``successes``/``n`` (0, 1 for n = 0).

    >>> [round(x, 3) for x in wilson(270, 300)]
    [0.861, 0.929]
    """
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def read_cells(path: Path, section: str | None) -> dict[tuple[str, str, str], dict[str, str]]:
    """The rows of the first Markdown table in ``path`` (after the heading ``section``, if
    given), by (strategy, truths, answers), each a mapping of column heading to cell (so runs
    whose tables have other columns, e.g. "within margin", compare by name)."""
    text = path.read_text()
    if section is not None:
        text = text[text.index(section) :]
    rows: dict[tuple[str, str, str], dict[str, str]] = {}
    head: list[str] = []
    for line in text.splitlines():
        if line.startswith("| strategy"):
            if head:
                break
            head = [c.strip() for c in line.strip("|").split("|")]
            continue
        if head and line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[(cells[0], cells[1], cells[2])] = dict(zip(head, cells, strict=True))
        elif head and rows and not line.startswith("|"):
            break
    return rows


#: The columns compared (as the benchmark heads them).
PEOPLE, RIGHT, QUESTIONS = "people", "right pick", "questions median / p90 / max"
STOPPED = "stopped at P ≥ 0.95: n: wrong"


def share(cell: str, people: int) -> tuple[int, int]:
    """(successes, n) of "97.3%" over ``people``."""
    return round(float(cell.rstrip("%")) / 100 * people), people


def confident_wrong(cell: str) -> tuple[int, int]:
    """(wrong, n) of "271: 3.7%" (n people stopped at P ≥ 0.95, the share wrong)."""
    if cell in ("0", "–"):
        return 0, 0
    n, pct = re.fullmatch(r"(\d+): ([\d.]+)%", cell).groups()  # type: ignore[union-attr]
    return round(float(pct) / 100 * int(n)), int(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--section-before")
    parser.add_argument("--section-after")
    parser.add_argument("--out", default="decision_compare")
    parser.add_argument("--command", default="", help="the commands that made the two files")
    args = parser.parse_args()
    before = read_cells(args.before, args.section_before)
    after = read_cells(args.after, args.section_after)
    table = []
    held = better = 0
    for key, old in before.items():
        new = after.get(key)
        if new is None:
            continue
        n_old, n_new = int(old[PEOPLE]), int(new[PEOPLE])
        r_old, r_new = share(old[RIGHT], n_old), share(new[RIGHT], n_new)
        lo, hi = wilson(*r_old)
        right_new = r_new[0] / r_new[1]
        right_ok = lo <= right_new <= hi
        w_old, w_new = confident_wrong(old[STOPPED]), confident_wrong(new[STOPPED])
        wlo, whi = wilson(*w_old)
        wrong_new = w_new[0] / w_new[1] if w_new[1] else None
        wrong_ok = wrong_new is None or wlo <= wrong_new <= whi
        held += right_ok and wrong_ok
        better += (right_ok or right_new > hi) and (wrong_ok or (wrong_new or 0.0) < wlo)
        table.append(
            [
                *key,
                f"{old[RIGHT]} [{100 * lo:.1f}, {100 * hi:.1f}]",
                new[RIGHT],
                "yes" if right_ok else "above" if right_new > hi else "**below**",
                f"{old[STOPPED]} [{100 * wlo:.1f}, {100 * whi:.1f}]",
                new[STOPPED],
                "yes" if wrong_ok else "below" if (wrong_new or 0.0) < wlo else "**above**",
                f"{old[QUESTIONS].split(' / ')[0]} → {new[QUESTIONS].split(' / ')[0]}",
            ]
        )
    body = markdown(
        [
            "strategy",
            "truths",
            "answers",
            "right before [95% interval]",
            "right after",
            "inside",
            "stopped at P ≥ 0.95: n: wrong, before [95% interval of the share wrong]",
            "after",
            "inside",
            "median questions",
        ],
        table,
    )
    body += (
        f"\n\n{held} of {len(table)} cells hold (both shares after inside the intervals "
        f"before); {better} of {len(table)} hold or are better (more right picks, fewer "
        "confident misses).\n\n"
        + (args.command or f"Before: `{args.before}`; after: `{args.after}`.")
        + "\n"
    )
    write(args.out, "The decision benchmark before and after", body)


if __name__ == "__main__":
    main()
