"""Studies: ``tradeoff study create``, ``tradeoff study report`` and the other actions
(``study status`` is :mod:`tradeoff.cli.study_status`).

The work is in :mod:`tradeoff.study.folder` and, for the report, :mod:`tradeoff.study.report`;
these commands parse options and print.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tradeoff.cli.arms import arm_specs, arms_lines, report_arms, say_arms
from tradeoff.cli.common import UsageError, emit, error, parse_p, say
from tradeoff.cli.panel_links import BASE_URL, panel_link, panel_link_lines, quota_links
from tradeoff.text import count

if TYPE_CHECKING:
    from tradeoff.study.panel import Panel
    from tradeoff.study.report import StudySessions


def _participants(value: str) -> list[str]:
    from tradeoff.study.inputs import read_participants

    if value.isascii() and value.isdigit():
        n = int(value) if len(value) <= 6 else 0
        if not 1 <= n <= 10_000:
            raise UsageError("--participants N needs N from 1 to 10000")
        width = max(2, len(str(n)))
        return [f"p{i:0{width}d}" for i in range(1, n + 1)]
    path = Path(value)
    if not path.is_file():
        raise UsageError(
            f"--participants {value!r} is neither a number nor a file of participant ids"
        )
    return read_participants(path.read_text(encoding="utf-8", errors="replace"), str(path))


PANEL_FLAGS = (
    "panel_id_param",
    "panel_keep_param",
    "panel_ids",
    "cap",
    "quota_field",
    "quota",
    "consent_within",
    "complete_url",
    "complete_code",
    "declined_url",
    "declined_code",
    "screened_url",
    "screened_code",
)


def _panel(args: argparse.Namespace) -> tuple[Panel | None, list[str]]:
    """The panel ``study create``'s flags describe (``None`` without any), and its
    allow-list's ids (read with line-numbered errors)."""
    import secrets

    from tradeoff.study.panel import (
        CONSENT_MINUTES,
        PRESETS,
        Ending,
        Panel,
        check_ending_code,
        check_panel,
        check_url,
        parse_quotas,
        read_panel_ids,
    )

    given = [f for f in PANEL_FLAGS if getattr(args, f, None)]
    if args.panel is None and not given:
        return None, []
    if args.panel is not None:
        id_param, keep = PRESETS[args.panel]
    elif args.panel_id_param is None:
        raise UsageError(
            "a panel needs the name of its id parameter: --panel prolific, or --panel-id-param NAME"
        )
    else:
        id_param, keep = args.panel_id_param, ()
    if args.panel_id_param is not None:
        id_param = args.panel_id_param
    keep = tuple(dict.fromkeys([*keep, *(args.panel_keep_param or [])]))
    if args.panel_ids and args.consent_within is not None:
        raise UsageError(
            "--consent-within is for open enrolment (--cap): an allow-list (--panel-ids) "
            "holds no places; give one or the other"
        )
    ids: list[str] = []
    if args.panel_ids:
        path = Path(args.panel_ids)
        if not path.is_file():
            raise UsageError(f"--panel-ids {args.panel_ids!r} is not a file of panel ids")
        ids = read_panel_ids(path.read_text(encoding="utf-8", errors="replace"), str(path))
    if args.cap is not None and not 1 <= args.cap <= 10_000:
        raise UsageError("--cap needs a number from 1 to 10000")

    def end(kind: str) -> Ending:
        url, code = getattr(args, f"{kind}_url"), getattr(args, f"{kind}_code")
        return Ending(
            None if url is None else check_url(url, f"--{kind}-url"),
            None if code is None else check_ending_code(code, f"--{kind}-code"),
        )

    panel = check_panel(
        Panel(
            id_param=id_param,
            keep_params=keep,
            salt=secrets.token_bytes(16),
            allow_list=bool(ids),
            cap=args.cap,
            quota_field=args.quota_field,
            quotas=parse_quotas(args.quota or []),
            consent_minutes=CONSENT_MINUTES if args.consent_within is None else args.consent_within,
            complete=end("complete"),
            declined=end("declined"),
            screened=end("screened"),
        )
    )
    return panel, ids


