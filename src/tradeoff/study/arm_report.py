"""Each arm's results side by side (``tradeoff study report`` of a study with arms,
:mod:`tradeoff.study.arms`), and the ``arm`` column of the export's two tables.

Per arm: the participants assigned who count (pilots and the withdrawn left out, as the
export leaves them out), how many completed, the median number of questions of those who
completed, and, where the right pick of a participant is known (simulated participants
whose true weights say which candidate is best: ``--truths``), how many completed
sessions picked it. Each arm after the first is compared with the first:

* the difference in the share of right picks, with its 95% Newcombe hybrid score interval
  (Newcombe 1998, method 10: from each arm's Wilson score interval);
* the difference in median questions, with its 95% percentile bootstrap interval (each
  arm's completed sessions resampled :data:`BOOTSTRAP` times, seeded, so the interval is
  the same on every run).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from tradeoff.errors import InputError, csv_records
from tradeoff.study.table_columns import Column

if TYPE_CHECKING:
    from tradeoff.study.folder import Study

#: The ``arm`` column of both export tables (only in a study with arms).
ARM_COLUMN = Column(
    "arm",
    "arm name",
    "The arm (condition) the participant was assigned to when their first session began "
    "(study.json's arms: its scenario and strategy); the same in every row of theirs.",
    "str",
)
#: Bootstrap resamples of the difference in median questions, and their seed.
BOOTSTRAP = 2000
BOOTSTRAP_SEED = 20261127
Z95 = 1.959963984540054


def with_arm_column(columns: Sequence[Column]) -> tuple[Column, ...]:
    """``columns`` with :data:`ARM_COLUMN` right after ``participant``."""
    names = [c.name for c in columns]
    at = names.index("participant") + 1 if "participant" in names else 0
    return (*columns[:at], ARM_COLUMN, *columns[at:])


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion.

    >>> [round(x, 4) for x in wilson(8, 10)]
    [0.4902, 0.9433]
    """
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    scale = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / scale
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / scale
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(x1: int, n1: int, x2: int, n2: int, z: float = Z95) -> tuple[float, float, float]:
    """The difference ``x1/n1 - x2/n2`` and its Newcombe hybrid score interval.

    >>> [round(v, 4) for v in newcombe(56, 70, 48, 80)]
    [0.2, 0.0524, 0.3339]
    """
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, z)
    l2, u2 = wilson(x2, n2, z)
    d = p1 - p2
    return d, d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def bootstrap_median_difference(
    a: Sequence[float],
    b: Sequence[float],
    *,
    resamples: int = BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float, float]:
    """``median(a) - median(b)`` and its 95% percentile bootstrap interval."""
    rng = np.random.default_rng(seed)
    xa, xb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    da = np.median(xa[rng.integers(len(xa), size=(resamples, len(xa)))], axis=1)
    db = np.median(xb[rng.integers(len(xb), size=(resamples, len(xb)))], axis=1)
    low, high = np.percentile(da - db, [2.5, 97.5])
    return float(np.median(xa) - np.median(xb)), float(low), float(high)


@dataclass(frozen=True)
class ArmResult:
    arm: str
    participants: int
    completed: int
    questions: tuple[int, ...]  # of each completed session
    right: int | None  # right picks among the completed with a known right pick
    known: int  # completed with a known right pick

    @property
    def median_questions(self) -> float | None:
        return float(np.median(self.questions)) if self.questions else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "arm": self.arm,
            "participants": self.participants,
            "completed": self.completed,
            "median_questions": self.median_questions,
            "right_picks": self.right,
            "with_known_right_pick": self.known,
        }


def arm_results(
    arms: Sequence[str], people: Sequence[Mapping[str, Any]], truths: Mapping[str, str]
) -> list[ArmResult]:
    """Each arm's results from the export's participant rows (with their ``arm``) and the
    right pick of those whose is known (``truths``: participant → candidate)."""
    out = []
    for arm in arms:
        rows = [r for r in people if r.get("arm") == arm]
        done = [r for r in rows if r["completed"]]
        known = [r for r in done if r["participant"] in truths]
        right = sum(r["final_pick"] == truths[r["participant"]] for r in known)
        out.append(
            ArmResult(
                arm,
                len(rows),
                len(done),
                tuple(int(r["questions_answered"]) for r in done),
                right if known else None,
                len(known),
            )
        )
    return out


