"""The bound on new panel entries from one address holds for the study, through HTTP and
two server processes on one folder (each its own memory, as ``--workers 2`` has them):
with a bound of two, one address brings two new panel ids in all, not two per process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from tradeoff.study import entries
from tradeoff.study.entries import read_entries
from tradeoff.web.flow import make_web_app

from ..webclient import Participant
from .test_web_panel import link, panel_study

pytestmark = pytest.mark.e2e


@pytest.fixture
async def two(tmp_path: Path) -> AsyncIterator[tuple[Path, str, str]]:
    study = panel_study(tmp_path, cap=100)
    servers = [TestServer(make_web_app(study)), TestServer(make_web_app(study))]
    for server in servers:
        await server.start_server()
    try:
        yield study.path, *(str(s.make_url("/")) for s in servers)  # type: ignore[misc]
    finally:
        for server in servers:
            await server.close()


async def test_one_address_brings_a_bounded_number_of_new_entries_across_processes(
    two: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(entries, "NEW_ENTRIES_PER_SOURCE", 2)
    folder, a, b = two
    p = Participant(a)
    try:
        assert (await p.get(link("N1"), at=a)).path.endswith("/consent")
        assert (await p.get(link("N2"), at=b)).path.endswith("/consent")
        for there, pid in ((a, "N3"), (b, "N4")):
            page = await p.get(link(pid), at=there)
            assert page.status == 429 and "Too many new entries" in page.text
        assert (await p.get(link("N1"), at=b)).path.endswith("/consent")  # a return
    finally:
        await p.close()
    assert {e.panel_id for e in read_entries(folder).people.values()} == {"N1", "N2"}
    lines = (folder / entries.SOURCES_FILE).read_text().splitlines()
    assert [line.split()[1] for line in lines] == ["127.0.0.1"] * 2
