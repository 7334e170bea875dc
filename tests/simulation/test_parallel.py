"""Simulated people run in this process, in local worker processes (joblib) or on a Dask
cluster, with the same summary whatever runs them."""

from __future__ import annotations

import pytest

from tradeoff.simulation.parallel import Backend, chunk_size, chunks, run_people

pytestmark = pytest.mark.core


def _square_plus(shared: int, x: int) -> int:
    return x * x + shared


def test_people_come_back_in_order_in_chunks_with_progress() -> None:
    seen: list[tuple[int, int]] = []
    out = run_people(_square_plus, 1, list(range(23)), progress=lambda d, t: seen.append((d, t)))
    assert out == [x * x + 1 for x in range(23)]
    assert seen[-1] == (23, 23)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) == len(chunks(23, chunk_size(23, 1)))


def test_chunks_cover_every_person_once() -> None:
    for total in range(1, 120):
        for workers in (1, 2, 3, 8):
            parts = chunks(total, chunk_size(total, workers))
            assert [i for p in parts for i in p] == list(range(total))
            assert max(len(p) for p in parts) <= 50


def test_a_backend_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Backend(workers=0)
