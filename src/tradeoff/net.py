"""Client addresses: the address a request is counted against (a trusted reverse proxy's
``X-Forwarded-For``, or the connection's own), as logged. Only the standard library."""

from __future__ import annotations

import re

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
