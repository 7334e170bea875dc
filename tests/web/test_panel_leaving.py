"""Leaving the study web page through HTTP, for each way in (access code, a panel's link,
the pilot link): "save and come back later" says how that way resumes (English and
German); withdrawing on the page asks first, then writes the record ``study withdraw``
writes; a panel participant who declined and opens the link again stays "declined
consent" in status and the export; a place under the cap or a quota is freed by a
withdrawal (on the page or by ``study withdraw``) and by a hold that lapsed unused
(``--consent-within``); ``study create`` prints one link per quota group that the panel
can open, never a ``<field>`` it cannot fill."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.study import entries
from tradeoff.study.entries import read_entries
from tradeoff.study.export import export_study
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Panel
from tradeoff.study.status import study_status
from tradeoff.study.table_files import export_files
from tradeoff.study.withdrawals import withdraw, withdrawals_path

from ..conftest import small_scenario_file
from ..webclient import Page, Participant
from .test_web import answer_all, make_study
from .test_web_panel import link, panel_study

pytestmark = pytest.mark.e2e

Serve = Callable[[Study], object]


def states(study: Study) -> dict[str | None, str]:
    rows = study_status(load_study(study.path)).to_dict()["rows"]
    return {r["panel_id"] or r["participant"]: r["state"] for r in rows}


async def test_pause_says_how_each_way_in_resumes(tmp_path: Path, serve: Serve) -> None:
    (tmp_path / "codes").mkdir()
    codes_study, codes = make_study(tmp_path / "codes")
    study = panel_study(tmp_path, ids=("AAA111", "BBB222"))
    key = new_key(study.path, "pilot")
    code_base = await serve(codes_study)  # type: ignore[misc]
    base = await serve(study)  # type: ignore[misc]
    said: dict[str, str] = {}
    for way, language in (("code", None), ("panel", None), ("pilot", None), ("panel", "de")):
        p = Participant(code_base if way == "code" else base, language=language)
        try:
            if way == "code":
                consent = await p.enter(codes["p01" if language is None else "p02"])
            elif way == "panel":
                consent = await p.get(link("AAA111" if language is None else "BBB222"))
            else:
                consent = await p.get(f"pilot?key={key}")
            q1 = await p.submit(consent, "consent", choice="agree")
            saved = await p.submit(q1, "pause")
            said[f"{way}-{language}"] = saved.text
            # the cookie is gone: the page is the code page, or the panel's link again
            front = await p.get("question")
            assert front.path == "/"
            if way == "panel":  # a study with no codes asks for none
                assert "access code" not in front.text and "Zugangscode" not in front.text
                assert front.h1 in ("Open your link again", "Öffnen Sie Ihren Link erneut")
        finally:
            await p.close()
    assert "enter your access code" in said["code-None"]
    assert "enter your access code" not in said["panel-None"]
    assert "from the panel, by the same link" in said["panel-None"]
    assert "You need no access code" in said["panel-None"]
    assert "starts a new pilot session" in said["pilot-None"]
    assert "enter your access code" not in said["pilot-None"]
    german = said["panel-de"]
    assert "über das Panel, mit demselben Link" in german and "Zugangscode eingeben" not in german


async def withdraw_on_the_page(p: Participant, at: Page, study: Study) -> Page:
    """From ``at`` (a question), the withdraw page, a refusal (nothing recorded), then the
    confirmation."""
    assert 'href="withdraw"' in at.html
    asked = await p.get("withdraw")
    assert asked.h1 == "Withdraw from the study?"
    assert "leave out every answer you gave" in asked.text
    assert "stay in the study's files" in asked.text
    back = await p.submit(asked, "withdraw", choice="no")
    assert back.path.endswith("/question")
    assert not withdrawals_path(study).exists()
    return await p.submit(asked, "withdraw", choice="withdraw")


async def test_withdrawing_on_the_page_for_each_way_in(tmp_path: Path, serve: Serve) -> None:
    (tmp_path / "codes").mkdir()
    codes_study, codes = make_study(tmp_path / "codes")
    code_base = await serve(codes_study)  # type: ignore[misc]
    p = Participant(code_base)
    try:
        q1 = await p.submit(await p.enter(codes["p01"]), "consent", choice="agree")
        q2 = await p.submit(q1, "answer", choice="left")
        done = await withdraw_on_the_page(p, q2, codes_study)
        assert done.h1 == "You have withdrawn from this study"
        assert "Your access code will no longer" not in done.text
        assert (await p.get("question")).path == "/"  # the cookie is gone
        again = await p.enter(codes["p01"])
        assert again.h1 == "You have withdrawn from this study"
    finally:
        await p.close()
    # after finishing too: the thank-you page links to the same withdraw page
    p = Participant(code_base)
    try:
        q1 = await p.submit(await p.enter(codes["p02"]), "consent", choice="agree")
        done = await p.submit(await answer_all(p, q1), "finish")
        assert done.h1 == "Thank you" and 'href="withdraw"' in done.html
        asked = await p.get("withdraw")
        assert asked.h1 == "Withdraw from the study?"
        gone = await p.submit(asked, "withdraw", choice="withdraw")
        assert gone.h1 == "You have withdrawn from this study"
    finally:
        await p.close()
    lines = [json.loads(x) for x in withdrawals_path(codes_study).read_text().splitlines()]
    assert [r["participant"] for r in lines] == ["p01", "p02"]
    assert len(lines[0]["kept_session_files"]) == 1
    assert states(codes_study)["p01"].startswith("withdrawn")
    assert states(codes_study)["p02"].startswith("withdrawn")

    study = panel_study(tmp_path, ids=("AAA111", "BBB222"))
    key = new_key(study.path, "pilot")
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        q1 = await p.submit(await p.get(link("AAA111")), "consent", choice="agree")
        asked = await p.get("withdraw")
        assert "The panel's link will no longer open the study for you." in asked.text
        done = await withdraw_on_the_page(p, q1, study)
        assert done.h1 == "You have withdrawn from this study"
        assert "DECL1" in done.text  # the panel's code for one who leaves
        again = await p.get(link("AAA111"))
        assert again.h1 == "You have withdrawn from this study"
    finally:
        await p.close()
    pid = study.panel.participant_of("AAA111")  # type: ignore[union-attr]
    assert states(study)["AAA111"].startswith("withdrawn")
    assert json.loads(withdrawals_path(study).read_text())["participant"] == pid
    p = Participant(base, language="de")
    try:
        q1 = await p.submit(await p.get(f"pilot?key={key}"), "consent", choice="agree")
        asked = await p.get("withdraw")
        assert asked.h1 == "Teilnahme an der Studie zurückziehen?"
        done = await p.submit(asked, "withdraw", choice="withdraw")
        assert "Ihre Antworten werden aus den Ergebnissen" in done.text
    finally:
        await p.close()
    [pilot] = load_study(study.path).pilots
    assert pilot in withdrawals_path(study).read_text()


async def test_a_decline_stays_declined_when_the_link_is_opened_again(
    tmp_path: Path, serve: Serve
) -> None:
    study = panel_study(tmp_path, cap=5)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        declined = await p.submit(await p.get(link("P1")), "consent", choice="decline")
        assert "DECL1" in declined.text
        assert (await p.get(link("P1"))).path.endswith("/consent")  # opened again
        assert states(study) == {"P1": "declined consent"}
        declined = await p.submit(await p.get(link("P1")), "consent", choice="decline")
        assert "DECL1" in declined.text  # and declined again: one person who declined
        assert (await p.get(link("P1"))).path.endswith("/consent")
    finally:
        await p.close()
    assert states(study) == {"P1": "declined consent"}
    status = study_status(load_study(study.path)).to_dict()
    assert status["panel"]["declined"] == 1
    out = tmp_path / "export" / "answers.csv"
    out.parent.mkdir()
    export_study(load_study(study.path), out)
    with export_files(out)["participants"].open() as fh:
        [row] = list(csv.DictReader(fh))
    assert row["state"] == "declined consent"


async def test_a_decline_then_taking_part_is_counted_apart(tmp_path: Path, serve: Serve) -> None:
    """Declined, then agreed on a later visit: not "declined consent" in the panel's counts
    either (the rows say so already), but counted apart, since they were shown the panel's
    ending for a decline as well as the one for completing."""
    from tradeoff.cli.study_status import format_status

    study = panel_study(tmp_path, cap=5)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        declined = await p.submit(await p.get(link("P1")), "consent", choice="decline")
        assert "DECL1" in declined.text
        await p.submit(await p.get(link("P1")), "consent", choice="agree")
    finally:
        await p.close()
    data = study_status(load_study(study.path)).to_dict()
    assert data["declined"] == 0 and data["panel"]["declined"] == 0
    assert data["panel"]["declined_then_took_part"] == 1
    said = " ".join(format_status(data).split())
    assert "0 declined consent (1 more declined, then took part)" in said, said


async def test_a_panel_participant_chooses_the_language_on_their_first_page(
    tmp_path: Path, serve: Serve
) -> None:
    """In by the panel's link, they see no code page and its switch: the consent page has
    it, and the language chosen holds for the questions and is the session's."""
    from tradeoff.record.log import read_session
    from tradeoff.study.export_rows import session_language

    study = panel_study(tmp_path, cap=5)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base, "en")
    try:
        consent = await p.get(link("P1"))
        assert consent.path.endswith("/consent") and 'hreflang="de"' in consent.html
        german = await p.get("?lang=de")
        assert german.path.endswith("/consent") and german.h1 == "Information und Einwilligung"
        q1 = await p.submit(german, "consent", choice="agree")
        assert q1.h1 == "Frage 1", q1.h1
    finally:
        await p.close()
    [folder] = [f for f in (study.path / "sessions").iterdir() if f.is_dir()]
    [path] = folder.glob("*.jsonl")
    assert session_language(read_session(path)) == "de"


