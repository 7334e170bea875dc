"""Panel entry, pilot runs and the coordinator's page through HTTP: a listed panel id
enters and its session file records how; an unlisted one is screened out with its code;
open enrolment stops at its cap and quotas; the same panel id comes back to its own
session; a declined consent and a completion end at the panel's code or address (its
parameters put in); a pilot session is marked and kept out of the counts; the
coordinator's page opens only with its key and shows the numbers of ``study status
--json``."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tradeoff.record.log import read_session
from tradeoff.record.records import NoteRecord
from tradeoff.study import entries
from tradeoff.study.entries import read_entries
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Ending, Panel
from tradeoff.study.status import study_status
from tradeoff.web.flow import make_web_app
from tradeoff.web.site import COORDINATOR_COOKIE

from ..conftest import small_scenario_file
from ..webclient import Page, Participant
from .test_web import CONSENT, answer_all

pytestmark = pytest.mark.e2e

DONE_URL = "https://panel.example/complete?cc=DONE1&pid={PROLIFIC_PID}&s={SESSION_ID}"


def panel_study(
    tmp_path: Path, *, ids: tuple[str, ...] = (), cap: int | None = None, **more: object
) -> Study:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    consent = tmp_path / "consent.md"
    consent.write_text(CONSENT)
    panel = Panel(
        "PROLIFIC_PID",
        ("STUDY_ID", "SESSION_ID", *more.pop("keep", ())),  # type: ignore[misc]
        b"0123456789abcdef",
        allow_list=bool(ids),
        cap=cap,
        complete=Ending(DONE_URL),
        declined=Ending(code="DECL1"),
        screened=Ending(code="SCRN1"),
        **more,  # type: ignore[arg-type]
    )
    study, _ = create_study(
        scenario, [], tmp_path / "study", consent=consent, panel=panel, panel_ids=ids
    )
    return study


Served = Callable[[Study], AsyncIterator[str]]


def link(pid: str, **more: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"PROLIFIC_PID": pid, **more}.items())
    return f"panel?{query}"


async def test_a_listed_panel_id_enters_completes_and_lands_on_the_panel(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study = panel_study(tmp_path, ids=("AAA111", "BBB222"))
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        consent = await p.get(link("AAA111", STUDY_ID="st1", SESSION_ID="se1", OTHER="x"))
        assert consent.path.endswith("/consent")
        q1 = await p.submit(consent, "consent", choice="agree")
        assert q1.path.endswith("/question")
        review = await answer_all(p, q1)
        done = await p.submit(review, "finish")
        assert done.path.endswith("/done") and done.h1 == "Thank you"
        target = "https://panel.example/complete?cc=DONE1&amp;pid=AAA111&amp;s=se1"
        assert f'http-equiv="refresh" content="0; url={target}"' in done.html
        assert f'href="{target}"' in done.html
        # the same link again: back to the finished session, never a second one
        again = await p.get(link("AAA111", STUDY_ID="st1", SESSION_ID="se1"))
        assert again.path.endswith("/done")
        # opened again, the page stays (sent on at once only from the last page), so the
        # way to withdraw on it can be read and followed; the panel's link is still there
        assert "http-equiv" not in again.html and f'href="{target}"' in again.html
        assert 'href="withdraw"' in again.html
        asked = await p.get("withdraw")
        assert asked.path.endswith("/withdraw") and 'action="withdraw"' in asked.html
    finally:
        await p.close()
    pid = study.panel.participant_of("AAA111")  # type: ignore[union-attr]
    assert pid.startswith("panel-") and "AAA111" not in pid
    [path] = (study.sessions_dir / pid).glob("*.jsonl")
    log = read_session(path)
    assert log.finished and log.entry is not None
    assert (log.entry.via, log.entry.panel_id, log.entry.pilot) == ("panel", "AAA111", False)
    assert log.entry.params == {"STUDY_ID": "st1", "SESSION_ID": "se1"}  # OTHER not kept
    notes = [e.text for e in log.events if isinstance(e, NoteRecord)]
    assert "outcome completed" in notes
    loaded = load_study(study.path)
    assert loaded.panel_ids[pid] == "AAA111"
    status = study_status(loaded).to_dict()
    assert status["complete"] == 1 and status["panel"]["entered"] == 1


async def test_an_unlisted_id_is_screened_out_and_hostile_ids_get_a_plain_page(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study = panel_study(tmp_path, ids=("AAA111",))
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        out = await p.get(link("ZZZ999"))
        assert out.status == 200 and "SCRN1" in out.text and "list" in out.text
        for bad in ("", "a%2F..%2Fb", "x" * 65, "%00abc", "ab%0Acd", "%C3%A9t%C3%A9"):
            page = await p.get(f"panel?PROLIFIC_PID={bad}")
            assert page.status == 400 and page.h1 == "This link is not complete", bad
            assert "Traceback" not in page.html
        missing = await p.get("panel?STUDY_ID=1")
        assert missing.status == 400
        long_param = await p.get(link("AAA111", STUDY_ID="y" * 300))
        assert long_param.status == 400
    finally:
        await p.close()
    state = read_entries(study.path)
    assert dict(state.screened) == {"not on the list": 1} and not state.people
    assert not any(study.sessions_dir.iterdir())


async def test_open_enrolment_stops_at_the_cap_and_a_declined_place_is_freed(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study = panel_study(tmp_path, cap=2)
    base = await serve(study)  # type: ignore[misc]
    people = [Participant(base) for _ in range(4)]
    try:
        first = await people[0].get(link("P1"))
        second = await people[1].get(link("P2"))
        assert first.path.endswith("/consent") and second.path.endswith("/consent")
        third = await people[2].get(link("P3"))
        assert "SCRN1" in third.text and "all the participants it needs" in third.text
        # P1 comes back in another browser: their own place, not a new one
        again = await people[3].get(link("P1"))
        assert again.path.endswith("/consent")
        declined = await people[1].submit(second, "consent", choice="decline")
        assert "DECL1" in declined.text
        now = await people[2].get(link("P3"))
        assert now.path.endswith("/consent")
    finally:
        for p in people:
            await p.close()
    state = read_entries(study.path)
    assert state.declines == 1 and dict(state.screened) == {"study full": 1}
    summary = state.summary(study.panel)
    assert summary["holding_a_place"] == 2 and summary["entered"] == 3
    rows = study_status(load_study(study.path)).to_dict()["rows"]
    states = {r["panel_id"]: r["state"] for r in rows}
    assert states == {"P1": "not started", "P2": "declined consent", "P3": "not started"}


async def test_one_address_brings_a_bounded_number_of_new_entries(
    tmp_path: Path, serve: Callable[[Study], object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(entries, "NEW_ENTRIES_PER_SOURCE", 2)
    study = panel_study(tmp_path, cap=100)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        assert (await p.get(link("N1"))).path.endswith("/consent")
        assert (await p.get(link("N2"))).path.endswith("/consent")
        third = await p.get(link("N3"))
        assert third.status == 429 and "Too many new entries" in third.text
        assert (await p.get(link("N1"))).path.endswith("/consent")  # a return is let in
    finally:
        await p.close()
    assert set(read_entries(study.path).people) == {
        study.panel.participant_of(i)  # type: ignore[union-attr]
        for i in ("N1", "N2")
    }


async def test_quotas_screen_out_a_full_group_and_an_unknown_one(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study = panel_study(tmp_path, cap=10, keep=("sex",), quota_field="sex", quotas={"f": 1, "m": 1})
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        assert (await p.get(link("F1", sex="f"))).path.endswith("/consent")
        assert "SCRN1" in (await p.get(link("F2", sex="f"))).text
        assert "SCRN1" in (await p.get(link("X1", sex="x"))).text
        assert (await p.get(link("M1", sex="m"))).path.endswith("/consent")
    finally:
        await p.close()
    state = read_entries(study.path)
    assert dict(state.screened) == {"quota full": 1, "quota group unknown": 1}
    assert state.summary(study.panel)["quotas"] == {
        "f": {"filled": 1, "size": 1},
        "m": {"filled": 1, "size": 1},
    }


async def test_a_pilot_is_marked_not_counted_and_moved_aside(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study = panel_study(tmp_path, ids=("AAA111",))
    key = new_key(study.path, "pilot")
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        wrong = await p.get("pilot?key=nope")
        assert wrong.status == 403
        consent = await p.get(f"pilot?key={key}")
        assert consent.path.endswith("/consent")
        q1 = await p.submit(consent, "consent", choice="agree")
        await p.submit(q1, "answer", choice="left")
    finally:
        await p.close()
    loaded = load_study(study.path)
    [pilot] = loaded.pilots
    [path] = (loaded.sessions_dir / pilot).glob("*.jsonl")
    log = read_session(path)
    assert log.entry is not None and log.entry.pilot and log.entry.via == "open"
    status = study_status(loaded).to_dict()
    assert status["started"] == 0 and status["pilots"] == {
        "participants": 1,
        "sessions": 1,
        "complete": 0,
    }
    assert [r["participant"] for r in status["pilot_rows"]] == [pilot]
    from tradeoff.study.entries import remove_pilots

    dest, moved = remove_pilots(loaded.path, loaded.pilots)
    assert moved == [pilot] and (dest / pilot / path.name).is_file()
    assert not (loaded.sessions_dir / pilot).exists()
    assert load_study(study.path).pilots == frozenset()


def facts_of(page: Page) -> dict[str, str]:
    return dict(re.findall(r'data-fact="([a-z_.]+)"[^>]*>([^<]*)<', page.html))


async def test_the_coordinators_page_needs_its_key_and_shows_the_status_numbers(
    tmp_path: Path, serve: Callable[[Study], object]
) -> None:
    study = panel_study(tmp_path, ids=("AAA111", "BBB222"))
    key = new_key(study.path, "coordinator")
    base = await serve(study)  # type: ignore[misc]
    people = [Participant(base) for _ in range(3)]
    coordinator = Participant(base)
    try:
        consent = await people[0].get(link("AAA111"))
        q1 = await people[0].submit(consent, "consent", choice="agree")
        await people[0].submit(q1, "answer", choice="left")
        await people[1].get(link("NOPE"))
        form = await coordinator.get("coordinator")
        assert form.status == 200 and 'name="key"' in form.html
        assert "data-fact" not in form.html
        refused = await coordinator.submit(form, "coordinator", key="wrong-key")
        assert refused.status == 403 and "data-fact" not in refused.html
        page = await coordinator.submit(refused, "coordinator", key=key)
        assert page.path.endswith("/coordinator") and COORDINATOR_COOKIE in coordinator.cookies
        # a participant's session cookie does not open it
        assert "data-fact" not in (await people[0].get("coordinator")).html
    finally:
        for p in [*people, coordinator]:
            await p.close()
    shown = facts_of(page)
    expected = study_status(load_study(study.path)).to_dict()
    assert shown, "the page shows no number"
    for name, text in shown.items():
        value: object = expected
        for part in name.split("."):
            value = value[part]  # type: ignore[index]
        if name == "pilots.participants":
            text = re.match(r"\d+", text).group(0)  # type: ignore[union-attr]
        if name == "panel.holding_a_place":
            text = text.split(" of ")[0]
        assert text.strip() == ("—" if value is None else str(value)), name
    assert expected["started"] == 1 and expected["panel"]["screened_total"] == 1
    assert 'data-stop="1"' in page.html  # one person stands after one answer


def test_two_processes_starting_one_participant_at_once_make_one_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two server processes (two ``Participants``, each with its own in-process lock) start
    the same panel participant's session at the same moment, eight times over, each start
    held up for 50 ms so that both look for an open session before either writes one: the
    participant folder's ``flock`` lets one start it and the other find it (without the
    lock, every round makes two files)."""
    import threading
    import time

    from tradeoff.ask.scenario import load_scenario
    from tradeoff.web import held as held_module
    from tradeoff.web.held import Participants

    real_start = held_module.start_session

    def slow_start(*args: object, **kwargs: object) -> object:
        time.sleep(0.05)
        return real_start(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(held_module, "start_session", slow_start)

    study = panel_study(tmp_path, ids=("AAA111",))
    loaded = load_scenario(study.scenario_path)
    for round_ in range(8):
        pid = f"panel-race{round_}"
        servers = [Participants(study, loaded), Participants(study, loaded)]
        barrier = threading.Barrier(2)
        paths: list[Path] = []

        def start(
            held: Participants, who: str, barrier: threading.Barrier, paths: list[Path]
        ) -> None:
            barrier.wait()
            paths.append(held.start(who, None, "en"))

        threads = [threading.Thread(target=start, args=(h, pid, barrier, paths)) for h in servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(set(paths)) == 1
        assert len(list((study.sessions_dir / pid).glob("*.jsonl"))) == 1


def test_the_coordinators_facts_are_gathered_at_most_every_few_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many reloads, the status is gathered once per STATUS_SECONDS per process."""
    from tradeoff.web import coordinator
    from tradeoff.web.site import SITE

    study = panel_study(tmp_path, ids=("AAA111",))
    site = make_web_app(study)[SITE]
    calls: list[int] = []
    real = coordinator.study_status

    def counted(s: Study) -> object:
        calls.append(1)
        return real(s)

    monkeypatch.setattr(coordinator, "study_status", counted)
    start = 1000.0
    for step in range(50):  # 50 reloads within the window
        coordinator.status_facts(site, start + step * (coordinator.STATUS_SECONDS / 60))
    assert len(calls) == 1
    facts = coordinator.status_facts(site, start + coordinator.STATUS_SECONDS + 0.01)
    assert len(calls) == 2 and facts["participants"] == 1
    site.executor.shutdown()
