"""One thread per numeric library call while the engine works (:mod:`tradeoff.threads`):
the command line holds BLAS to one thread for every command but COPA's ranking, and gives
back the limits it found; simulated people run in this process do too."""

from __future__ import annotations

import argparse
from typing import Any

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import tradeoff.cli
import tradeoff.cli.parser
import tradeoff.cli.parser_pick
from tradeoff.cli import main
from tradeoff.simulation.parallel import run_people

pytestmark = pytest.mark.core


def blas_threads() -> int:
    """The most threads a loaded BLAS would use for one call now."""
    found = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    if not found:
        pytest.skip("no BLAS that threadpoolctl can limit is loaded")
    return max(found)


@pytest.fixture
def two_threads() -> Any:
    """BLAS at two threads around the test (a single-core machine would start at one)."""
    blas_threads()
    with threadpool_limits(limits=2, user_api="blas"):
        yield


class Spy:
    """A command that records how many threads BLAS would use while it runs."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def __call__(self, args: argparse.Namespace) -> int:
        self.seen.append(blas_threads())
        return 0


def test_a_command_runs_with_one_blas_thread_and_gives_the_limits_back(
    monkeypatch: pytest.MonkeyPatch, two_threads: None
) -> None:
    spy = Spy()
    monkeypatch.setattr(tradeoff.cli.parser, "cmd_scenario_list", spy)
    assert main(["scenario", "list"]) == 0
    assert spy.seen == [1]
    assert blas_threads() == 2


def test_copas_ranking_keeps_every_thread(
    monkeypatch: pytest.MonkeyPatch, two_threads: None
) -> None:
    spy = Spy()
    monkeypatch.setattr(tradeoff.cli.parser_pick, "cmd_rank", spy)
    monkeypatch.setattr(tradeoff.cli, "MANY_THREADS", frozenset({spy}))
    assert main(["pool", "rank", "models.csv"]) == 0
    assert spy.seen == [2]


def _threads(shared: None, person: int) -> int:
    return blas_threads()


def test_simulated_people_in_this_process_run_with_one_blas_thread(two_threads: None) -> None:
    assert run_people(_threads, None, [0, 1, 2]) == [1, 1, 1]
    assert blas_threads() == 2
