"""Studies: ``tradeoff study create``, ``tradeoff study status`` and ``tradeoff study report``.

The work is in :mod:`tradeoff.study.folder` and, for the report, :mod:`tradeoff.study.report`;
these commands parse options and print.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tradeoff.cli.common import UsageError, emit, error, parse_p, say


def _participants(value: str) -> list[str]:
    from tradeoff.study.folder import read_participants

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


def cmd_study_create(args: argparse.Namespace) -> int:
    from tradeoff.study.codes import CODE_BITS
    from tradeoff.study.folder import create_study

    ids = _participants(args.participants)
    codes_file = Path(args.codes) if args.codes else None
    study, codes = create_study(
        args.scenario,
        ids,
        args.out,
        codes_file=codes_file,
        consent=args.consent,
        consent_version=args.consent_version,
    )
    if args.json:
        data: dict[str, object] = {
            "study": str(study.path),
            "scenario_sha256": study.scenario_sha256,
            "participants": list(codes),
        }
        if codes_file is None:
            data["codes"] = codes
        else:
            data["codes_file"] = str(codes_file)
        emit(data)
        return 0
    cache_mb = sum(f.stat().st_size for f in study.cache_dir.rglob("*") if f.is_file()) / 1e6
    lines = [
        f"study made in {study.path} for {len(codes)} participants "
        f"(scenario sha256 {study.scenario_sha256[:12]}).",
        f"The questions' tables are prepared in {study.cache_dir} ({cache_mb:.0f} MB).",
    ]
    if codes_file is not None:
        lines.append(f"access codes written to {codes_file}; hand each participant their own.")
    else:
        lines += ["", "Access codes (shown once, stored only as salted hashes):", ""]
        width = max(len(p) for p in codes)
        lines += [f"  {p:<{width}}  {c}" for p, c in codes.items()]
    lines += [
        "",
        f"Each code is {CODE_BITS} bits. Open the study's web page with: "
        f"tradeoff study serve {study.path}",
    ]
    if study.consent_file is not None:
        lines.append(
            f"Before their first question, participants read and agree to\n"
            f"{study.path / study.consent_file} (version {study.consent_version})."
        )
    say("\n".join(lines))
    return 0


def format_status(data: dict[str, object]) -> str:
    rows = data["rows"]
    assert isinstance(rows, list)
    width = max([11] + [len(str(r["participant"])) for r in rows])
    lines = [
        f"{data['study']}: {data['participants']} participants, {data['started']} started, "
        + (f"{data['consented']} consented, " if data.get("consented") else "")
        + f"{data['complete']} complete, {data['flagged']} flagged as inconsistent, "
        f"{data.get('withdrawn', 0)} withdrawn"
        + (
            f"; median {data['median_response_s']} s per answer"
            if data.get("median_response_s") is not None
            else ""
        ),
        f"  {'participant':<{width}}  {'answers':>7}  {'complete':<8}  {'last activity':<25}  note",
    ]
    for r in rows:
        note = "inconsistent answers" if r["consistency_flagged"] else r["note"]
        if (not r["complete"] or str(r["state"]).startswith("withdrawn")) and not note:
            note = str(r["state"])
        line = (
            f"  {r['participant']:<{width}}  {r['answers']:>7}  "
            f"{'yes' if r['complete'] else 'no':<8}  {r['last_activity'] or '—':<25}  {note}"
        )
        lines.append(line.rstrip())
    problems = data.get("problems") or []
    assert isinstance(problems, list)
    lines += [f"problem: {p}" for p in problems]
    return "\n".join(lines)


def cmd_study_status(args: argparse.Namespace) -> int:
    from tradeoff.study.folder import load_study
    from tradeoff.study.status import study_status

    study = load_study(args.study)
    if args.watch:
        from tradeoff.tui.study import watch

        watch(study, interval=args.interval)
        return 0
    data = study_status(study).to_dict()
    if args.json:
        emit(data)
    else:
        say(format_status(data))
    return 0


def cmd_study_report(args: argparse.Namespace) -> int:
    from tradeoff.cli.decide import check_out, emit_report
    from tradeoff.study.report import NothingToDecide, decide_study, study_sessions

    check_out(args.out)
    found = study_sessions(
        args.study, exclude_inconsistent=args.exclude_inconsistent, include_pilot=args.include_pilot
    )
    for pid, why in found.left_out:
        error(f"{found.study.path}: participant {pid} is not in the report: {why}")
    try:
        chosen = decide_study(found, p=parse_p(args.p), top=args.top)
    except NothingToDecide as exc:
        raise UsageError(str(exc)) from None
    argv = ["study", "report", str(found.study.path), "--out", args.out]
    argv += ["--include-pilot"] if args.include_pilot else []
    return emit_report(chosen, args.out, argv, json=args.json)


def cmd_study_withdraw(args: argparse.Namespace) -> int:
    from tradeoff.study.folder import load_study
    from tradeoff.study.withdrawals import withdraw

    study = load_study(args.study)
    record = withdraw(study, args.participant)
    if args.json:
        emit(record)
        return 0
    kept = record["kept_session_files"]
    say(
        f"{args.participant} withdrawn from {study.path} at {record['time']}: "
        "status, export and report leave their answers out from now on.\n"
        f"Kept: the withdrawal record in {study.path / 'withdrawals.jsonl'}"
        + (f" and their {len(kept)} session file(s) ({', '.join(kept)})" if kept else "")
        + "."
    )
    return 0


def cmd_study_serve(args: argparse.Namespace) -> int:
    from tradeoff.study.folder import load_study
    from tradeoff.web.connection import Timeouts
    from tradeoff.web.serving import serve_study

    if not 1 <= args.workers <= 64:
        raise UsageError("--workers needs a number from 1 to 64")
    if not 0 <= args.port <= 65535:
        raise UsageError("--port needs a number from 0 to 65535")
    limits = {"--header-seconds": args.header_seconds, "--body-seconds": args.body_seconds}
    for flag, value in limits.items():
        if not 0.1 <= value <= 3600:
            raise UsageError(f"{flag} needs a number of seconds from 0.1 to 3600")
    study = load_study(args.study)
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
    from tradeoff.study.export import export_study
    from tradeoff.study.folder import load_study

    study = load_study(args.study)
    summary = export_study(study, args.out, include_pilot=args.include_pilot)
    for path, why in summary.skipped:
        error(f"{path}: not exported: {why}")
    if args.json:
        emit(summary.to_dict())
        return 0
    left_out = (
        f"; left out as withdrawn: {', '.join(summary.withdrawn)}" if summary.withdrawn else ""
    )
    if summary.pilot_sessions:
        left_out += f"; {summary.pilot_sessions} pilot session(s) left out (--include-pilot)"
    say(
        f"{summary.rows} answers of {len(summary.participants)} "
        f"participant{'s' if len(summary.participants) != 1 else ''} written to "
        f"{summary.path}{left_out}.\nOne row per participant in {summary.participants_table}; "
        f"every column is explained in {summary.codebook} and {summary.datapackage}."
    )
    return 0
