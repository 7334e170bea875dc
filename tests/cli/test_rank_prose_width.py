"""``tradeoff pool rank`` at an 80-column terminal: its sentences fit (the first line, with
the method, p and ω, ran to 91 columns and more; "Selected: …" to 195 with three
objectives), and so does the table of four objectives (each name over two lines); the
selected model is explained one objective a line. Its JSON is as it was."""

from __future__ import annotations

import json
import re

import pytest

from tradeoff.cli import main

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core

POOL = str(SCENARIOS / "pools" / "breast-cancer.csv")
RANK = [
    "pool",
    "rank",
    POOL,
    "--objective",
    "recall_malignant:max",
    "--objective",
    "recall_benign:max",
    "--objective",
    "latency_ms:min",
    "--name-column",
    "model",
    "--top",
    "5",
]
METRIC = ["pool", "rank", POOL, "--scenario", "breast-cancer-triage", "--top", "3", "--metric"]
TABLE_ROW = re.compile(r"^\s+(#|\d+) |^\s+\d\.\d{3}–\d\.\d{3} |^\s+α from–to")


def _out(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def _prose(text: str) -> list[str]:
    return [line for line in text.splitlines() if not TABLE_ROW.match(line)]


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--sweep", "5", "--alpha-objective", "latency_ms"],
        ["--method", "ideal"],
        ["--method", "delta"],
        ["--method", "norm"],
        ["--method", "naive"],
        ["--method", "ideal", "--reference", "qda", "--p", "1"],
        ["--constraint", "latency_ms < 0.2"],
        ["--weight", "recall_malignant=2", "--weight", "recall_benign=1"],
    ],
)
def test_every_sentence_fits_80_columns(
    extra: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = _out([*RANK, *extra], capsys)
    prose = _prose(text)
    assert len(prose) < len(text.splitlines())  # the table is there, and left out here
    assert [line for line in prose if len(line) > 80] == []


def test_a_ranking_by_a_metric_fits_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = _out([*METRIC, "0.736,0.264,0.000461,4.66e-06"], capsys)
    assert "Recommended by the metric" in text and "Linear metric picks" in text
    assert [line for line in _prose(text) if len(line) > 80] == []
    # what top-x% means is said (a share of the models better, not a score)
    assert "Top-x%: x% of models are better on it (none: top-1%)." in " ".join(text.split())
    # its table too: 93 columns before, each objective's name now over two lines
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "recall_" in text and " malignant " in text
    # how ω was made to agree with the metric is said in words, not by a mapping's name
    flat = " ".join(text.split())
    assert "(anchored)" not in flat and "(swing)" not in flat and "(fitted)" not in flat
    assert "ω chosen to agree with the metric: ω " in flat


def test_every_way_of_choosing_omega_is_said_in_words() -> None:
    from tradeoff.choose.pool_metric import OMEGA_MAPPINGS
    from tradeoff.choose.words import omega_mapping_words

    said = [omega_mapping_words(m, "option") for m in OMEGA_MAPPINGS]
    assert len(set(said)) == len(OMEGA_MAPPINGS)
    for mapping, line in zip(OMEGA_MAPPINGS, said, strict=True):
        assert f"({mapping})" not in line and "{" not in line
    assert "no other option ranks above it" in said[2]


def test_a_narrower_terminal_gets_narrower_sentences(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    text = _out(RANK, capsys)
    assert [line for line in _prose(text) if len(line) > 60] == []
    monkeypatch.setenv("COLUMNS", "200")  # a wide one: sentences still at most 80 columns
    assert [line for line in _prose(_out(RANK, capsys)) if len(line) > 80] == []


def test_the_selected_model_is_explained_one_objective_a_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    lines = _out(RANK, capsys).splitlines()
    at = lines.index("Selected: logreg-C10")
    assert lines[at + 1 : at + 4] == [
        "  top-18% on recall_malignant (0.9294; best 0.9647, median 0.9176)",
        "  top-35% on recall_benign (0.986; best 1, median 0.986)",
        "  top-32% on latency_ms (0.2229; best 0.0792, median 0.2286)",
    ]
    assert lines[:2] == [
        "34 selectable of 34 models; 15 Pareto-optimal",
        "method copa, p = inf, ω = [0.333, 0.333, 0.333]",
    ]


def test_the_json_is_not_wrapped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    data = json.loads(_out([*RANK, "--json"], capsys))
    assert data["explanation"] == (
        "logreg-C10: top-18% on recall_malignant (0.9294; best 0.9647, median 0.9176); "
        "top-35% on recall_benign (0.986; best 1, median 0.986); "
        "top-32% on latency_ms (0.2229; best 0.0792, median 0.2286)"
    )