async def test_a_withdrawal_frees_its_place_under_the_cap_and_the_quota(
    tmp_path: Path, serve: Serve
) -> None:
    study = panel_study(tmp_path, cap=2, keep=("sex",), quota_field="sex", quotas={"f": 1, "m": 5})
    base = await serve(study)  # type: ignore[misc]
    people = [Participant(base) for _ in range(4)]
    try:
        f1 = await people[0].submit(
            await people[0].get(link("F1", sex="f")), "consent", choice="agree"
        )
        assert "SCRN1" in (await people[1].get(link("F2", sex="f"))).text  # quota full
        m1 = await people[2].get(link("M1", sex="m"))
        assert m1.path.endswith("/consent")
        assert "SCRN1" in (await people[3].get(link("M2", sex="m"))).text  # cap full
        await withdraw_on_the_page(people[0], f1, study)
        assert (await people[1].get(link("F2", sex="f"))).path.endswith("/consent")
        # the command line's withdrawal frees a place too
        loaded = load_study(study.path)
        withdraw(loaded, study.panel.participant_of("M1"))  # type: ignore[union-attr]
        assert (await people[3].get(link("M2", sex="m"))).path.endswith("/consent")
    finally:
        for p in people:
            await p.close()
    summary = study_status(load_study(study.path)).to_dict()["panel"]
    assert summary["holding_a_place"] == 2
    assert summary["quotas"]["f"]["filled"] == 1


