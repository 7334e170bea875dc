"""`tradeoff pool rank`'s table: every objective under its own, whole name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tradeoff.cli import main

pytestmark = pytest.mark.core

POOL = """model,recall_class_0,recall_class_1,recall_class_2,latency_ms
a,0.91,0.80,0.70,1.2
b,0.85,0.88,0.75,0.9
c,0.80,0.82,0.90,2.0
d,0.70,0.70,0.70,3.0
"""


def test_objectives_that_share_a_prefix_keep_their_whole_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header cut every name to 12 characters, so recall_class_0, _1 and _2 all read
    "recall_class" and the three columns could not be told apart."""
    monkeypatch.setenv("COLUMNS", "120")
    pool = tmp_path / "three.csv"
    pool.write_text(POOL)
    objectives = ["recall_class_0", "recall_class_1", "recall_class_2"]
    argv = ["pool", "rank", str(pool)]
    for name in objectives:
        argv += ["--objective", f"{name}:max"]
    assert main([*argv, "--objective", "latency_ms:min"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("#"))
    assert header.split() == ["#", "model", "score", *objectives, "latency_ms", "pareto"]
    # Each column's top-% stands under its own name, right-aligned with it.
    row = next(line for line in lines if line.lstrip().startswith("1 "))
    for name in objectives:
        end = header.index(name) + len(name)
        assert row[end - 1] == "%" and row[:end].rsplit(maxsplit=1)[-1].startswith("top-")


def test_objectives_or_a_scenario_are_needed_and_not_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --objective the usage said "give at least one --objective" though --scenario
    with --metric ranks without one; with both, the --objective options were ignored."""
    pool = tmp_path / "three.csv"
    pool.write_text(POOL)
    assert main(["pool", "rank", "--help"]) == 0
    usage = capsys.readouterr().out
    assert "pool rank POOL --scenario FILE --metric W1,W2,..." in usage
    assert main(["pool", "rank", str(pool)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "give at least one --objective COL:min|max, or --scenario FILE --metric" in err
    both = ["--objective", "latency_ms:min", "--scenario", "glaucoma-screening", "--metric"]
    assert main(["pool", "rank", str(pool), *both, "0.5,0.3,0.1,0.1"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "give --objective or --scenario, not both" in err


def test_a_long_name_cut_to_the_column_ends_in_an_ellipsis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names longer than the name column (60) were cut with no mark, so a cut leaderboard
    name read as a whole one. At 80 columns the name is cut to what the row leaves."""
    monkeypatch.setenv("COLUMNS", "120")
    long = "Jimmy19991222_llama-3-8b-instruct-gapo-v2-bert-f1-beta10-gamma0.3-lr1.0e-6"
    pool = tmp_path / "long.csv"
    pool.write_text(POOL.replace("\na,", f"\n{long},"))
    argv = ["pool", "rank", str(pool), "--objective", "latency_ms:min", "--top", "4"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("#"))
    row = next(line for line in lines if "Jimmy" in line)
    shown = row.split()[1]
    assert len(shown) == 60 and shown == long[:59] + "…"
    assert row.index(" ", row.index("Jimmy")) == header.index("score") - 4  # width kept
    # At 80 columns a row with the name's 60 would be 93 wide: each name is on a line of
    # its own under its row, whole where the terminal has room for it.
    monkeypatch.setenv("COLUMNS", "80")
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    at = next(i for i, line in enumerate(lines) if line.strip() == long)
    rank, score, *tops = lines[at - 1].split()
    assert rank.isdigit() and float(score.rstrip("=")) >= 0 and tops[0].startswith("top-")
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    assert lines[header].split()[:2] == ["#", "score"] and lines[header + 1].strip() == "model"


def test_at_80_columns_each_name_stands_whole_over_two_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At an 80-column terminal the rows were 95 columns wide, so the terminal broke every
    row in two; now each objective's name is written over two lines, the rows fit, and
    the name read down a column is still whole and under it stands its own top-%."""
    monkeypatch.setenv("COLUMNS", "80")
    pool = tmp_path / "three.csv"
    pool.write_text(POOL)
    objectives = ["recall_class_0", "recall_class_1", "recall_class_2", "latency_ms"]
    argv = ["pool", "rank", str(pool)]
    for name in objectives:
        argv += ["--objective", f"{name}:{'min' if name == 'latency_ms' else 'max'}"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    upper, header = lines[at - 1], lines[at]
    assert header.split()[:3] == ["#", "model", "score"] and header.split()[-1] == "pareto"
    row = next(line for line in lines if line.lstrip().startswith("1 "))
    ends = [m.end() for m in re.finditer(r"top-\d+%", row)]
    assert len(ends) == len(objectives)
    for name, end in zip(objectives, ends, strict=True):
        top = upper[:end].rsplit(maxsplit=1)[-1]
        bottom = header[:end].rsplit(maxsplit=1)[-1]
        assert top + bottom == name  # right-aligned with its column, read whole
