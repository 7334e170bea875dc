"""The walk of one answer on the study web page (the ``POST /answer``, the next question
chosen ahead, the redirect's ``GET /question``): one exclusive lock of the session file,
taken by the write, and no listing of the participant's session folder, however many
answers came before."""

from __future__ import annotations

import asyncio
import fcntl
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestServer

from tradeoff.study.folder import create_study
from tradeoff.web.flow import make_web_app
from tradeoff.web.site import SITE

from ..conftest import small_scenario_file
from ..webclient import Page, Participant

pytestmark = pytest.mark.e2e


class Counted:
    """Exclusive ``flock``s and folder listings made while it counts."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.exclusive: list[int] = []
        self.listed: list[str] = []
        self.on = False
        flock = fcntl.flock

        def counted_flock(fd: Any, operation: int) -> None:
            if self.on and operation & fcntl.LOCK_EX:
                self.exclusive.append(operation)
            flock(fd, operation)

        monkeypatch.setattr(fcntl, "flock", counted_flock)
        for owner, name in (
            (os, "scandir"),
            (os, "listdir"),
            (Path, "iterdir"),
            (Path, "glob"),
            (Path, "rglob"),
        ):
            monkeypatch.setattr(owner, name, self._listing(getattr(owner, name), name))

    def _listing(self, real: Callable[..., Any], name: str) -> Callable[..., Any]:
        def listing(*args: Any, **kwargs: Any) -> Any:
            if self.on:
                self.listed.append(f"{name}{args!r}")
            return real(*args, **kwargs)

        return listing


async def test_one_answer_takes_one_exclusive_lock_and_lists_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 8"})
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    app = make_web_app(study)
    server = TestServer(app)
    await server.start_server()
    site = app[SITE]
    p = Participant(str(server.make_url("/")))
    counted = Counted(monkeypatch)

    async def answer(page: Page) -> Page:
        out = await p.submit(page, "answer", choice="left")
        for _ in range(500):  # the next question, chosen ahead, is chosen
            if not site._ahead:
                break
            await asyncio.sleep(0.01)
        return out

    try:
        page = await p.enter(codes["p01"])
        assert page.h1 == "Question 1"
        await asyncio.sleep(0.15)  # the folder settled since the session's file was made
        for _ in range(3):  # earlier answers: the history the walk must not grow with
            page = await answer(page)
        assert page.h1 == "Question 4"
        counted.on = True
        page = await answer(page)
        counted.on = False
        assert page.h1 == "Question 5"
    finally:
        await p.close()
        await server.close()
    assert len(counted.exclusive) == 1, counted.exclusive
    assert counted.listed == []


def test_a_session_another_process_starts_is_found_without_a_listing_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept listing of a participant's folder is used while the folder is unchanged,
    and listed again once another process (here: a recorder of its own) adds a file."""
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.opening import start_session
    from tradeoff.web import held

    scenario = small_scenario_file(tmp_path)
    study, _ = create_study(scenario, ["p01"], tmp_path / "study")
    loaded = load_scenario(study.scenario_path)
    participants = held.Participants(study, loaded)
    (study.sessions_dir / "p01").mkdir()
    monkeypatch.setattr(held, "SETTLED", 0.0)  # every listing trusted at once
    counted = Counted(monkeypatch)
    counted.on = True
    assert participants.open_session("p01") is None
    assert participants.open_session("p01") is None
    assert len([c for c in counted.listed if c.startswith("glob")]) == 1  # listed once
    other = start_session(loaded, "p01", study.sessions_dir, cache_dir=study.cache_dir)
    other.close()
    os.utime(study.sessions_dir / "p01", ns=(1, 1))  # the folder's time moved (any tick)
    assert participants.open_session("p01") == other.path
    assert participants.open_session("p01") == other.path
    assert len([c for c in counted.listed if c.startswith("glob")]) == 2
