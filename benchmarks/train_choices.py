"""Convert the train-trip choices (data/train-choices/train_data.csv) into the layout of
``tradeoff choices``: TRAIN.csv, and with ``--holdout N`` also HOLDOUT.csv of each
person's last N choices (with their answers in a separate ``ANSWERS.csv`` to score
predictions against).

The data (README in data/): 235 Dutch travellers, 2,929 choices between two train trips,
each described by price (cents of guilders), travel time (minutes), changes (count) and
comfort (0–2, 0 the most comfortable); ``choice`` names the trip chosen (``choice1`` is
trip 1). The scenario ``train-trips`` takes the price in guilders, so the price is divided
by 100, and names the comfort by what its number counts, ``discomfort`` (steps below the
most comfortable, a cost); trip 1 is option A, trip 2 option B; ``choiceid`` is kept.

Run::

    python benchmarks/train_choices.py --out-dir /tmp/train [--holdout 3]
    tradeoff choices predict /tmp/train/TRAIN.csv /tmp/train/HOLDOUT.csv \\
        --scenario train-trips --out /tmp/train/PRED.csv
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "data" / "train-choices" / "train_data.csv"
ASPECTS = ("price", "time", "changes", "discomfort")
#: Source column of each aspect for trip 1 (trip 2: the same with 2) and its scale.
COLUMNS = {
    "price": ("price", 0.01),
    "time": ("time", 1.0),
    "changes": ("change", 1.0),
    "discomfort": ("comfort", 1.0),
}


def converted(source: Path = SOURCE) -> list[dict[str, str]]:
    """Every choice in the layout of ``tradeoff choices`` (with ``choiceid`` kept)."""
    rows = []
    with source.open(newline="", encoding="utf-8") as fh:
        for raw in csv.DictReader(fh):
            row = {"person": f"t{int(raw['id']):03d}", "choiceid": raw["choiceid"]}
            for side, trip in (("A", "1"), ("B", "2")):
                for aspect in ASPECTS:
                    column, scale = COLUMNS[aspect]
                    row[f"{side}_{aspect}"] = f"{float(raw[column + trip]) * scale:g}"
            row["answer"] = {"choice1": "A", "choice2": "B"}[raw["choice"]]
            rows.append(row)
    return rows


def split(
    rows: list[dict[str, str]], holdout: int
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(train, held out): each person's last ``holdout`` choices held out, in file order."""
    by_person: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        by_person[row["person"]].append(row)
    train, held = [], []
    for person_rows in by_person.values():
        cut = max(0, len(person_rows) - holdout)
        train += person_rows[:cut]
        held += person_rows[cut:]
    return train, held


def write(path: Path, rows: list[dict[str, str]], columns: list[str]) -> None:
    with path.open("x", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--holdout", type=int, default=0, help="each person's last N held out")
    parser.add_argument(
        "--source", type=Path, default=SOURCE, help=f"the choices' CSV (default: {SOURCE})"
    )
    args = parser.parse_args()
    names = ["TRAIN.csv", *(["HOLDOUT.csv", "ANSWERS.csv"] if args.holdout else [])]
    there = [n for n in names if (args.out_dir / n).exists()]
    if there:  # nothing written is overwritten, and nothing half written
        parser.exit(
            2, f"{args.out_dir} already holds {', '.join(there)}: give another --out-dir.\n"
        )
    if not args.source.is_file():
        parser.exit(2, f"{args.source}: no such file; give the choices' CSV with --source.\n")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    rows = converted(args.source)
    sides = [f"{s}_{a}" for s in "AB" for a in ASPECTS]
    columns = ["person", "choiceid", *sides, "answer"]
    train, held = split(rows, args.holdout)
    write(args.out_dir / "TRAIN.csv", train, columns)
    if args.holdout:
        write(args.out_dir / "HOLDOUT.csv", held, columns[:-1])
        write(args.out_dir / "ANSWERS.csv", held, ["person", "choiceid", "answer"])
    print(f"{len(train)} training and {len(held)} held-out choices in {args.out_dir}")


if __name__ == "__main__":
    main()
