"""The decision report loads nothing from outside: names from a pool file are text, not
Markdown or HTML, and the HTML page forbids remote loads by its Content-Security-Policy
(names from people's sessions to the report: test_report_safety_sessions.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.core

HOSTILE = (
    "![beacon](http://evil.example/beacon.png)",
    "<http://evil.example/autolink>",
    '<img src="http://evil.example/img.png">',
    "[click](http://evil.example/link)",
)
