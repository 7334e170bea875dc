"""The parser of ``tradeoff study …`` (part of :func:`tradeoff.cli.parser.build_parser`,
the one place the command line is built): make a study, serve it, follow it, export and
report it."""

from __future__ import annotations

import argparse

from tradeoff.cli.consent import cmd_study_consent, cmd_study_contact
from tradeoff.cli.layout import Commands, OldOption, add_commands
from tradeoff.cli.numbers import top, whole
from tradeoff.cli.panel_links import BASE_URL
from tradeoff.cli.study import (
    cmd_study_coordinator_key,
    cmd_study_create,
    cmd_study_erase,
    cmd_study_export,
    cmd_study_pilot_link,
    cmd_study_remove_pilots,
    cmd_study_report,
    cmd_study_serve,
    cmd_study_withdraw,
)
from tradeoff.cli.study_status import cmd_study_status

RUN = "Run a study"
INATTENTIVE_HELP = (
    "leave out every participant who failed an attention check (chose the option worse on "
    "every line)"
)
SCENARIO_HELP = "scenario TOML file, or a shipped scenario's id (tradeoff scenario list)"
CONTACT_HELP = (
    "how participants reach the coordinator, one line shown on every page of the study "
    '(e.g. "Dr Ada Lovelace, ada@example.org"; change it later with study contact)'
)


def add_study_commands(sub: Commands) -> None:
    """``tradeoff study`` and its actions."""
    st = sub.add_parser(
        "study",
        help="many people answer on a web page, by access code or panel link",
        section=RUN,
    )
    st_sub = add_commands(st, "study commands")
    mk = st_sub.add_parser(
        "create",
        help="make a study folder and the participants' codes",
        usage="%(prog)s SCENARIO --study DIR [options]",
    )
    mk.add_argument("scenario", metavar="SCENARIO", help=SCENARIO_HELP + " (copied into the study)")
    mk.add_argument(
        "--participants",
        metavar="FILE|N",
        help="a file of participant ids, one per line, or a number N (ids p01 … pN); "
        "each gets an access code (not needed with a panel)",
    )
    folder = mk.add_mutually_exclusive_group(required=True)
    folder.add_argument("--study", metavar="DIR", help="the new study folder (must not exist)")
    folder.add_argument("--out", dest="study", action=OldOption, new="--study")
    mk.add_argument("--codes", metavar="FILE.csv", help="write the codes here, not on screen")
    mk.add_argument(
        "--consent",
        metavar="FILE.md",
        help="information and consent text (Markdown) the study web page shows before the "
        "first question; agreeing opens the participant's session, declining records no answer "
        "(only that they declined, in the study's entries.jsonl)",
    )
    mk.add_argument(
        "--consent-version",
        default="1",
        metavar="V",
        help="the consent text's version (recorded with it)",
    )
    mk.add_argument(
        "--language",
        metavar="TAG",
        help="show the page in this language (en, de) whatever the browser asks for; "
        "participants may still pick another on the first page (default: the browser's)",
    )
    mk.add_argument("--contact", metavar="TEXT", help=CONTACT_HELP)
    add_panel_arguments(mk)
    add_arm_arguments(mk)
    mk.add_argument(
        "--attention-checks",
        metavar="N,M",
        help="attention checks before these questions (e.g. 3,8): a question whose one "
        "option is better on every line, shown like any other, never learned from",
    )
    mk.add_argument(
        "--population-prior",
        dest="population_prior",
        action="store_true",
        default=False,
        help="later participants start from a population prior pooled from the finished "
        "sessions (each session records the one it started from); in a simulated study of "
        "300 people the last 100 needed 10 questions (median) with it against 13 without, "
        "23%% fewer (benchmarks/results/population-study.md)",
    )
    mk.add_argument(
        "--no-population-prior",
        dest="population_prior",
        action="store_false",
        help="ask every participant from the engine's own prior (the default)",
    )
    mk.add_argument(
        "--population-prior-every",
        type=whole(
            "--population-prior-every",
            "after how many finished sessions the population prior is pooled again",
            10,
            1,
            10_000,
        ),
        default=10,
        metavar="K",
        help="pool the population prior again after every K finished sessions (default 10)",
    )
    mk.add_argument("--json", action="store_true", help="print one JSON document")
    mk.set_defaults(func=cmd_study_create)
    status = st_sub.add_parser("status", help="who has answered, who is done")
    status.add_argument("study", help="study folder")
    status.add_argument("--json", action="store_true", help="print one JSON document")
    status.add_argument("--watch", action="store_true", help="a live view that refreshes")
    status.add_argument(
        "--interval", type=float, default=2.0, help="seconds between refreshes (--watch)"
    )
    status.set_defaults(func=cmd_study_status)
    srep = st_sub.add_parser("report", help="the decision report over the complete sessions")
    srep.add_argument("study", help="study folder")
    srep.add_argument(
        "--out", required=True, metavar="DIR", help="the folder to write report.html and report.md"
    )
    srep.add_argument("--force", action="store_true", help="replace a report already in --out")
    srep.add_argument("--p", default="inf", help="the p of COPA's p-norm: a number ≥ 1 or inf")
    srep.add_argument("--top", type=top("models"), default=10, help="ranked models to report")
    srep.add_argument(
        "--exclude-inconsistent",
        action="store_true",
        help="leave participants whose answers are flagged as inconsistent (study status "
        "says which) out of the consensus; the report still shows each one's own pick",
    )
    srep.add_argument("--exclude-inattentive", action="store_true", help=INATTENTIVE_HELP)
    add_arm_report_arguments(srep)
    srep.add_argument(
        "--include-pilot", action="store_true", help="count pilot sessions (left out by default)"
    )
    srep.add_argument("--json", action="store_true", help="print one JSON document")
    srep.set_defaults(func=cmd_study_report)
    wd = st_sub.add_parser("withdraw", help="leave a participant out of status, report, export")
    wd.add_argument("study", help="study folder")
    wd.add_argument("participant", help="the participant's id (or their panel id)")
    wd.add_argument("--json", action="store_true", help="print one JSON document")
    wd.set_defaults(func=cmd_study_withdraw)
    web = st_sub.add_parser(
        "serve", help="the study's web page: code, consent, questions (plain HTML forms)"
    )
    web.add_argument("study", help="study folder")
    web.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback)")
    web.add_argument(
        "--port",
        type=whole("--port", "the port to listen on (0: any free one)", 8000, 0, 65_535),
        default=8000,
    )
    web.add_argument(
        "--workers",
        type=whole("--workers", "how many server processes share the study", 2, 1, 64),
        default=1,
        help="server processes sharing the study (default 1)",
    )
    web.add_argument(
        "--trust-proxy",
        action="store_true",
        help="a reverse proxy in front sets X-Forwarded-For and X-Forwarded-Proto: take the "
        "client's address and https from there; leave off without such a proxy",
    )
    web.add_argument(
        "--header-seconds",
        type=float,
        default=10.0,
        help="seconds a connection has to send a request's line and headers, from its opening "
        "or its last answer; an idle connection is closed after it (default 10)",
    )
    web.add_argument(
        "--body-seconds",
        type=float,
        default=10.0,
        help="seconds a request has to send its body once its headers are in (default 10)",
    )
    web.set_defaults(func=cmd_study_serve)
    ex = st_sub.add_parser(
        "export", help="every answer as one table (CSV or Parquet) with its codebook"
    )
    ex.add_argument("study", help="study folder")
    ex.add_argument(
        "--out",
        required=True,
        metavar="FILE.csv|FILE.parquet",
        help="the table to write (a new file)",
    )
    ex.add_argument(
        "--include-pilot", action="store_true", help="export pilot sessions (left out by default)"
    )
    ex.add_argument("--exclude-inattentive", action="store_true", help=INATTENTIVE_HELP)
    ex.add_argument("--json", action="store_true", help="print one JSON document")
    ex.set_defaults(func=cmd_study_export)
    add_pilot_commands(st_sub)
    add_consent_command(st_sub)