async def test_a_place_held_without_consent_lapses(
    tmp_path: Path, serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    study = panel_study(tmp_path, cap=1, consent_minutes=30)
    base = await serve(study)  # type: ignore[misc]
    late, other, third = Participant(base), Participant(base), Participant(base)
    try:
        with monkeypatch.context() as m:  # let in long before the 30 minutes
            m.setattr(entries, "_now", lambda: "2026-01-01T00:00:00+00:00")
            consent = await late.get(link("LATE"))
        assert consent.path.endswith("/consent")
        status = study_status(load_study(study.path)).to_dict()["panel"]
        assert status["holding_a_place"] == 0  # the hold lapsed
        assert (await other.get(link("NEW"))).path.endswith("/consent")  # the place is free
        # the late one's consent finds the study full: screened out, no session
        refused = await late.submit(consent, "consent", choice="agree")
        assert "SCRN1" in refused.text and "all the participants it needs" in refused.text
        assert "SCRN1" in (await third.get(link("LATE"))).text
    finally:
        for p in (late, other, third):
            await p.close()
    pid = study.panel.participant_of("LATE")  # type: ignore[union-attr]
    assert not list((study.sessions_dir / pid).glob("*.jsonl"))
    assert read_entries(study.path).people[study.panel.participant_of("NEW")].started is False  # type: ignore[union-attr]


async def test_a_started_place_is_kept_and_a_lapsed_one_is_taken_again_when_there_is_room(
    tmp_path: Path, serve: Serve, monkeypatch: pytest.MonkeyPatch
) -> None:
    study = panel_study(tmp_path, cap=2, consent_minutes=30)
    base = await serve(study)  # type: ignore[misc]
    a, b = Participant(base), Participant(base)
    try:
        with monkeypatch.context() as m:
            m.setattr(entries, "_now", lambda: "2026-01-01T00:00:00+00:00")
            started = await a.submit(await a.get(link("A")), "consent", choice="agree")
            consent = await b.get(link("B"))
        assert started.path.endswith("/question")
        # A consented long ago: still holds; B's hold lapsed, but there is room
        q1 = await b.submit(consent, "consent", choice="agree")
        assert q1.path.endswith("/question")
    finally:
        await a.close()
        await b.close()
    state = read_entries(study.path)
    assert all(e.started for e in state.people.values())
    assert study_status(load_study(study.path)).to_dict()["panel"]["holding_a_place"] == 2


def test_study_create_prints_links_the_panel_can_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = small_scenario_file(tmp_path)
    made = ["study", "create", str(scenario), "--panel", "prolific", "--panel-keep-param"]
    made += ["sex", "--cap", "10", "--quota-field", "sex", "--quota", "female=5"]
    made += ["--quota", "male=5"]
    assert main([*made, "--out", str(tmp_path / "a"), "--consent-within", "0"]) == 2
    assert "--consent-within" in capsys.readouterr().err
    assert main([*made, "--out", str(tmp_path / "b"), "--consent-within", "45"]) == 0
    out = capsys.readouterr().out
    assert "<sex>" not in out
    common = "panel?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}"
    common += "&SESSION_ID={{%SESSION_ID%}}"
    assert f"female (at most 5): http://127.0.0.1:8000/{common}&sex=female" in out
    assert f"male (at most 5): http://127.0.0.1:8000/{common}&sex=male" in out
    assert "A panel fills only its own parameters, not sex" in out
    assert "held for 45 minutes" in out
    panel = load_study(tmp_path / "b").panel
    assert panel is not None and panel.consent_minutes == 45
    assert main([*made, "--out", str(tmp_path / "c"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["panel_link"] is None and data["consent_minutes"] == 60
    assert data["quota_links"]["female"].endswith("&sex=female")
    other = ["study", "create", str(scenario), "--panel-id-param", "uid", "--cap", "3"]
    assert main([*other, "--out", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert "/panel?uid=<uid>" in out and "panel's own placeholder for <uid>" in out


def test_study_create_with_an_allow_list_holds_no_places(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An allow-list lets in its ids, each to their own session, and holds no places:
    `study create` says so rather than that a place is held (--consent-within, open
    enrolment's), and refuses --consent-within with it."""
    ids = tmp_path / "ids.txt"
    ids.write_text("5f8a2c1e9b\n60aa01\n")
    made = ["study", "create", str(small_scenario_file(tmp_path)), "--panel", "prolific"]
    made += ["--panel-ids", str(ids)]
    assert main([*made, "--out", str(tmp_path / "a")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "A place is held" not in out and "--consent-within" not in out
    assert "Only the panel ids of the allow-list can enter by the link" in out
    assert main([*made, "--out", str(tmp_path / "b"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["consent_minutes"] is None
    assert main([*made, "--out", str(tmp_path / "c"), "--consent-within", "45"]) == 2
    err = capsys.readouterr().err
    assert "--consent-within is for open enrolment" in err and "Traceback" not in err
    assert not (tmp_path / "c").exists()


async def test_without_consent_the_first_page_takes_up_the_place(
    tmp_path: Path, serve: Serve
) -> None:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    panel = Panel("PID", (), b"0123456789abcdef", cap=1, consent_minutes=1)
    study, _ = create_study(scenario, [], tmp_path / "study", panel=panel)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        assert (await p.get("panel?PID=N1")).path.endswith("/question")
    finally:
        await p.close()
    [person] = read_entries(study.path).people.values()
    assert person.started


def test_a_session_on_disk_keeps_a_place_from_before_started_lines(tmp_path: Path) -> None:
    """A study's entries from before ``started`` lines: a person let in long ago with a
    session file holds their place; one without has given it up."""
    panel = Panel("PID", (), b"0123456789abcdef", cap=1)
    folder = tmp_path / "study"
    (folder / "sessions").mkdir(parents=True)
    old = "2026-01-01T00:00:00+00:00"
    for panel_id in ("HAS", "NONE"):
        pid = panel.participant_of(panel_id)
        line = {"event": "enrolled", "participant": pid, "panel_id": panel_id, "at": old}
        with (folder / "entries.jsonl").open("a") as fh:
            fh.write(json.dumps(line) + "\n")
    has = folder / "sessions" / panel.participant_of("HAS")
    has.mkdir()
    (has / "s1.jsonl").write_text("{}\n")
    log = entries.EntryLog(folder)
    assert entries.admit(panel, log, "NEW", {}).reason == "study full"
    assert entries.admit(panel, log, "HAS", {}).returning
    assert entries.admit(panel, log, "NONE", {}).reason == "study full"