def cmd_study_create(args: argparse.Namespace) -> int:
    from tradeoff.ask.scenario import load_scenario
    from tradeoff.study.checks import parse_positions
    from tradeoff.study.codes import CODE_BITS
    from tradeoff.study.folder import create_study
    from tradeoff.study.keys import new_key
    from tradeoff.study.pooling import Pooling, write_pooling

    if not 1 <= args.population_prior_every <= 10_000:
        raise UsageError("--population-prior-every K: give a whole number from 1 to 10,000")
    panel, panel_ids = _panel(args)
    if args.participants is None and panel is None:
        raise UsageError(
            "give --participants (access codes) or a panel (--panel prolific, "
            "--panel-id-param NAME)"
        )
    ids = [] if args.participants is None else _participants(args.participants)
    if args.language is not None:
        from tradeoff.web.i18n import languages

        known = languages()
        if args.language not in known:
            raise UsageError(
                f"--language {args.language!r}: the page has no such language; give one of "
                f"{', '.join(sorted(known))} (a new language is a catalogue in "
                "tradeoff/web/locale: see the README's Languages)"
            )
    codes_file = Path(args.codes) if args.codes else None
    study, codes = create_study(
        args.scenario,
        ids,
        args.study,
        codes_file=codes_file,
        consent=args.consent,
        consent_version=args.consent_version,
        panel=panel,
        panel_ids=panel_ids,
        language=args.language,
        attention_checks=()
        if args.attention_checks is None
        else parse_positions(args.attention_checks),
        arms=arm_specs(args),
        contact=args.contact,
    )
    coordinator_key = new_key(study.path, "coordinator")
    write_pooling(study.path, Pooling(args.population_prior, every=args.population_prior_every))
    if args.json:
        data: dict[str, object] = {
            "study": str(study.path),
            "population_prior": args.population_prior,
            "scenario_sha256": study.scenario_sha256,
            "participants": list(codes),
            "coordinator_key": coordinator_key,
            "contact": study.contact,
        }
        if codes_file is None:
            data["codes"] = codes
        else:
            data["codes_file"] = str(codes_file)
        if panel is not None:
            data["panel_link"] = None if panel.quotas else panel_link(panel, BASE_URL)
            data["quota_links"] = quota_links(panel, BASE_URL)
            # places are held in open enrolment only
            data["consent_minutes"] = None if panel.allow_list else panel.consent_minutes
            data["panel_ids"] = len(panel_ids)
        if study.arms:
            data["arms"] = [a.to_json() for a in study.arms]
        emit(data)
        return 0
    cache_mb = sum(f.stat().st_size for f in study.cache_dir.rglob("*") if f.is_file()) / 1e6
    who = count(len(codes), "participant")
    if panel is not None:
        who = (f"{count(len(codes), 'participant')} with access codes and " if codes else "") + (
            f"the {len(panel_ids)} panel ids of the allow-list"
            if panel.allow_list
            else "open enrolment by the panel's link"
            + (f", at most {panel.cap} people" if panel.cap else "")
        )
    lines = [
        f"study made in {study.path} for {who} (scenario sha256 {study.scenario_sha256[:12]}).",
        f"The questions' tables are prepared in {study.cache_dir} ({cache_mb:.0f} MB).",
    ]
    if panel is not None:
        lines += panel_link_lines(panel)
    lines += arms_lines(study)
    if study.language not in (None, "en"):  # the page's words are; the scenario's stay
        lines.append(
            f"Note: the page speaks {study.language}, but the scenario's own text (its title,\n"
            "description, class and aspect names, formats) is shown as the scenario file\n"
            "writes it: write the scenario in that language for participants who read it."
        )
    if load_scenario(study.scenario_path).scenario.pool is None:
        lines.append(
            "Note: the scenario names no [pool], so study report will have nothing to choose\n"
            "from (it writes the population's weights); pick for a participant with\n"
            "tradeoff pick POOL.csv --session FILE, or give the scenario a [pool] first."
        )
    lines.append(
        "Later participants start from a population prior pooled from finished sessions\n"
        f"(again after every {args.population_prior_every})."
        if args.population_prior
        else "No population prior: every participant starts from the engine's own."
    )
    if study.attention_checks:
        *rest, last = map(str, study.attention_checks)
        before = f"questions {', '.join(rest)} and {last}" if rest else f"question {last}"
        lines.append(
            f"An attention check comes before {before}: a pair whose one option\nis better "
            "on every line, shown like any question, never learned from."
        )
    if not codes:
        pass
    elif codes_file is not None:
        lines.append(f"access codes written to {codes_file}; hand each participant their own.")
    else:
        lines += ["", "Access codes (shown once, stored only as salted hashes):", ""]
        width = max(len(p) for p in codes)
        lines += [f"  {p:<{width}}  {c}" for p, c in codes.items()]
    lines += [
        "",
        (f"Each code is {CODE_BITS} bits. " if codes else "")
        + f"Open the study's web page with: tradeoff study serve {study.path}",
        *(
            [
                "A participant at this machine's terminal answers with their code in: "
                f"tradeoff elicit --study {study.path}"
            ]
            if codes
            else []
        ),
        "",
        "The coordinator's page (/coordinator on the study's web page) opens with this key, "
        f"shown once: {coordinator_key}",
        f"(a new one: tradeoff study coordinator-key {study.path})",
    ]
    lines.append(
        f"Every page of the study names its coordinator's contact: {study.contact}"
        if study.contact is not None
        else "No contact: the pages send participants with questions to whoever invited them "
        f"(to name the coordinator: tradeoff study contact {study.path} TEXT)."
    )
    lines.append(
        "No consent page: participants start at question 1 (--consent FILE gives one)."
        if study.consent_file is None
        else f"Before their first question, participants read and agree to\n"
        f"{study.path / study.consent_file} (version {study.consent_version})."
    )
    if study.consent_file is not None and study.language != "de":
        lines.append(
            "The page can be switched to German; to give its participants this text in German "
            f"too: tradeoff study consent {study.path} TEXT.md --version "
            f"{study.consent_version} --language de"
        )
    say("\n".join(lines), wrap=True)  # on a terminal, a link or a code kept whole
    return 0


