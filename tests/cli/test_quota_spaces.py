"""``study create --quota``: spaces around ``=`` and the value are what people type
("female = 50") and are read; what is really wrong is refused showing the accepted form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.study.panel import parse_quotas

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core


def test_spaces_around_the_equals_sign_are_read() -> None:
    assert parse_quotas(["female = 50", " male=  40 ", "other =0"]) == {
        "female": 50,
        "male": 40,
        "other": 0,
    }


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("female", "'female' is not VALUE=N"),
        ("= 5", "names no value before ="),
        ("female = fifty", "'fifty' is not a count of people"),
        ("female=-1", "'-1' is not a count of people"),
    ],
)
def test_a_wrong_quota_shows_the_accepted_form(given: str, said: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_quotas([given])
    message = caught.value.message()
    assert said in message
    assert "VALUE=N, e.g. --quota female=50" in message


def test_study_create_takes_a_quota_with_spaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "s"
    argv = ["study", "create", str(small_scenario_file(tmp_path)), "--study", str(folder)]
    argv += ["--panel", "prolific", "--panel-keep-param", "sex", "--cap", "10"]
    argv += ["--quota-field", "sex", "--quota", "female = 5", "--quota", "male =5"]
    assert main(argv) == 0, capsys.readouterr().err
    panel = json.loads((folder / "study.json").read_text(encoding="utf-8"))["panel"]
    assert panel["quotas"] == {"female": 5, "male": 5}
