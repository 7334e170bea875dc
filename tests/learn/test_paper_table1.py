"""Paper 004 Table 1, reproduced through the command line (``tradeoff simulate --json``)."""

from __future__ import annotations

import json

import pytest

from tradeoff.cli import main

from ..conftest import SCENARIOS

pytestmark = pytest.mark.core

K3 = "0.12,0.08,0.07,0.32,0.19,0.22"
CASES = [
    ("paper-k2-reward-cost", "0.10,0.05,0.05,0.80", 120),
    ("paper-k2-two-costs", "0.32,0.17,0.28,0.23", 120),
    ("paper-k3-two-costs-reward", K3, 200),
    ("paper-k3-cost-two-rewards", K3, 200),
]


@pytest.mark.parametrize(("name", "truth", "queries"), CASES)
def test_table1(name: str, truth: str, queries: int, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "simulate",
        str(SCENARIOS / f"{name}.toml"),
        "--truth",
        truth,
        "--strategy",
        "paper",
        "--epsilon",
        "0.001",
        "--json",
    ]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["strategy"] == "paper"
    assert data["queries"] == {"median": queries, "max": queries}
    expected = [float(x) for x in truth.split(",")]
    assert [round(w, 2) for w in data["weights"]] == expected
    assert data["truth"] == pytest.approx(expected)
    assert data["l1_error"]["max"] < 0.002