def cmd_study_report(args: argparse.Namespace) -> int:
    from tradeoff.cli.decide import check_out, emit_report
    from tradeoff.cli.nearby import study_folder
    from tradeoff.study.report import NothingToDecide, decide_study, study_sessions

    check_out(args.out, args.force)
    study_folder(args.study)
    found = study_sessions(
        args.study,
        exclude_inconsistent=args.exclude_inconsistent,
        include_pilot=args.include_pilot,
        exclude_inattentive=args.exclude_inattentive,
    )
    for pid, why in found.left_out:
        if pid in found.participants:  # flagged as inconsistent: their own pick stays
            error(
                f"{found.study.path}: participant {pid} is in the report but left out of its "
                "consensus: flagged as inconsistent"
            )
        else:
            error(f"{found.study.path}: participant {pid} is not in the report: {why}")
    if found.study.arms or args.truths is not None:  # the arms side by side, written first
        compared = report_arms(found.study, args.out, args.truths, args.include_pilot)
        if not args.json:
            say_arms(compared)
    try:
        chosen = decide_study(found, p=parse_p(args.p), top=args.top)
    except NothingToDecide as exc:
        if found.sessions:  # no pool: the population's weights need none
            _population(found, args)
        raise UsageError(str(exc)) from None
    argv = ["study", "report", str(found.study.path), "--out", args.out]
    argv += ["--include-pilot"] if args.include_pilot else []
    code = emit_report(chosen, args.out, argv, json=args.json)
    _population(found, args)
    return code