def add_panel_arguments(mk: argparse.ArgumentParser) -> None:
    """``study create``'s options of a panel (recruiting by link)."""
    from tradeoff.study.panel import CONSENT_MINUTES_MAX, PRESETS

    group = mk.add_argument_group(
        "recruiting through a panel",
        "people open the study by the panel's link (/panel?...), their panel id in a URL "
        "parameter; an allow-list of panel ids, or open enrolment with a cap and quotas",
    )
    group.add_argument(
        "--panel",
        choices=sorted(PRESETS),
        help="a panel's parameter names: prolific (PROLIFIC_PID; keeps STUDY_ID, SESSION_ID)",
    )
    group.add_argument("--panel-id-param", metavar="NAME", help="the URL parameter of the id")
    group.add_argument(
        "--panel-keep-param",
        metavar="NAME",
        action="append",
        help="another URL parameter to record with the entry (repeat for more)",
    )
    group.add_argument(
        "--panel-ids",
        metavar="FILE",
        help="the allow-list: panel ids, one per line; only they may enter",
    )
    group.add_argument(
        "--cap",
        type=whole("--cap", "how many people may take part", 300, 1, 10_000),
        metavar="N",
        help="open enrolment: at most N people",
    )
    group.add_argument(
        "--quota-field", metavar="NAME", help="open enrolment: the kept parameter of the quotas"
    )
    group.add_argument(
        "--quota",
        metavar="VALUE=N",
        action="append",
        help="at most N people whose quota field is VALUE (repeat for each group)",
    )
    group.add_argument(
        "--consent-within",
        metavar="MINUTES",
        type=whole(
            "--consent-within",
            "how many minutes a place is held for someone who has not consented yet",
            60,
            1,
            CONSENT_MINUTES_MAX,
        ),
        help="open enrolment: a place is held this long for someone who opened the link "
        "and has not consented, then freed (default 60)",
    )
    for kind, what in (
        ("complete", "a completed session"),
        ("declined", "declined consent or a withdrawal on the page"),
        ("screened", "a screen-out (not on the list, the cap or a quota full)"),
    ):
        group.add_argument(
            f"--{kind}-url",
            metavar="URL",
            help=f"after {what}, send the browser here (http/https; {{NAME}} is the link's "
            "parameter NAME, e.g. {PROLIFIC_PID})",
        )
        group.add_argument(f"--{kind}-code", metavar="CODE", help=f"after {what}, show this code")


