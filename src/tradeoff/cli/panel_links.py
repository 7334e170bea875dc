"""The link(s) ``study create`` prints for a panel: placeholders the panel fills, and one
link per quota group (a panel passes only its own parameters, never a quota field)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tradeoff.study.panel import Panel

#: Where ``study serve`` serves the page unless told otherwise.
BASE_URL = "http://127.0.0.1:8000/"


def panel_link(panel: Panel, base: str, group: str | None = None) -> str:
    """The study's link to give the panel, with a placeholder for each parameter (in
    Prolific's ``{{%NAME%}}`` form for the Prolific preset's names, ``<NAME>`` for the
    others); with a quota ``group``, the quota field's value written in.

    >>> from tradeoff.study.panel import Panel
    >>> panel_link(Panel("PID", ("WAVE",), b"k" * 16), "http://127.0.0.1:8000/")
    'http://127.0.0.1:8000/panel?PID=<PID>&WAVE=<WAVE>'
    >>> p = Panel("PROLIFIC_PID", ("sex",), b"k" * 16, cap=2, quota_field="sex",
    ...           quotas={"female": 1, "male": 1})
    >>> panel_link(p, "https://s.example/", "female")
    'https://s.example/panel?PROLIFIC_PID={{%PROLIFIC_PID%}}&sex=female'
    """
    from urllib.parse import quote

    from tradeoff.study.panel import PRESETS

    prolific = {PRESETS["prolific"][0], *PRESETS["prolific"][1]}
    names = [panel.id_param, *panel.keep_params]
    parts = []
    for n in names:
        if group is not None and n == panel.quota_field:
            parts.append(f"{n}={quote(group, safe='')}")
        elif n in prolific:
            parts.append(f"{n}={{{{%{n}%}}}}")
        else:
            parts.append(f"{n}=<{n}>")
    return f"{base.rstrip('/')}/panel?{'&'.join(parts)}"


def quota_links(panel: Panel, base: str) -> dict[str, str]:
    """One link per quota group, its value written in (empty without quotas): a panel
    fills only its own parameters (Prolific: its id, the study's and the session's), never
    a quota field such as ``sex``, so each group is recruited through its own link."""
    return {group: panel_link(panel, base, group) for group in panel.quotas}


def panel_link_lines(panel: Panel) -> list[str]:
    """What ``study create`` says about the link(s) to give the panel, and who the link
    lets in: the allow-list's ids, or (open enrolment) someone while there is a place,
    held for :attr:`~tradeoff.study.panel.Panel.consent_minutes` until they consent."""
    from tradeoff.study.panel import PRESETS

    own = [n for n in (panel.id_param, *panel.keep_params) if n not in PRESETS["prolific"][0]]
    own = [n for n in own if n not in PRESETS["prolific"][1] and n != panel.quota_field]
    lines = [""]
    if not panel.quotas:
        lines += [
            "The link to give the panel (put the address the page is served at in place of "
            f"{BASE_URL.rstrip('/')}):",
            f"  {panel_link(panel, BASE_URL)}",
        ]
    else:
        field = panel.quota_field
        lines += [
            f"The links to give the panel, one per quota group of {field} (put the address the "
            f"page is served at in place of {BASE_URL.rstrip('/')}). A panel fills only its own "
            f"parameters, not {field}: recruit each group through its own link, e.g. one "
            "panel study per group whose screening takes only that group's people. (A panel "
            f"that passes {field} itself may use one link, its placeholder for {field} in "
            "place of the value.) A link whose value is not a group is screened out.",
        ]
        lines += [
            f"  {group} (at most {size}): {link}"
            for (group, link), size in zip(
                quota_links(panel, BASE_URL).items(), panel.quotas.values(), strict=True
            )
        ]
        places = sum(panel.quotas.values())
        if panel.cap is not None and places < panel.cap:
            lines.append(
                f"Note: the quotas add up to {places:,} places, fewer than the cap of "
                f"{panel.cap:,}: at most {places:,} people can take part. Check the groups' "
                f"names above (a value of {field} that is no group is screened out)."
            )
    if own:
        lines.append(
            "Put the panel's own placeholder for "
            + ", ".join(f"<{n}>" for n in own)
            + " in the link (the panel must fill it for each person)."
        )
    if panel.allow_list:  # no places: only the listed ids come in, each to their own
        lines.append(
            "Only the panel ids of the allow-list can enter by the link; any other id is "
            "screened out."
        )
    else:
        lines.append(
            f"A place is held for {panel.consent_minutes} minutes for someone who opened the "
            "link and has not consented; then it is free for someone else (--consent-within)."
        )
    return lines
