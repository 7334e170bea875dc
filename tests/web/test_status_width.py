"""``study status`` at an 80-column terminal: its summary above the table (the counts, the
pilots, the panel's entries, the arms) and its problems below it were single lines of up
to 140 characters, which the terminal broke wherever its width ended, inside a word. On a
terminal they are now broken between words, no word lost; the table's rows stay whole, a
row a participant; written to a file or a pipe nothing is broken. The study is one a
coordinator runs: arms, a panel's open enrolment with quotas, consent declined by code
and by link, a withdrawal, a pilot, a damaged line in ``entries.jsonl``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.cli.study_status import status_words
from tradeoff.study.arm_specs import ArmSpec
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.keys import new_key
from tradeoff.study.panel import Ending, Panel
from tradeoff.study.status import study_status
from tradeoff.study.withdrawals import withdraw

from ..cli.test_terminal_lines import terminal, written
from ..conftest import small_scenario_file
from ..webclient import Participant
from .conftest import Serve
from .test_web import CONSENT

pytestmark = pytest.mark.e2e


def female(panel_id: str) -> str:
    return f"panel?PROLIFIC_PID={panel_id}&STUDY_ID=st1&sex=female"


async def coordinators_study(tmp_path: Path, serve: Serve) -> Study:
    """Four access codes and a panel's open enrolment (quotas of sex), two arms, consent:
    p01 answers, p02 declines, p03 consents then withdraws, p04 never comes; one panel
    entrant consents, one declines; a pilot visits; ``entries.jsonl`` gets a damaged line."""
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 4"})
    consent = tmp_path / "consent.md"
    consent.write_text(CONSENT)
    panel = Panel(
        "PROLIFIC_PID",
        ("STUDY_ID", "sex"),
        b"0123456789abcdef",
        cap=100,
        quota_field="sex",
        quotas={"female": 50, "male": 50},
        declined=Ending(code="C2DECL"),
    )
    study, codes = create_study(
        scenario,
        ["p01", "p02", "p03", "p04"],
        tmp_path / "triage-study-with-a-long-folder-name",
        consent=consent,
        panel=panel,
        arms=[ArmSpec("joint", None, "joint"), ArmSpec("bisection", None, "bisection")],
    )
    pilot_key = new_key(study.path, "pilot")
    base = await serve(study)
    people = [Participant(base) for _ in range(6)]
    try:
        a, b, c, d, e, pilot = people
        q1 = await a.submit(await a.enter(codes["p01"]), "consent", choice="agree")
        await a.submit(q1, "answer", choice="left")
        await b.submit(await b.enter(codes["p02"]), "consent", choice="decline")
        await c.submit(await c.enter(codes["p03"]), "consent", choice="agree")
        await d.submit(await d.get(female("AAA111")), "consent", choice="agree")
        await e.submit(await e.get(female("BBB222")), "consent", choice="decline")
        await pilot.submit(await pilot.get(f"pilot?key={pilot_key}"), "consent", choice="agree")
    finally:
        for p in people:
            await p.close()
    withdraw(study, "p03")
    with (study.path / "entries.jsonl").open("a") as f:
        f.write("a line cut short by a cra\n")
    return load_study(study.path)


async def test_status_reads_at_80_columns_the_table_kept_whole(
    tmp_path: Path,
    serve: Serve,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    study = await coordinators_study(tmp_path, serve)
    monkeypatch.chdir(tmp_path)  # the study named as a coordinator names it, from beside it
    folder = study.path.name
    data = study_status(load_study(Path(folder))).to_dict()
    assert data["declined"] == 2 and data["withdrawn"] == 1 and data["problems"]
    words = status_words(data)
    assert max(len(line) for line in words.summary + words.problems) > 80  # to be broken

    assert main(["study", "status", folder]) == 0
    piped = capsys.readouterr().out
    assert piped.rstrip("\n").split("\n") == words.lines  # a pipe: nothing broken
    assert main(["study", "status", folder, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(data))

    with terminal(80) as (stream, master):
        monkeypatch.setattr("sys.stdout", stream)
        assert main(["study", "status", folder]) == 0
        stream.flush()
        shown = written(master).rstrip("\n").split("\n")
    top = shown.index(words.table[0])
    summary, rest = shown[:top], shown[top:]
    assert all(len(line) <= 80 for line in summary), summary
    assert " ".join(summary).split() == " ".join(words.summary).split()  # no word lost
    assert summary[0].startswith(f"{folder}: 6 participants")
    assert rest[: len(words.table)] == words.table  # a row a participant, whole
    problems = rest[len(words.table) :]
    assert all(len(line) <= 80 for line in problems), problems
    assert " ".join(problems).split() == " ".join(words.problems).split()
    assert any(line.startswith("arms: ") for line in summary)
    assert any(line.startswith("panel: ") for line in summary)
    assert any("pilot session" in line for line in summary)
