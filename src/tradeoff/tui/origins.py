"""Where a served page lives and who may open its websocket: origins, this machine's own
addresses, and textual-serve's page template without remote content (used by
:mod:`tradeoff.tui.guard`)."""

from __future__ import annotations

import ipaddress
import re
import socket
import tempfile
from pathlib import Path

import textual_serve


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL.

    >>> origin_of("https://study.example.org/triage/")
    'https://study.example.org'
    """
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


def is_this_machine(host: str) -> bool:
    """Whether a ``Host`` header names this machine: loopback, its own name, or an address
    one of its interfaces holds (a socket can bind it).

    >>> is_this_machine("127.0.0.1:8000"), is_this_machine("localhost"), is_this_machine(
    ...     "192.0.2.250:80")
    (True, True, False)
    """
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    name = name.strip("[]").split("]")[0]
    if name in ("localhost", socket.gethostname(), socket.getfqdn()):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if address.is_loopback:
        return True
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


def local_templates() -> Path:
    """textual-serve's page template without its remote font (a participant's browser loads
    nothing from another host: the page falls back to the system's monospace font), in a
    private folder made once per process."""
    global _TEMPLATES
    if _TEMPLATES is None:
        source = Path(textual_serve.__file__).parent / "templates" / "app_index.html"
        text = re.sub(r"<link[^>]*fonts\.googleapis\.com[^>]*>", "", source.read_text(), flags=re.S)
        folder = Path(tempfile.mkdtemp(prefix="tradeoff-templates-"))
        (folder / "app_index.html").write_text(text)
        _TEMPLATES = folder
    return _TEMPLATES


_TEMPLATES: Path | None = None
