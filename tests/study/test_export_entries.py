"""How people came in, in ``study status`` and the export: a panel entrant's quota group and
the kept parameters of their link in the participants table (``quota_group``,
``link_<NAME>``, text made safe for a spreadsheet) and its codebook; ``entry_via`` of a
panel entrant who has not consented; and a participant with an access code who declined
consent, "declined consent" in status (counted), the export and the report's reasons, their
line gone with them on erasure."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tradeoff.ask.scenario import load_scenario
from tradeoff.cli.study_status import format_status
from tradeoff.record.records import EntryRecord, now
from tradeoff.study.declines import declined_consent, record_code_decline
from tradeoff.study.entries import EntryLog, admit, read_entries, take_place
from tradeoff.study.erase import erase
from tradeoff.study.export import export_study
from tradeoff.study.folder import Study, create_study, load_study
from tradeoff.study.opening import start_session
from tradeoff.study.panel import Panel
from tradeoff.study.status import study_status

from ..conftest import small_scenario_file

pytestmark = pytest.mark.e2e

KEEP = ("STUDY_ID", "SESSION_ID", "sex")


def made(tmp_path: Path) -> tuple[Study, dict[str, str]]:
    """p01 (declined with their code), p02 (not started); panel A (female, a session with
    one answer, a STUDY_ID a spreadsheet would run), panel B (male, let in, no consent)."""
    panel = Panel(
        "PROLIFIC_PID",
        KEEP,
        b"0123456789abcdef",
        cap=10,
        quota_field="sex",
        quotas={"female": 5, "male": 5},
    )
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    study, _ = create_study(scenario, ["p01", "p02"], tmp_path / "study", panel=panel)
    log = EntryLog(study.path)
    a = admit(panel, log, "AAA111", {"STUDY_ID": "=1+1", "SESSION_ID": "se1", "sex": "female"})
    b = admit(panel, log, "BBB222", {"STUDY_ID": "st1", "SESSION_ID": "se2", "sex": "male"})
    assert a.participant is not None and b.participant is not None
    assert take_place(panel, log, a.participant) is None
    entered = log.refresh().people[a.participant]
    entry = EntryRecord(
        type="entry", via="panel", panel_id="AAA111", params=entered.params, at=now()
    )
    loaded = load_scenario(study.scenario_path)
    rec = start_session(
        loaded, a.participant, study.sessions_dir, cache_dir=study.cache_dir, entry=entry
    )
    try:
        rec.answer("left", response_ms=900.0)
    finally:
        rec.close()
    record_code_decline(log, "p01")
    record_code_decline(log, "p01")  # a second decline writes nothing
    return load_study(study.path), {"A": a.participant, "B": b.participant}


def test_the_export_holds_quota_groups_link_parameters_and_how_each_came_in(
    tmp_path: Path,
) -> None:
    study, who = made(tmp_path)
    lines = (study.path / "entries.jsonl").read_text().splitlines()
    assert sum('"via": "code"' in line for line in lines) == 1
    assert declined_consent(read_entries(study.path)) == {"p01"}

    summary = export_study(study, tmp_path / "answers.csv")
    assert summary.participants_table is not None
    people = pd.read_csv(summary.participants_table, dtype=str, keep_default_na=False)
    columns = list(people.columns)
    at = columns.index("entry_via")
    assert columns[at + 1 : at + 5] == [
        "quota_group",
        "link_STUDY_ID",
        "link_SESSION_ID",
        "link_sex",
    ]
    rows = people.set_index("participant")
    a, b = rows.loc[who["A"]], rows.loc[who["B"]]
    assert (a["state"], a["entry_via"], a["quota_group"]) == ("unfinished", "panel", "female")
    assert (a["link_STUDY_ID"], a["link_SESSION_ID"], a["link_sex"]) == ("'=1+1", "se1", "female")
    assert (b["state"], b["entry_via"], b["quota_group"]) == ("not started", "panel", "male")
    assert (b["panel_id"], b["link_STUDY_ID"], b["link_SESSION_ID"]) == ("BBB222", "st1", "se2")
    p01, p02 = rows.loc["p01"], rows.loc["p02"]
    assert (p01["state"], p01["entry_via"]) == ("declined consent", "code")
    assert (p02["state"], p02["entry_via"]) == ("not started", "")
    for code_row in (p01, p02):
        assert [code_row[c] for c in columns[at + 1 : at + 5]] == ["", "", "", ""]

    book = pd.read_csv(summary.codebook, dtype=str, keep_default_na=False)
    meaning = dict(zip(book["column"], book["meaning"], strict=True))
    assert "sex parameter ('female', 'male')" in meaning["quota_group"]
    assert "STUDY_ID parameter of the panel's link" in meaning["link_STUDY_ID"]
    assert "with their access code" in meaning["state"]
    assert summary.codebook_md is not None
    assert "| `link_SESSION_ID` | text |" in summary.codebook_md.read_text()
    assert summary.datapackage is not None
    package = json.loads(summary.datapackage.read_text())
    fields = [f["name"] for f in package["resources"][1]["schema"]["fields"]]
    assert fields == columns


def test_a_code_decline_is_declined_in_status_and_the_report_and_goes_on_erasure(
    tmp_path: Path,
) -> None:
    study, who = made(tmp_path)
    status = study_status(study)
    states = {r.participant: r.state for r in status.rows}
    assert states["p01"] == "declined consent" and states["p02"] == "not started"
    assert states[who["B"]] == "not started"
    data = status.to_dict()
    assert data["declined"] == 1 and data["panel"]["declined"] == 0
    assert ("p01", "declined consent") in status.missing()
    first = format_status(data).split("\n")[0]
    assert "0 withdrawn, 1 declined consent;" in first, first

    erase(study.path, "p01", requested_by="p01, by e-mail")
    assert "p01" not in (study.path / "entries.jsonl").read_text()
    after = study_status(load_study(study.path))
    assert {r.participant: r.state for r in after.rows}["p01"] == "erased"
    assert after.to_dict()["declined"] == 0


def test_a_study_without_a_panel_has_no_link_columns(tmp_path: Path) -> None:
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 3"})
    study, _ = create_study(scenario, ["p01"], tmp_path / "study")
    record_code_decline(EntryLog(study.path), "p01")
    summary = export_study(load_study(study.path), tmp_path / "answers.csv")
    assert summary.participants_table is not None
    people = pd.read_csv(summary.participants_table, dtype=str, keep_default_na=False)
    assert not [c for c in people.columns if c == "quota_group" or c.startswith("link_")]
    assert (people.loc[0, "state"], people.loc[0, "entry_via"]) == ("declined consent", "code")
