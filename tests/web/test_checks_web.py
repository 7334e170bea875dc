"""Attention checks and consent asked again, through the study web page: a check reads
as a question, is recorded as a check (never an answer), a second submit of its page
records nothing; status, export and report count it; a new consent text is asked for
before the next question, in the participant's language."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.record.log import read_session
from tradeoff.study.consent_added import add_consent_version
from tradeoff.study.export import export_study
from tradeoff.study.export_rows import session_language
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.report import study_sessions
from tradeoff.study.status import study_status

from ..conftest import small_scenario_file
from ..webclient import Page, Participant
from .conftest import Serve

pytestmark = pytest.mark.e2e

NEW_TEXT = "# About this study, version 2\n\nWe now also keep your answers for ten years.\n"
GERMAN = "# Über diese Studie, Version 2\n\nWir bewahren Ihre Antworten zehn Jahre auf.\n"


def make_study(tmp_path: Path, checks: tuple[int, ...] = (2, 4)) -> tuple[Study, dict[str, str]]:
    tmp_path.mkdir(exist_ok=True)
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 5"})
    consent = tmp_path / "consent.md"
    consent.write_text("# About this study\n\nWe ask which of two tests you prefer.\n")
    return create_study(
        scenario, ["p01", "p02"], tmp_path / "study", consent=consent, attention_checks=checks
    )


def dominated(page: Page) -> str | None:
    """The side whose card reads worse on every line that differs (a check's), if any."""
    cards = page.html.split('<section class="option"')[1:3]
    worse = [c.split("</section>")[0].count("differs worse") for c in cards]
    better = [c.split("</section>")[0].count("differs better") for c in cards]
    for side, (w, b) in zip(("left", "right"), zip(worse, better, strict=True), strict=True):
        if b == 0 and w > 0:
            return side
    return None


def only(study: Study, pid: str) -> Path:
    [path] = sorted((study.sessions_dir / pid).glob("*.jsonl"))
    return path


async def test_a_check_reads_as_a_question_and_is_recorded_apart(
    tmp_path: Path, serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    study, codes = make_study(tmp_path)
    p = Participant(await serve(study))
    try:
        consent = await p.enter(codes["p01"])
        page = await p.submit(consent, "consent", choice="agree")
        headings, forms = [], []
        check_page: Page | None = None
        while page.path.endswith("/question"):
            headings.append(page.h1)
            forms.append(sorted(f for f in ("answered", "shown", "step") if f in page.html))
            before = read_session(only(study, "p01"))
            bad = dominated(page)
            # the first check failed (the dominated option), the second passed
            choice = (
                "left"
                if bad is None
                else bad
                if check_page is None
                else ("right" if bad == "left" else "left")
            )
            nxt = await p.submit(page, "answer", choice=choice)
            after = read_session(only(study, "p01"))
            if len(after.checks) > len(before.checks):
                check_page = page
                # the check's page again (the back button): nothing is recorded, and the
                # question after it is still the one shown
                again = await p.submit(page, "answer", choice=choice)
                resent = read_session(only(study, "p01"))
                assert len(resent.events) == len(after.events)
                assert again.h1 == nxt.h1
            page = nxt
        assert check_page is not None and page.path.endswith("/review")
        done = await p.submit(page, "finish")
        assert done.path.endswith("/done")
        log = read_session(only(study, "p01"))
        answers = sum(e.type == "answer" for e in log.events)
    finally:
        await p.close()
    # 5 questions and 2 checks, numbered as 7 questions: a check cannot be told apart
    assert headings == [f"Question {n}" for n in range(1, 8)]
    assert all(f == forms[0] for f in forms)
    assert [c.position for c in log.checks] == [2, 4] and answers == 5
    failed = sum(c.failed for c in log.checks)
    assert [c.failed for c in log.checks] == [True, False]
    row = next(r for r in study_status(study).rows if r.participant == "p01")
    assert (row.checks_shown, row.checks_failed) == (2, failed)
    assert row.to_dict()["attention"] == ("failed" if failed else "passed")
    assert main(["study", "status", str(study.path)]) == 0
    assert "attention checks: 1 of 2 failed" in capsys.readouterr().out
    summary = export_study(study, tmp_path / "answers.csv")
    people = pd.read_csv(summary.participants_table).set_index("participant")
    assert people.loc["p01", "checks_shown"] == 2 and people.loc["p01", "checks_failed"] == failed
    assert len(pd.read_csv(tmp_path / "answers.csv")) == 5  # checks are not answers
    out = tmp_path / "kept.csv"
    kept = export_study(study, out, exclude_inattentive=True)
    assert ("p01" in [p for p, _ in kept.skipped]) == bool(failed)
    left = dict(study_sessions(study.path, exclude_inattentive=True).left_out)
    assert ("failed an attention check" in left.get("p01", "")) == bool(failed)


def test_checks_need_a_scenario_that_can_show_one_and_sane_positions(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="given twice"):
        make_study(tmp_path, (3, 3))
    assert load_study(make_study(tmp_path / "b", (8, 3))[0].path).attention_checks == (3, 8)


def test_the_page_shows_the_text_the_study_says_is_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The web page's consent text (as HTML for the page) is the one
    ``consent_added.current_consent`` says is current, as the terminal app's is: one place
    decides, so a text chosen otherwise there is the page's too."""
    from markupsafe import Markup

    from tradeoff.study import consent_added
    from tradeoff.study.consent_added import current_text
    from tradeoff.study.inputs import file_sha256
    from tradeoff.web.checks import consent_text

    study, _ = make_study(tmp_path, ())
    new, german = tmp_path / "v2.md", tmp_path / "v2.de.md"
    new.write_text(NEW_TEXT)
    german.write_text(GERMAN)
    add_consent_version(study.path, new, "2")
    add_consent_version(study.path, german, "2", "de")
    study = load_study(study.path)
    for language, words in (("en", "ten years"), ("de", "zehn Jahre"), ("fr", "ten years")):
        shown, terminal = consent_text(study, language), current_text(study, language)
        assert shown is not None and terminal is not None
        assert shown[:2] == terminal[:2] and shown[0] == "2" and shown[3] == terminal[3]
        assert isinstance(shown[2], Markup) and words in shown[2] and words in terminal[2]
    first = study.consent_versions[0]
    monkeypatch.setattr(consent_added, "text_for", lambda versions, version, language: first)
    shown, terminal = consent_text(study, "de"), current_text(study, "de")
    assert shown is not None and terminal is not None and shown[:2] == terminal[:2]
    assert shown[1] == file_sha256(study.path / first.file) and "two tests" in shown[2]


async def test_a_consent_records_the_language_of_the_text_shown_not_the_page(
    tmp_path: Path, serve: Serve
) -> None:
    study, codes = make_study(tmp_path, ())
    german = tmp_path / "v2.de.md"
    german.write_text(GERMAN)
    add_consent_version(study.path, german, "2", "de")  # in German only
    base = await serve(load_study(study.path))
    p = Participant(base)
    try:
        page = await p.enter(codes["p01"])
        assert "zehn Jahre" in page.text  # the version's only text, on an English page
        await p.submit(page, "consent", choice="agree")
    finally:
        await p.close()
    log = read_session(only(study, "p01"))
    assert [(c.version, c.language) for c in log.consents] == [("2", "de")]
    assert session_language(log) == "en"  # the questions were shown in English


async def test_back_on_another_browser_a_session_goes_on_in_its_language(
    tmp_path: Path, serve: Serve
) -> None:
    """Someone who began in German and comes back with their code in a browser set to
    English goes on in German (the questions' language stays the session's), and the
    switch (`?lang=`) still chooses another, which holds."""
    study, codes = make_study(tmp_path, ())
    base = await serve(study)
    first, again, other = Participant(base, "de"), Participant(base, "en"), Participant(base)
    try:
        q1 = await first.submit(await first.enter(codes["p01"]), "consent", choice="agree")
        assert q1.h1 == "Frage 1"
        await first.submit(q1, "answer", choice="left")
        back = await again.enter(codes["p01"])
        assert back.path.endswith("/question") and back.h1 == "Frage 2", back.h1
        await again.submit(back, "answer", choice="right")
        assert (await other.enter(codes["p01"])).h1 == "Frage 3"  # the session's, again…
        chosen = await other.get("?lang=en")
        assert chosen.h1 == "Question 3", chosen.h1  # …but the switch chooses another
        assert (await other.get("question")).h1 == "Question 3"  # and it holds
    finally:
        for p in (first, again, other):
            await p.close()
    log = read_session(only(study, "p01"))
    answers = [e for e in log.events if e.type == "answer"]
    assert [a.language for a in answers] == ["de", "de"]


async def test_a_new_consent_text_is_asked_for_before_the_next_question(
    tmp_path: Path, serve: Serve
) -> None:
    study, codes = make_study(tmp_path, ())
    base = await serve(study)
    p, q = Participant(base), Participant(base, language="de")
    try:
        q1 = await p.submit(await p.enter(codes["p01"]), "consent", choice="agree")
        await p.submit(q1, "answer", choice="left")
        r1 = await q.submit(await q.enter(codes["p02"]), "consent", choice="agree")
        new = tmp_path / "v2.md"
        new.write_text(NEW_TEXT)
        german = tmp_path / "v2.de.md"
        german.write_text(GERMAN)
        add_consent_version(study.path, new, "2")
        add_consent_version(study.path, german, "2", "de")
        with pytest.raises(InputError, match="never replaced"):
            add_consent_version(study.path, german, "2", "de")
        page = await p.get("question")
        assert page.path.endswith("/consent") and "ten years" in page.text
        assert "has changed since you agreed" in page.text
        answers = await p.post(
            "answer", {"csrf": page.field("csrf"), "choice": "left", "answered": "1"}
        )
        assert answers.path.endswith("/consent")  # no answer before consent
        page = await p.submit(page, "consent", choice="agree")
        assert page.path.endswith("/question") and page.h1 == "Question 2"
        german_page = await q.get("question")
        assert german_page.path.endswith("/consent") and "zehn Jahre" in german_page.text
        declined = await q.submit(german_page, "consent", choice="decline")
        assert declined.path.endswith("/withdraw")
        del r1
    finally:
        await p.close()
        await q.close()
    log = read_session(only(study, "p01"))
    assert [(c.version, c.language) for c in log.consents] == [("1", "en"), ("2", "en")]
    assert sum(e.type == "answer" for e in log.events) == 1
    study = load_study(study.path)
    assert [(v.version, v.language) for v in study.consent_versions] == [
        ("1", None),
        ("2", None),
        ("2", "de"),
    ]
    assert (study.path / "consent.md").read_text().startswith("# About this study\n")
    summary = export_study(study, tmp_path / "answers.csv")
    people = pd.read_csv(summary.participants_table).set_index("participant")
    assert people.loc["p01", "consents"].startswith("1 (en, ")
    assert "; 2 (en, " in people.loc["p01", "consents"]
    assert people.loc["p02", "consents"].count("(") == 1  # declined the new one
