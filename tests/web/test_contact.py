"""How participants reach the coordinator: a study's contact (``study create --contact``,
``study contact``) is on every participant's page, the pages that have no other footer
too, escaped, in English and German, and a contact changed while the study is served is
shown from the next page; a study without one never tells a participant to contact a
coordinator it gives no way to reach."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.study.consent_added import set_contact
from tradeoff.study.contact import CONTACT_LIMIT, check_contact
from tradeoff.study.folder import STUDY_FILE, Study, create_study, load_study
from tradeoff.study.keys import new_key

from ..conftest import small_scenario_file
from ..webclient import Participant
from .test_web import answer_all, make_study
from .test_web_panel import link, panel_study

pytestmark = pytest.mark.e2e

Serve = Callable[[Study], object]
CONTACT = "Dr Ada <Lovelace> & team, ada@example.org"
ESCAPED = "Dr Ada &lt;Lovelace&gt; &amp; team, ada@example.org"


async def test_without_a_contact_no_page_sends_anyone_to_a_coordinator(
    tmp_path: Path, serve: Serve
) -> None:
    study, codes = make_study(tmp_path)
    assert load_study(study.path).contact is None
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        consent = await p.enter(codes["p01"])
        q1 = await p.submit(consent, "consent", choice="agree")
        assert 'class="contact"' not in q1.html
        done = await p.submit(await answer_all(p, q1), "finish")
        assert done.h1 == "Thank you"
        assert "contact its coordinator" not in done.text
        assert "ask the person who invited you" in done.text
        assert "<footer>" not in done.html
    finally:
        await p.close()


async def test_a_contact_given_while_served_is_on_every_page_from_the_next(
    tmp_path: Path, serve: Serve
) -> None:
    study, codes = make_study(tmp_path)
    base = await serve(study)  # type: ignore[misc]
    p, de = Participant(base), Participant(base, language="de")
    try:
        consent = await p.enter(codes["p01"])
        q1 = await p.submit(consent, "consent", choice="agree")
        assert "Questions about the study?" not in q1.html
        set_contact(study.path, CONTACT)
        q1 = await p.get("question")
        footer = q1.html[q1.html.index("<footer>") :]
        assert f"Contact its coordinator: {ESCAPED}" in footer
        assert "<Lovelace>" not in q1.html  # escaped, never markup
        assert "Every answer is saved" in footer  # beside the page's own footer
        done = await p.submit(await answer_all(p, q1), "finish")
        assert "contact its coordinator" in done.text and ESCAPED in done.html
        sure = await p.get("withdraw")
        assert sure.h1 == "Withdraw from the study?" and ESCAPED in sure.html
        gone = await p.submit(sure, "withdraw", choice="withdraw")
        assert gone.h1 == "You have withdrawn from this study" and ESCAPED in gone.html
        front = await de.get("")
        assert f"Wenden Sie sich an die Studienkoordination: {ESCAPED}" in front.html
        set_contact(study.path, "Team B")
        again = await de.get("")
        assert "Studienkoordination: Team B" in again.html and ESCAPED not in again.html
    finally:
        await p.close()
        await de.close()


async def test_a_panel_participants_endings_name_the_contact(tmp_path: Path, serve: Serve) -> None:
    study = panel_study(tmp_path, ids=("AAA111",))
    set_contact(study.path, CONTACT)
    base = await serve(study)  # type: ignore[misc]
    p = Participant(base)
    try:
        consent = await p.get(link("AAA111"))
        assert ESCAPED in consent.html
        declined = await p.submit(consent, "consent", choice="decline")
        assert "DECL1" in declined.text and ESCAPED in declined.html
        other = Participant(base)
        screened = await other.get(link("ZZZ999"))
        await other.close()
        assert "SCRN1" in screened.text and ESCAPED in screened.html
    finally:
        await p.close()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("ada@example.org\nclick here", "control character"),
        ("ada\u202eevil", "control character"),
        ("zero\u200bwidth", "control character"),
        ("x" * (CONTACT_LIMIT + 1), f"is {CONTACT_LIMIT + 1} characters long"),
        (42, "is not text"),
    ],
)
def test_a_contact_is_one_line_of_plain_text(given: object, said: str) -> None:
    with pytest.raises(InputError) as caught:
        check_contact(given)
    assert said in caught.value.message() and "Fix:" in caught.value.message()


def test_an_edited_contact_in_study_json_is_refused_naming_the_field(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path)
    study, _ = create_study(scenario, ["p01"], tmp_path / "study", contact=" Team A ")
    assert load_study(study.path).contact == "Team A"  # spaces at its ends dropped
    path = study.path / STUDY_FILE
    data = json.loads(path.read_text())
    assert data["contact"] == "Team A"
    data["contact"] = "Team A\x1b]0;owned\x07"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as caught:
        load_study(study.path)
    message = caught.value.message()
    assert "study.json: contact: holds a line break or another control character" in message
    assert "tradeoff study contact DIR TEXT" in message
    # the fix it names mends it
    assert set_contact(study.path, "Team B") == ("Team B", None)
    assert load_study(study.path).contact == "Team B"
    assert set_contact(study.path, "Team C") == ("Team C", "Team B")


def test_the_commands_say_whom_participants_are_sent_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = small_scenario_file(tmp_path)
    folder = tmp_path / "study"
    made = ["study", "create", str(scenario), "--participants", "1", "--study", str(folder)]
    assert main(made) == 0
    out = capsys.readouterr().out
    assert "No contact: the pages send participants with questions to whoever invited" in out
    assert f"tradeoff study contact {folder} TEXT" in out
    assert main(["study", "contact", str(folder), "bad\nline"]) == 2
    err = capsys.readouterr().err
    assert "TEXT: holds a line break" in err and "Traceback" not in err
    assert main(["study", "contact", str(folder), "Team A, +44 20 7946 0000"]) == 0
    assert "names its coordinator's contact: Team A, +44 20 7946 0000." in capsys.readouterr().out
    assert main(["study", "contact", str(folder), "Team B", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["contact"] == "Team B" and said["before"] == "Team A, +44 20 7946 0000"
    other = tmp_path / "other"
    args = ["study", "create", str(scenario), "--participants", "1", "--study", str(other)]
    assert main([*args, "--contact", "Team C", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["contact"] == "Team C"
    assert main([*args[:-1], str(tmp_path / "third"), "--contact", "\t"]) == 2
    assert not (tmp_path / "third").exists()  # refused before anything is made


async def test_the_coordinator_sees_the_contact_the_pages_show(
    tmp_path: Path, serve: Serve, capsys: pytest.CaptureFixture[str]
) -> None:
    study, _ = make_study(tmp_path)
    key = new_key(study.path, "coordinator")
    assert main(["study", "status", str(study.path)]) == 0
    assert "no contact on the participants' pages (tradeoff study contact" in (
        capsys.readouterr().out
    )
    base = await serve(study)  # type: ignore[misc]
    coordinator = Participant(base)
    try:
        form = await coordinator.get("coordinator")
        page = await coordinator.submit(form, "coordinator", key=key)
        assert "Participants' pages name no contact" in page.text
        set_contact(study.path, CONTACT)
        page = await coordinator.get("coordinator")  # at once, though its counts are kept
        assert f"Participants' pages name your contact: {ESCAPED}" in page.html
    finally:
        await coordinator.close()
    assert main(["study", "status", str(study.path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["contact"] == CONTACT
    assert main(["study", "status", str(study.path)]) == 0
    assert f"participants' pages name the coordinator's contact: {CONTACT}" in (
        capsys.readouterr().out
    )