def _population(found: StudySessions, args: argparse.Namespace) -> None:
    """Write (and, as text, say) the population picture of a study's complete sessions:
    how weights spread, the groups (nothing for fewer sessions than it needs)."""
    from tradeoff.study.population_picture import picture_of, picture_text

    picture = picture_of(found.sessions, found.study.scenario_path, found.study.populations())
    if picture is not None:
        text = picture_text(picture)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        path = Path(args.out) / "population.md"
        path.write_text(text, encoding="utf-8")
        if not args.json:
            say(f"{text}\n(written to {path})")


def cmd_study_withdraw(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import open_study, participant_of
    from tradeoff.study.withdrawals import withdraw

    study = open_study(args.study)
    args.participant = participant_of(study, args.participant)  # or their panel id
    record = withdraw(study, args.participant)
    if args.json:
        emit(record)
        return 0
    kept = record["kept_session_files"]
    if record.get("already"):
        say(
            f"{args.participant} was already withdrawn from {study.path} at {record['time']}; "
            "nothing was recorded again.",
            wrap=True,
        )
        return 0
    say(
        f"{args.participant} withdrawn from {study.path} at {record['time']}: "
        "status, export and report leave their answers out from now on.\n"
        f"Kept: the withdrawal record in {study.path / 'withdrawals.jsonl'}"
        + (f" and their {count(len(kept), 'session file')} ({', '.join(kept)})" if kept else "")
        + ".",
        wrap=True,
    )
    return 0


def cmd_study_serve(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import open_study
    from tradeoff.study.folder import STUDY_FILE
    from tradeoff.web.connection import Timeouts
    from tradeoff.web.i18n import check_study_language, languages
    from tradeoff.web.serving import serve_study

    if not 1 <= args.workers <= 64:
        raise UsageError("--workers needs a number from 1 to 64")
    if not 0 <= args.port <= 65535:
        raise UsageError("--port needs a number from 0 to 65535")
    limits = {"--header-seconds": args.header_seconds, "--body-seconds": args.body_seconds}
    for flag, value in limits.items():
        if not 0.1 <= value <= 3600:
            raise UsageError(f"{flag} needs a number of seconds from 0.1 to 3600")
    study = open_study(args.study)
    check_study_language(study.language, study.path / STUDY_FILE, languages())
    from tradeoff.study.arm_specs import check_arm_languages

    check_arm_languages(study.path / STUDY_FILE, study.arms, languages())
    from tradeoff.study.cache import user_cache_dir

    user_cache_dir()  # a cache folder that is no folder: said now, not on the coordinator's page
    from tradeoff.study.cache import prepare_caches

    # Entries sealed with another key (another user's, or another $HOME's) are said now,
    # not with the first participant, and what is missing is built before anyone waits.
    prepare_caches(study.scenario_paths, study.cache_dir, strict=False)
    timeouts = Timeouts(args.header_seconds, args.body_seconds)
    try:
        return serve_study(
            study,
            args.host,
            args.port,
            workers=args.workers,
            trust_proxy=args.trust_proxy,
            timeouts=timeouts,
        )
    except OSError as exc:
        raise UsageError(
            f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc}); "
            "choose another --port or --host"
        ) from None


