"""Addresses: the address a client's request is counted against (a trusted reverse proxy's
``X-Forwarded-For``, or the connection's own), as logged; and a URL as it may be shown, its
credentials hidden (:func:`shown_url`, :func:`redacted`). Only the standard library.

Credentials in a URL: the password of its userinfo (``user:password@``, the user name
kept; a userinfo of one part, often a token, hidden whole) and the value of every query or
fragment parameter whose name holds one of :data:`SECRET_NAMES` (case-insensitive:
``?password=``, ``&api_key=``, ``#access_token=``). Every message, provenance file and
recorded command that holds a URL given to the program (an Optuna storage, an MLflow
tracking URI) shows it through these, so a password there is printed nowhere. The userinfo
is read both as RFC 3986 reads it (up to the last ``@`` before the path) and as SQLAlchemy
does (a password up to the first ``@``, ``/`` included), and what either calls the password
is hidden.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_plus

#: What a source (a client's address, a trusted proxy's forwarded one) may hold as logged.
_SOURCE_RE = re.compile(r"[0-9A-Za-z:.\-]{1,64}")


def clean_source(source: str | None) -> str:
    r"""A client address as logged: letters, digits, ':', '.' and '-' only, or ``unknown``.

    >>> clean_source("192.0.2.7"), clean_source("::1"), clean_source("a b\n"), clean_source(None)
    ('192.0.2.7', '::1', 'unknown', 'unknown')
    """
    if source and _SOURCE_RE.fullmatch(source):
        return source
    return "unknown"


def client_source(remote: str | None, forwarded_for: str | None, trust_proxy: bool) -> str:
    """The address a request is counted against: the last hop of ``X-Forwarded-For`` when
    a trusted reverse proxy adds it (only then: anyone can send that header), else the
    connection's own address; as :func:`clean_source` logs it.

    >>> client_source("127.0.0.1", "203.0.113.9, 198.51.100.7", True)
    '198.51.100.7'
    >>> client_source("127.0.0.1", "198.51.100.7", False)
    '127.0.0.1'
    """
    if trust_proxy and forwarded_for:
        last = forwarded_for.split(",")[-1].strip()
        if last:
            return clean_source(last)
    return clean_source(remote)


#: A query or fragment parameter whose name holds one of these (case-insensitive) carries a
#: credential; its value is shown as ``***``.
SECRET_NAMES = (
    "password",
    "passwd",
    "pwd",
    "pass",
    "token",
    "secret",
    "key",
    "auth",
    "credential",
    "signature",
)
#: Names that carry a credential only as a whole (Azure's ``sig``, ``X-Amz-Signature``'s
#: short forms); as parts of a name they would hide too much (``design``).
_SECRET_WHOLE = ("sig",)
HIDDEN = "***"
#: A URL's scheme and ``//``.
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://)(.*)", re.DOTALL)
#: A web URL's userinfo is RFC 3986's only; other schemes (databases) are read by SQLAlchemy.
_WEB = ("http://", "https://", "ws://", "wss://", "ftp://")
#: A parameter's start: its separator and name, up to ``=``.
_PARAMETER = re.compile(r"([?&#;])([^=&?#;]*)=")
#: A URL in free text (an exception's message).
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>`]+")


def _secret(name: str) -> bool:
    key = unquote_plus(name).strip().lower()
    return any(word in key for word in SECRET_NAMES) or key in _SECRET_WHOLE


def _userinfo(userinfo: str) -> str:
    user, colon, _ = userinfo.partition(":")
    return f"{user}:{HIDDEN}" if colon else HIDDEN


def _hidden_parameters(url: str) -> str:
    """``url`` with the value of each secret parameter (:func:`_secret`) hidden, up to the
    next ``&``; a parameter's name is looked for after every ``?``, ``&``, ``#`` and ``;``,
    inside another's value too."""
    out: list[str] = []
    last = 0
    for match in _PARAMETER.finditer(url):
        if match.start() < last or not _secret(match.group(2)):
            continue
        end = url.find("&", match.end())
        end = len(url) if end < 0 else end
        out += [url[last : match.end()], HIDDEN]
        last = end
    return "".join(out) + url[last:]


def shown_url(url: str) -> str:
    """``url`` as it may be printed or recorded: the credentials in it hidden (the module
    docstring). Anything that is no URL is returned with only its secret parameters hidden.

    >>> shown_url("postgresql://ann:secret@db.example/optuna")
    'postgresql://ann:***@db.example/optuna'
    >>> shown_url("sqlite:///x.db?password=s3cret&mode=ro")
    'sqlite:///x.db?password=***&mode=ro'
    >>> shown_url("https://TOKEN@host/api?Access_Token=t"), shown_url("https://h/#api_key=k&s=1")
    ('https://***@host/api?Access_Token=***', 'https://h/#api_key=***&s=1')
    >>> shown_url("mysql://u:p/w@d@host/db"), shown_url("http://host:5000/x?q=a@b")
    ('mysql://u:***@d@host/db', 'http://host:5000/x?q=a@b')
    """
    match = _SCHEME.match(url)
    if match:
        scheme, rest = match.groups()
        authority = re.match(r"[^/?#]*", rest)
        end = authority.end() if authority else 0
        if "@" in rest[:end]:  # RFC 3986: the userinfo ends at the authority's last @
            userinfo, _, host = rest[:end].rpartition("@")
            rest = f"{_userinfo(userinfo)}@{host}{rest[end:]}"
        if scheme.lower() not in _WEB:  # SQLAlchemy: user [^:/]*, then :password [^@]*, @
            sqlalchemy = re.match(r"([^:/]*)(:[^@]*)?@", rest)
            if sqlalchemy and sqlalchemy.group() not in (
                f"{HIDDEN}@",
                f"{sqlalchemy[1]}:{HIDDEN}@",
            ):
                rest = f"{_userinfo(sqlalchemy.group()[:-1])}@{rest[sqlalchemy.end() :]}"
        url = scheme + rest
    return _hidden_parameters(url)


def redacted(text: str, *urls: str | None) -> str:
    """``text`` (a message, a command line, an exception's words) with every URL in it
    shown as :func:`shown_url` shows it: first each of ``urls`` (those given to the
    program, which may hold spaces) wherever it appears whole, then anything that looks
    like a URL.

    >>> redacted("could not open 'postgresql://ann:pw@db/x': refused")
    "could not open 'postgresql://ann:***@db/x': refused"
    >>> redacted("--storage sqlite:///a b.db?pwd=x y", "sqlite:///a b.db?pwd=x y")
    '--storage sqlite:///a b.db?pwd=***'
    """
    for url in urls:
        if url:
            text = text.replace(url, shown_url(url))
    return _URL_IN_TEXT.sub(lambda m: shown_url(m.group()), text)
