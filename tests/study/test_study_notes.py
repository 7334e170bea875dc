"""What was decided for the study's loose ends: an access-code participant is never named
as only a link names people (``pilot-…``, ``panel-…``); a ``study.json`` language the page
has no words for is refused where the study is served, not shown in English silently; one
address's new panel entries are counted for the whole study, whatever the server process
that lets them in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.study.entries import EntryLog, admit, read_entries
from tradeoff.study.folder import STUDY_FILE, create_study
from tradeoff.study.panel import Panel
from tradeoff.web.flow import make_web_app

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core

SALT = b"0123456789abcdef"


@pytest.mark.parametrize("name", ["pilot-000000000000", "panel-0123456789abcdef0123", "Pilot-x"])
def test_a_code_participant_is_not_named_as_a_link_names_people(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    scenario = small_scenario_file(tmp_path)
    ids = tmp_path / "ids.txt"
    ids.write_text(f"p01\n{name}\n")
    args = ["study", "create", str(scenario), "--participants", str(ids)]
    assert main([*args, "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and str(ids) in err and "link" in err and "Traceback" not in err
    assert not (tmp_path / "s").exists()
    with pytest.raises(InputError, match="only the pilot or a panel's link"):
        create_study(scenario, ["p01", name], tmp_path / "t")


def test_a_language_the_page_cannot_speak_is_refused_where_the_study_is_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tradeoff.web import serving

    def served(*args: object, **kwargs: object) -> int:
        raise AssertionError("the study was served")

    monkeypatch.setattr(serving, "serve_study", served)
    study, _ = create_study(small_scenario_file(tmp_path), ["p01"], tmp_path / "s", language="de")
    path = study.path / STUDY_FILE
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "language": "xx"}))
    assert main(["study", "serve", str(study.path), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "language" in err and "'xx'" in err and "de" in err
    assert "Traceback" not in err
    from tradeoff.study.folder import load_study

    with pytest.raises(InputError, match="no words for"):
        make_web_app(load_study(study.path))


def test_one_address_is_bounded_across_server_processes(tmp_path: Path) -> None:
    """Two server processes' views of one study (two :class:`EntryLog`): the new entries
    one address brings are counted in the study, not in each process; another address,
    and a returning panel id, are not held back."""
    panel = Panel("PID", (), SALT, cap=100)
    first, second = EntryLog(tmp_path), EntryLog(tmp_path)
    logs = [first, second, first, second, first]
    got = [
        admit(panel, log, f"n{i}", {}, source="192.0.2.1", most_from_source=3)
        for i, log in enumerate(logs)
    ]
    too_many = "too many from one address"
    assert [a.reason for a in got] == [None, None, None, too_many, too_many]
    assert admit(panel, second, "other", {}, source="192.0.2.2", most_from_source=3).participant
    assert admit(panel, second, "n0", {}, source="192.0.2.1", most_from_source=3).returning
    assert len(read_entries(tmp_path).people) == 4
