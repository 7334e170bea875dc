"""Endings stay on the coordinator's host: a link parameter may fill only the path and
the query of an ending's address. ``study create`` refuses one anywhere else (the scheme,
the host, the port, the user or password, the fragment) with an error naming the option,
the part and the fix; and whatever a participant puts in the link, the redirect of an
accepted address goes to the scheme, host, port and user the coordinator wrote."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tradeoff.cli import main
from tradeoff.errors import InputError
from tradeoff.study.panel import Ending, Panel, check_url

from ..conftest import small_scenario_file

pytestmark = pytest.mark.core

SALT = b"0123456789abcdef"
#: An ending's address with every part, a parameter put in at each place by the tests.
FULL = "https://user:pw@panel.example:8443/done/x?cc=C1&p=v#top"


def where(url: str) -> tuple[str, str | None, str | None, str | None, int | None]:
    """What a redirect's target says about where it goes (never its path or query)."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    return parts.scheme, parts.hostname, parts.username, parts.password, port


def test_the_issues_case_is_refused_at_study_create(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = small_scenario_file(tmp_path)
    base = ["study", "create", str(scenario), "--panel", "prolific", "--cap", "30"]
    bad = ["--screened-url", "https://{STUDY_ID}/x"]
    assert main([*base, "--out", str(tmp_path / "a"), *bad]) == 2
    err = capsys.readouterr().err
    assert "--screened-url" in err and "host" in err and "path or the query" in err
    assert "Traceback" not in err and not (tmp_path / "a").exists()
    ok = ["--screened-url", "https://app.prolific.com/x?s={STUDY_ID}"]
    assert main([*base, "--out", str(tmp_path / "b"), *ok, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["study"]


@pytest.mark.parametrize(
    ("url", "part"),
    [
        ("https://{P}/x", "host"),
        ("https://a.{P}.example/x", "host"),
        ("https://panel.example{P}/x", "host"),
        ("https://panel.example:{P}/x", "port"),
        ("https://{P}@panel.example/x", "user or password"),
        ("https://u:{P}@panel.example/x", "user or password"),
        ("https://panel.example/x#{P}", "fragment"),
    ],
)
def test_a_parameter_outside_the_path_and_query_is_refused(url: str, part: str) -> None:
    with pytest.raises(InputError) as caught:
        check_url(url, "--complete-url")
    text = str(caught.value)
    assert "--complete-url" in text and f"fill its {part}" in text
    # and the same address in a study.json is refused when the study is read
    with pytest.raises(InputError):
        Panel.from_json({**Panel("P", (), SALT, cap=1).to_json(), "complete": {"url": url}})


def test_a_backslash_is_refused() -> None:
    """Browsers read ``\\`` as ``/`` in an http address, where Python's split does not: a
    host that one reads and the other does not is refused outright."""
    with pytest.raises(InputError, match="backslash"):
        check_url("https://panel.example\\{P}.evil.example/", "--complete-url")


@given(st.integers(0, len(FULL)), st.text(max_size=40), st.text(max_size=10))
@settings(max_examples=400, deadline=None)
def test_no_parameter_value_changes_where_an_accepted_ending_sends_people(
    at: int, value: str, other: str
) -> None:
    """``{P}`` put in at any place of an address with every part: either ``check_url``
    refuses it, or no value of ``P`` (any text, quoted or not) changes the scheme, host,
    port, user or password of the redirect, by Python's reading of the address and by a
    browser's (a browser's host ends at a ``\\`` too; none is left in an accepted
    address or a value put in)."""
    url = FULL[:at] + "{P}" + FULL[at:]
    try:
        check_url(url, "--complete-url")
    except InputError:
        return
    ending = Ending(url)
    fixed = where(ending.target({}) or "")
    assert fixed == where(FULL)
    for given_value in (value, other, "evil.example", "@evil.example:1/", "//evil.example"):
        target = ending.target({"P": given_value}) or ""
        assert where(target) == fixed, (url, given_value, target)
        netloc_end = min(
            (i for i in (target.find(c, len("https://")) for c in "/?#\\") if i >= 0),
            default=len(target),
        )
        assert target[len("https://") : netloc_end] == "user:pw@panel.example:8443"