def cmd_study_export(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import open_study
    from tradeoff.study.export import export_study

    study = open_study(args.study)
    summary = export_study(
        study,
        args.out,
        include_pilot=args.include_pilot,
        exclude_inattentive=args.exclude_inattentive,
    )
    for path, why in summary.skipped:
        error(f"{path}: not exported: {why}")
    if args.json:
        emit(summary.to_dict())
        return 0
    left_out = (
        f"; left out as withdrawn: {', '.join(summary.withdrawn)}" if summary.withdrawn else ""
    )
    if summary.pilot_sessions:
        n = summary.pilot_sessions
        left_out += f"; {count(n, 'pilot session')} left out (--include-pilot)"
    if summary.erased:
        left_out += f"; erased on request (a row each, state erased): {', '.join(summary.erased)}"
    counted = summary.rows - summary.undone
    undone = (
        f" (and {summary.undone} taken back by an undo, in rows flagged undone)"
        if summary.undone
        else ""
    )
    say(
        f"{counted} answer{'s' if counted != 1 else ''}{undone} of {len(summary.participants)} "
        f"participant{'s' if len(summary.participants) != 1 else ''} written to "
        f"{summary.path}{left_out}.\nOne row per participant in {summary.participants_table}; "
        f"every column is explained in {summary.codebook} and {summary.datapackage}.",
        wrap=True,
    )
    if summary.threshold_median is not None:  # over the complete, as study report counts
        from tradeoff.curves import threshold_percent

        n = summary.threshold_count
        whose = (
            "The 1 complete participant's threshold probability"
            if n == 1
            else f"The {n} complete participants' median threshold probability"
        )
        say(
            f"{whose} is {threshold_percent(summary.threshold_median)} (each one's, with its "
            "90% credible interval, in the threshold columns).",
            wrap=True,
        )
    return 0


#: The address ``tradeoff study serve`` listens at by default, for the links printed.


def cmd_study_pilot_link(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import open_study
    from tradeoff.study.keys import new_key

    study = open_study(args.study)
    key = new_key(study.path, "pilot")
    link = f"{args.url.rstrip('/')}/pilot?key={key}"
    if args.json:
        emit({"study": str(study.path), "pilot_link": link})
        return 0
    say(
        f"The pilot link of {study.path} (shown once; a new one replaces it):\n\n  {link}\n\n"
        "Each visit starts a pilot session, marked as a pilot in its file and never counted "
        "by status, export or report;\n"
        f"tradeoff study remove-pilots {study.path} moves them aside.",
        wrap=True,  # the link kept whole
    )
    return 0


def cmd_study_coordinator_key(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import open_study
    from tradeoff.study.keys import new_key

    study = open_study(args.study)
    key = new_key(study.path, "coordinator")
    if args.json:
        emit({"study": str(study.path), "coordinator_key": key})
        return 0
    say(
        f"The coordinator's key of {study.path} (shown once; it replaces any earlier one):\n\n"
        f"  {key}\n\nEnter it at /coordinator on the study's web page "
        f"(tradeoff study serve {study.path}).",
        wrap=True,  # the key kept whole
    )
    return 0


def cmd_study_remove_pilots(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import open_study
    from tradeoff.study.entries import remove_pilots

    study = open_study(args.study)
    pilots = sorted(study.pilots)
    if not pilots:
        say(f"{study.path} has no pilot sessions.")
        return 0
    if not args.yes:
        say(
            f"{len(pilots)} pilot participant{'s' if len(pilots) != 1 else ''} in {study.path}: "
            f"{', '.join(pilots)}.\nTheir session folders would be moved to "
            f"{study.path / 'pilot-removed'}/<time>/ (nothing is deleted).\n"
            "Run again with --yes to move them.",
            wrap=True,
        )
        return 0
    dest, moved = remove_pilots(study.path, study.pilots)
    if args.json:
        emit({"study": str(study.path), "moved_to": str(dest), "participants": moved})
        return 0
    say(
        f"{len(moved)} pilot participant{'s' if len(moved) != 1 else ''} moved aside to {dest}: "
        f"{', '.join(moved)}.\nNothing was deleted; entries.jsonl records the move.",
        wrap=True,
    )
    return 0


def cmd_study_erase(args: argparse.Namespace) -> int:
    from tradeoff.cli.nearby import erase_target, open_study
    from tradeoff.study.erase import erase

    study = open_study(args.study)  # completes an erasure a crash left half done
    pid = erase_target(study, args.participant)
    if not args.yes:
        raise UsageError(
            f"study erase removes every answer of {pid} (and their panel id, if they have\none) "
            f"from {study.path} for good; a tombstone says when and at whose request.\nAdd "
            "--yes to erase."
        )
    record = erase(study.path, pid, requested_by=args.requested_by)
    if args.json:
        emit(record)
        return 0
    say(
        f"{pid} erased from {study.path} at {record['time']} ({record['answers']} answers; "
        f"{', '.join(record['removed']) or 'nothing else'}).\nThe tombstone is in "
        f"{study.path / 'erasures.jsonl'}; status, report and export list them as erased.",
        wrap=True,
    )
    return 0
