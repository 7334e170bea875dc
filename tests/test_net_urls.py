"""A URL as the program shows it (`tradeoff.net.shown_url`, `redacted`): no password,
token or key in it is ever printed, whether in its userinfo (`user:pw@`, as RFC 3986 and
as SQLAlchemy read it) or in a query or fragment parameter (`?password=`, `&API_KEY=`,
`#access_token=`, any case); what is not a credential is shown as given. Property tests
place a secret anywhere a credential can stand in a URL and look for it in the output."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tradeoff.cli.common import error
from tradeoff.net import redacted, shown_url

pytestmark = pytest.mark.core

SECRET = "S3cr3tValue"
NAMES = ["password", "passwd", "pwd", "token", "secret", "key", "access_token", "api_key"]


@pytest.mark.parametrize("name", [*NAMES, "PASSWORD", "Api_Key", "X-Auth-Token", "pass%77ord"])
def test_a_secret_query_parameter_is_hidden_whatever_its_case(name: str) -> None:
    url = f"sqlite:///x.db?mode=ro&{name}={SECRET}&cache=shared"
    shown = shown_url(url)
    assert SECRET not in shown
    assert shown == f"sqlite:///x.db?mode=ro&{name}=***&cache=shared"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://ann:pw@db/x", "postgresql://ann:***@db/x"),
        ("postgresql://ann:p@w@db/x", "postgresql://ann:***@db/x"),
        ("postgresql://ann:p/w@db/x", "postgresql://ann:***@db/x"),
        ("mysql+pymysql://ann:p?w@db/x", "mysql+pymysql://ann:***@db/x"),
        ("https://ghp_token@host/repo", "https://***@host/repo"),
        ("https://ann:pw@host:8443/x?y=1", "https://ann:***@host:8443/x?y=1"),
        ("http://127.0.0.1:5000/x?q=a@b", "http://127.0.0.1:5000/x?q=a@b"),
        ("sqlite:///study.db", "sqlite:///study.db"),
        ("https://h/cb#access_token=t&state=1", "https://h/cb#access_token=***&state=1"),
        ("https://h/x?sig=abc&sv=2020", "https://h/x?sig=***&sv=2020"),
        ("https://h/x?design=abc", "https://h/x?design=abc"),
        ("databricks", "databricks"),
    ],
)
def test_userinfo_and_parameters(url: str, shown: str) -> None:
    assert shown_url(url) == shown
    assert shown_url(shown) == shown  # shown again: unchanged


def test_a_message_holding_urls_is_redacted() -> None:
    text = "could not open 'postgresql://u:pw@h/x?password=a' nor http://u:pw2@h?token=b."
    assert redacted(text) == (
        "could not open 'postgresql://u:***@h/x?password=***' nor http://u:***@h?token=***"
    )
    given = "sqlite:///a b.db?pwd=x y"  # a URL with spaces, as it was given
    assert redacted(f"--storage {given}: not found", given) == (
        "--storage sqlite:///a b.db?pwd=***: not found"
    )


def test_the_command_line_prints_no_credential(capsys: pytest.CaptureFixture[str]) -> None:
    error(f"x: sqlite:///x.db?password={SECRET}: no such file")
    assert SECRET not in capsys.readouterr().err


SECRETS = st.text("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789", min_size=8)
SCHEMES = st.sampled_from(["sqlite", "postgresql", "mysql+pymysql", "http", "https", "file"])
PARAMETERS = st.sampled_from(NAMES).flatmap(
    lambda n: st.sampled_from([n, n.upper(), n.title(), f"db_{n}", f"x-{n}"])
)
SAFE = st.text("abcdefghij0123456789._-", min_size=1, max_size=8)
SPECIAL = st.text("abcdef:/@?#;=", max_size=4)


@st.composite
def urls_with_a_secret(draw: st.DrawFn) -> tuple[str, str]:
    """A URL with a secret where a credential stands, and the secret."""
    secret = "Q" + draw(SECRETS) + draw(SPECIAL) + draw(SECRETS)
    scheme = draw(SCHEMES)
    host = draw(SAFE)
    path = "/" + draw(SAFE)
    before = draw(st.lists(st.tuples(SAFE, SAFE), max_size=2))
    after = draw(st.lists(st.tuples(SAFE, SAFE), max_size=2))
    query = "&".join(f"{k}={v}" for k, v in before)
    tail = "".join(f"&{k}={v}" for k, v in after)
    where = draw(st.sampled_from(["password", "user", "query", "fragment"]))
    if where in ("password", "user"):
        # a web URL's userinfo (RFC 3986) holds no '/', '?', '#' or '@' unencoded
        if scheme.startswith("http"):
            secret = "".join(c for c in secret if c not in "/?#@")
        if where == "user":  # a user name holds no ':' or '/' (RFC 3986 and SQLAlchemy)
            secret = "".join(c for c in secret if c not in ":/")
        userinfo = f"{draw(SAFE)}:{secret}" if where == "password" else secret
        url = f"{scheme}://{userinfo}@{host}{path}" + (f"?{query}" if query else "")
    else:
        secret = secret.replace("&", "")
        name = draw(PARAMETERS)
        mark = "?" if where == "query" else "#"
        lead = f"{query}&" if query else ""
        url = f"{scheme}://{host}{path}{mark}{lead}{name}={secret}{tail}"
    return url, secret


@given(urls_with_a_secret())
def test_no_secret_is_ever_shown(case: tuple[str, str]) -> None:
    url, secret = case
    assert secret not in shown_url(url), url
    assert secret not in redacted(url, url)
    assert secret not in redacted(f"error at {url} (refused)", url)