def add_pilot_commands(st_sub: Commands) -> None:
    """``study pilot-link``, ``study remove-pilots``, ``study coordinator-key`` and ``study
    erase``."""
    pl = st_sub.add_parser("pilot-link", help="a new pilot link (pilot sessions are not counted)")
    pl.add_argument("study", help="study folder")
    pl.add_argument(
        "--url", default=BASE_URL, help=f"where the study's web page is served (default {BASE_URL})"
    )
    pl.add_argument("--json", action="store_true", help="print one JSON document")
    pl.set_defaults(func=cmd_study_pilot_link)
    rp = st_sub.add_parser(
        "remove-pilots", help="move the pilot sessions aside to pilot-removed/<time>/"
    )
    rp.add_argument("study", help="study folder")
    rp.add_argument("--yes", action="store_true", help="move them (without: only list them)")
    rp.add_argument("--json", action="store_true", help="print one JSON document")
    rp.set_defaults(func=cmd_study_remove_pilots)
    ck = st_sub.add_parser(
        "coordinator-key", help="a new key for the coordinator's page (/coordinator)"
    )
    ck.add_argument("study", help="study folder")
    ck.add_argument("--json", action="store_true", help="print one JSON document")
    ck.set_defaults(func=cmd_study_coordinator_key)
    er = st_sub.add_parser(
        "erase", help="erase a participant's data on request (a tombstone stays)"
    )
    er.add_argument("study", help="study folder")
    er.add_argument("participant", help="the participant's id (or their panel id)")
    er.add_argument("--yes", action="store_true", help="erase (without it nothing is done)")
    er.add_argument(
        "--requested-by", default="the participant", metavar="TEXT", help="whose request"
    )
    er.add_argument("--json", action="store_true", help="print one JSON document")
    er.set_defaults(func=cmd_study_erase)


def add_consent_command(st_sub: Commands) -> None:
    """``study consent``."""
    cs = st_sub.add_parser(
        "consent", help="a new consent text version: participants consent again before going on"
    )
    cs.add_argument("study", help="study folder")
    cs.add_argument("text", metavar="NEW.md", help="the new information and consent text")
    cs.add_argument(
        "--version",
        required=True,
        help="its version (a new one, or an existing version's text in another --language)",
    )
    cs.add_argument("--language", metavar="TAG", help="the language the text is in (e.g. de)")
    cs.add_argument("--json", action="store_true", help="print one JSON document")
    cs.set_defaults(func=cmd_study_consent)
    ct = st_sub.add_parser(
        "contact", help="how participants reach the coordinator, shown on the study's pages"
    )
    ct.add_argument("study", help="study folder")
    ct.add_argument("contact", metavar="TEXT", help=CONTACT_HELP)
    ct.add_argument("--json", action="store_true", help="print one JSON document")
    ct.set_defaults(func=cmd_study_contact)


def add_arm_arguments(mk: argparse.ArgumentParser) -> None:
    """``study create``'s options of arms (conditions compared in one study)."""
    group = mk.add_argument_group(
        "comparing conditions",
        "two or more arms; each new participant is assigned to the arm with the fewest "
        "participants (completed or in progress), ties at random",
    )
    group.add_argument(
        "--arm",
        action="append",
        metavar="NAME[:KEY=VALUE,...]",
        help="an arm (give one per arm); keys: strategy (joint, bisection, probabilistic, "
        "paper), scenario (a scenario file; default: the study's), language (the page's, "
        "e.g. de)",
    )
    group.add_argument(
        "--arms",
        metavar="FILE",
        help="the arms as TOML: one [[arms]] table each, with name, strategy, scenario "
        "(relative to the file)",
    )


def add_arm_report_arguments(report: argparse.ArgumentParser) -> None:
    """``study report``'s option of arms: the right picks that are known."""
    report.add_argument(
        "--truths",
        metavar="CSV",
        help="a study with arms: each participant's right pick (columns participant, "
        "right_pick), e.g. from simulated participants' true weights",
    )