def differences(results: Sequence[ArmResult]) -> list[dict[str, Any]]:
    """Each arm after the first against the first: the differences and their intervals
    (``None`` where an arm has nothing to compare)."""
    first = results[0]
    out = []
    for other in results[1:]:
        entry: dict[str, Any] = {"arm": other.arm, "against": first.arm}
        if other.known and first.known and other.right is not None and first.right is not None:
            d, lo, hi = newcombe(other.right, other.known, first.right, first.known)
            entry["right_picks"] = {
                "difference": d,
                "low": lo,
                "high": hi,
                "interval": "95% Newcombe hybrid score",
            }
        if other.questions and first.questions:
            d, lo, hi = bootstrap_median_difference(other.questions, first.questions)
            entry["median_questions"] = {
                "difference": d,
                "low": lo,
                "high": hi,
                "interval": f"95% percentile bootstrap, {BOOTSTRAP} resamples",
            }
        out.append(entry)
    return out


def comparison(
    arms: Sequence[str], people: Sequence[Mapping[str, Any]], truths: Mapping[str, str]
) -> dict[str, Any]:
    """The per-arm results and the differences, as ``arms.json`` holds them."""
    results = arm_results(arms, people, truths)
    return {"arms": [r.to_dict() for r in results], "differences": differences(results)}


def comparison_md(data: Mapping[str, Any]) -> str:
    """The comparison as Markdown: a table of the arms, then a line per difference."""
    lines = [
        "# Arms side by side",
        "",
        "| arm | participants | completed | median questions | right picks |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for a in data["arms"]:
        med = "—" if a["median_questions"] is None else f"{a['median_questions']:g}"
        right = (
            "—"
            if a["right_picks"] is None
            else f"{a['right_picks']} of {a['with_known_right_pick']}"
        )
        lines.append(f"| {a['arm']} | {a['participants']} | {a['completed']} | {med} | {right} |")
    lines.append("")
    for d in data["differences"]:
        if "right_picks" in d:
            r = d["right_picks"]
            lines.append(
                f"- right picks, {d['arm']} minus {d['against']}: {r['difference']:+.1%} "
                f"({r['interval']} interval {r['low']:+.1%} to {r['high']:+.1%})"
            )
        if "median_questions" in d:
            q = d["median_questions"]
            lines.append(
                f"- median questions, {d['arm']} minus {d['against']}: {q['difference']:+g} "
                f"({q['interval']} interval {q['low']:+g} to {q['high']:+g})"
            )
    return "\n".join(lines) + "\n"


def read_truths(
    path: Path, participants: Sequence[str], candidates: Sequence[str]
) -> dict[str, str]:
    """A right-picks file: CSV with columns ``participant`` and ``right_pick`` (the
    candidate that is best for them, e.g. from a simulated participant's true weights);
    every participant of the study and every candidate of the pool checked."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError.single(
            path, "", f"cannot be read ({exc}).", "give a UTF-8 CSV file."
        ) from None
    records = csv_records(path, text)
    first, fields = next(records, (1, []))
    header = [f.strip() for f in fields]
    if not {"participant", "right_pick"} <= set(header):
        raise InputError.single(
            path,
            f"line {first}",
            "lacks the header participant,right_pick.",
            "add that header line.",
        )
    at = {name: header.index(name) for name in ("participant", "right_pick")}
    known, names = set(participants), set(candidates)
    out: dict[str, str] = {}
    for number, cells in records:
        pid, pick = (
            (cells[at[name]] if at[name] < len(cells) else "").strip()
            for name in ("participant", "right_pick")
        )
        if pid not in known:
            raise InputError.single(
                path,
                f"line {number}, participant",
                f"{pid!r} is not in the study.",
                "give ids of the study.",
            )
        if pick not in names:
            raise InputError.single(
                path,
                f"line {number}, right_pick",
                f"{pick!r} is not a candidate of the study's pool.",
                "give a candidate's name as the pool has it.",
            )
        if pid in out:
            raise InputError.single(
                path, f"line {number}, participant", f"{pid!r} appears twice.", "give each once."
            )
        out[pid] = pick
    return out


def write_comparison(out: Path, data: Mapping[str, Any]) -> tuple[Path, Path]:
    """Write ``arms.json`` and ``arms.md`` into the report's folder ``out``."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    js, md = out / "arms.json", out / "arms.md"
    js.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    md.write_text(comparison_md(data), encoding="utf-8")
    return js, md


def compare_study(
    study: Study, truths: Path | None = None, *, include_pilot: bool = False
) -> dict[str, Any]:
    """The comparison of a study's arms (:func:`comparison`) from what its export would
    say of each participant, with the right picks of ``truths`` (:func:`read_truths`)."""
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.choose.candidates import scenario_pool
    from tradeoff.study.export_people import collect
    from tradeoff.study.table_columns import aspect_slugs

    scenario = load_scenario(study.scenario_path).scenario
    collected = collect(study, scenario, aspect_slugs(scenario), include_pilot)
    known: dict[str, str] = {}
    if truths is not None:
        names: list[str] = []
        if scenario.pool is not None:
            names = list(scenario_pool(scenario, study.scenario_path.parent).names)
        known = read_truths(truths, list(study.participants), names)
    return comparison([a.name for a in study.arms], collected.people, known)
