"""Text from files made safe to print: no control characters reach a terminal.

Model names, participant ids, labels and column names come from files a person gives
(pools, scenarios, session headers). Printed raw, a crafted name could carry ESC or OSC
sequences that recolour, retitle or rewrite the terminal. :func:`clean_text` replaces
every C0 and C1 control character, DEL and the bidirectional overrides with ``?``.

>>> clean_text("model\\x1b]0;owned\\x07-1")
'model?]0;owned?-1'
"""

from __future__ import annotations

import re
from typing import Any

_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean_text(text: object) -> str:
    """``str(text)`` with each control character replaced by ``?`` (tabs become spaces)."""
    return _CONTROL.sub("?", str(text).replace("\t", " "))


def clean_data(data: Any) -> Any:
    """A JSON-like structure with every string (keys too) passed through :func:`clean_text`."""
    if isinstance(data, str):
        return clean_text(data)
    if isinstance(data, dict):
        return {clean_text(k): clean_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [clean_data(v) for v in data]
    return data
