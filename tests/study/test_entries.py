"""Who came in by link (``entries.jsonl``) and the panel's rules: the cap and quotas hold
when many processes let people in at once (checked against a count of the file's lines);
one panel id is let in once however many processes race; a server's incremental view of
the file equals a whole read; a flood of made-up ids writes each once and nothing past the
bound; a line that is not an event, or a FIFO in the file's place, is skipped, never an
exception or a hang; hostile panel ids and parameters are refused, every derived
participant id is a safe folder name; redirect URLs and allow-lists are checked with the
file, line and fix; ``study create --panel`` and ``study remove-pilots`` from the command
line."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.record.records import valid_participant
from tradeoff.study import entries
from tradeoff.study.entries import (
    EntryLog,
    admit,
    append_entry,
    entries_path,
    new_pilot,
    read_entries,
    record_decline,
    study_lock,
)
from tradeoff.study.folder import create_study, load_study
from tradeoff.study.panel import (
    PANEL_ID,
    Ending,
    Panel,
    check_panel,
    check_url,
    read_panel_ids,
)

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core

SALT = b"0123456789abcdef"


def open_panel(cap: int | None = None, **more: object) -> Panel:
    return Panel("PID", ("sex",), SALT, cap=cap, **more)  # type: ignore[arg-type]


def _admit_many(
    folder: str,
    cap: int,
    ids: list[str],
    out: multiprocessing.Queue,  # type: ignore[type-arg]
    start: Any,
) -> None:
    log = EntryLog(Path(folder))
    panel = open_panel(cap)
    start.wait()
    for pid in ids:
        out.put((pid, admit(panel, log, pid, {}).participant is not None))


def test_quotas_and_declines_count_places(tmp_path: Path) -> None:
    panel = open_panel(3, quota_field="sex", quotas={"f": 2, "m": 1})
    log = EntryLog(tmp_path)
    assert admit(panel, log, "f1", {"sex": "f"}).participant is not None
    assert admit(panel, log, "f2", {"sex": "f"}).participant is not None
    assert admit(panel, log, "f3", {"sex": "f"}).reason == "quota full"
    assert admit(panel, log, "x1", {"sex": "x"}).reason == "quota group unknown"
    assert admit(panel, log, "n1", {}).reason == "quota group unknown"
    first = admit(panel, log, "f1", {"sex": "f"})
    assert first.returning and first.participant == panel.participant_of("f1")
    record_decline(log, panel.participant_of("f2"))
    record_decline(log, panel.participant_of("f2"))  # written once
    assert admit(panel, log, "f3", {"sex": "f"}).participant is not None
    state = read_entries(tmp_path)
    assert state.declines == 1
    assert state.summary(panel)["quotas"] == {
        "f": {"filled": 2, "size": 2},
        "m": {"filled": 0, "size": 1},
    }


def test_an_allow_list_lets_in_only_its_ids(tmp_path: Path) -> None:
    panel = Panel("PID", (), SALT, allow_list=True)
    allowed = frozenset({panel.participant_of("ok1")})
    log = EntryLog(tmp_path)
    assert admit(panel, log, "ok1", {}, allowed).participant in allowed
    assert admit(panel, log, "no1", {}, allowed).reason == "not on the list"


def test_the_incremental_view_equals_a_whole_read(tmp_path: Path) -> None:
    """A server's view, refreshed between appends (some lines longer than one read),
    says what a fresh whole read says."""
    log = EntryLog(tmp_path)
    panel = open_panel(None)
    for i in range(60):
        params = {"sex": "f" * (200 if i % 7 == 0 else 1)}
        admit(panel, log, f"id{i}", params)
        if i % 5 == 0:
            record_decline(log, panel.participant_of(f"id{i}"))
        if i % 11 == 0:
            new_pilot(log, f"pilot-{i:012x}")
    fresh = read_entries(tmp_path)
    seen = log.refresh()
    assert seen.summary(panel) == fresh.summary(panel)
    assert {k: (v.declined, v.pilot) for k, v in seen.people.items()} == {
        k: (v.declined, v.pilot) for k, v in fresh.people.items()
    }


def test_a_flood_of_made_up_ids_is_written_once_each_and_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = Panel("PID", (), SALT, allow_list=True)
    log = EntryLog(tmp_path)
    for _ in range(3):
        admit(panel, log, "same-bad", {})
    assert entries_path(tmp_path).read_text().count("same-bad") == 1
    monkeypatch.setattr(entries, "SCREENED_STOP", 2000)
    for i in range(200):
        assert admit(panel, log, f"flood{i}", {}).reason == "not on the list"
    lines = entries_path(tmp_path).read_text().splitlines()
    assert sum(map(len, lines[:-1])) < 2000 <= sum(map(len, lines)) + len(lines)
    # what the file holds is what is counted: distinct ids, up to the bound
    assert log.refresh().screened["not on the list"] == len(lines) < 201
    assert read_entries(tmp_path).screened["not on the list"] == len(lines)


def test_lines_that_are_not_events_are_skipped_and_a_fifo_is_never_opened(
    tmp_path: Path,
) -> None:
    path = entries_path(tmp_path)
    path.write_bytes(b'[1]\n{"event": "enrolled"}\nnot json\n\xff\xfe\n' + b"{" * 5000 + b"\n")
    with study_lock(tmp_path):
        append_entry(tmp_path, {"event": "pilot", "participant": "pilot-000000000001"})
    state = read_entries(tmp_path)
    assert list(state.people) == ["pilot-000000000001"] and len(state.bad_lines) == 5
    path.unlink()
    os.mkfifo(path)
    assert read_entries(tmp_path).people == {}  # returns at once
    assert EntryLog(tmp_path).refresh().people == {}


@given(st.text(max_size=100))
@settings(max_examples=300, deadline=None)
def test_hostile_panel_ids_are_refused_and_every_participant_id_is_a_safe_name(
    text: str,
) -> None:
    panel = open_panel(None)
    read = panel.read_link({"PID": text, "sex": text})
    ok = PANEL_ID.fullmatch(text) is not None and text.isprintable()
    assert isinstance(read, tuple) == ok
    if ok:
        assert read == (text, {"sex": text})
    pid = panel.participant_of(text)
    assert valid_participant(pid) and re.fullmatch(r"panel-[0-9a-f]{20}", pid)


def test_redirect_urls_and_allow_lists_are_checked() -> None:
    for bad in (
        "javascript:alert(1)",
        "ftp://x.example/",
        "https:///nohost",
        "//x.example/a",
        "https://x.example/{",
        "https://x.example/{a.b}",
        "https://x.example/a b",
    ):
        with pytest.raises(InputError):
            check_url(bad, "--complete-url")
    with pytest.raises(InputError, match="does not carry"):
        check_panel(Panel("PID", (), SALT, cap=1, complete=Ending("https://x.example/?p={OTHER}")))
    with pytest.raises(InputError, match="kept parameter"):
        check_panel(Panel("PID", (), SALT, cap=2, quota_field="sex", quotas={"f": 1}))
    with pytest.raises(InputError, match="needs a cap"):
        check_panel(Panel("PID", (), SALT))
    with pytest.raises(InputError, match="line 3"):
        read_panel_ids("ok1\n# note\nbad id\n", "ids.txt")
    with pytest.raises(InputError, match=r"line 2.*twice"):
        read_panel_ids("ok1\nok1\n", "ids.txt")
    panel = Panel("PID", ("S",), SALT, cap=5, complete=Ending("https://x.example/{PID}", "C1"))
    assert Panel.from_json(json.loads(json.dumps(panel.to_json()))) == panel


def test_a_changed_allow_list_is_refused(tmp_path: Path) -> None:
    panel = Panel("PID", (), SALT, allow_list=True)
    study, _ = create_study(
        small_scenario_file(tmp_path), [], tmp_path / "s", panel=panel, panel_ids=["a1", "b2"]
    )
    assert set(load_study(study.path).panel_ids.values()) == {"a1", "b2"}
    (study.path / "panel-ids.txt").write_text("a1\nb2\nintruder\n")
    with pytest.raises(InputError, match="has changed"):
        load_study(study.path)


def test_the_command_line_makes_a_panel_study_and_moves_pilots_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = small_scenario_file(tmp_path)
    ids = tmp_path / "ids.txt"
    ids.write_text("5f8a2c1e9b\nnot ok!\n")
    base = ["study", "create", str(scenario), "--panel", "prolific"]
    assert main([*base, "--out", str(tmp_path / "a"), "--panel-ids", str(ids)]) == 2
    assert "line 2" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "b"), "--cap", "5", "--quota", "f=1"]) == 2
    assert "--quota-field" in capsys.readouterr().err
    bad_url = ["--complete-url", "javascript:alert(1)"]
    assert main([*base, "--out", str(tmp_path / "c"), *bad_url]) == 2
    assert "--complete-url" in capsys.readouterr().err
    ids.write_text("5f8a2c1e9b\n60aa01\n")
    done = "https://app.prolific.com/submissions/complete?cc=C1&p={PROLIFIC_PID}"
    made = [*base, "--out", str(tmp_path / "d"), "--panel-ids", str(ids), "--complete-url", done]
    assert main([*made, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["panel_ids"] == 2 and "PROLIFIC_PID={{%PROLIFIC_PID%}}" in out["panel_link"]
    assert len(out["coordinator_key"]) >= 20
    study = load_study(tmp_path / "d")
    assert len(study.participants) == 2 and study.panel is not None
    assert main(["study", "status", str(study.path), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["participants"] == 2 and status["panel"]["entered"] == 0
    # pilots: listed without --yes, moved with it, nothing deleted
    log = EntryLog(study.path)
    new_pilot(log, "pilot-00000000000a")
    (study.sessions_dir / "pilot-00000000000a").mkdir()
    (study.sessions_dir / "pilot-00000000000a" / "x.jsonl").write_text("{}\n")
    assert main(["study", "remove-pilots", str(study.path)]) == 0
    assert "--yes" in capsys.readouterr().out
    assert (study.sessions_dir / "pilot-00000000000a").is_dir()
    assert main(["study", "remove-pilots", str(study.path), "--yes", "--json"]) == 0
    moved = json.loads(capsys.readouterr().out)
    assert moved["participants"] == ["pilot-00000000000a"]
    assert (Path(moved["moved_to"]) / "pilot-00000000000a" / "x.jsonl").is_file()
    assert load_study(study.path).pilots == frozenset()
    # a panel id names its participant for study withdraw
    assert main(["study", "withdraw", str(study.path), "60aa01", "--json"]) == 0
    withdrawn = json.loads(capsys.readouterr().out)
    assert withdrawn["participant"] == study.panel.participant_of("60aa01")
    assert main(["study", "pilot-link", str(study.path), "--json"]) == 0
    assert "/pilot?key=" in json.loads(capsys.readouterr().out)["pilot_link"]
