"""The ``tradeoff`` command line: it parses options, calls the core, and prints.

Modules: :mod:`~tradeoff.cli.parser` builds the one parser (every command and option,
with :mod:`~tradeoff.cli.parser_study` and :mod:`~tradeoff.cli.parser_pick`);
:mod:`~tradeoff.cli.layout` says how it reads (the sections of ``tradeoff --help``, old
names kept for a release with a notice); :mod:`~tradeoff.cli.common` holds shared option
parsing and safe output, :mod:`~tradeoff.cli.numbers` the type of every whole-number option,
:mod:`~tradeoff.cli.nearby` the "did you mean" of study folders and participant ids,
:mod:`~tradeoff.cli.per_unit` the note on swing shares given as weights per unit; one
module per group of commands runs them:
:mod:`~tradeoff.cli.app` (the app, elicit, session show), :mod:`~tradeoff.cli.study`,
:mod:`~tradeoff.cli.choices`, :mod:`~tradeoff.cli.scenarios` (scenario, simulate, bench),
:mod:`~tradeoff.cli.pool` (pool from-…), :mod:`~tradeoff.cli.rank` (pool rank),
:mod:`~tradeoff.cli.decide` (pick, report) and :mod:`~tradeoff.cli.judge` (judge compare,
judge gap). Domain work lives in the core; these modules only wire and render.

The command line as recorded (a pool's provenance, a report) and every message on stderr
show a URL without its credentials (:func:`tradeoff.net.redacted`).

Exit codes (docs/architecture.md): 0 ok, 2 a mistake in what the user gave (a message on
stderr naming the file, line or row, field or option, and the fix; no traceback), 1 an
internal error or an answer that could not be saved. With ``--json``, stdout holds exactly
one JSON document, or nothing when the command fails.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from contextlib import nullcontext

from tradeoff.cli.common import (
    FIX_FALLBACKS,
    FIX_NAMES,
    FLAG_NAMES,
    UsageError,
    command_options,
    command_parsers,
    error,
    known_names,
    unrecognized,
)
from tradeoff.cli.parser import build_parser
from tradeoff.cli.rank import cmd_rank
from tradeoff.errors import InputError
from tradeoff.net import redacted
from tradeoff.threads import one_thread

__all__ = ["build_parser", "main"]


def _quiet_stdout() -> None:
    """After a broken pipe: send what is still buffered nowhere, so exit stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


#: Commands left to use every thread a numeric library starts: COPA's ranking of a large
#: pool is a few large products, which threads speed up. Every other command runs the engine
#: or reads sessions through it, with one thread per numeric call (:mod:`tradeoff.threads`).
MANY_THREADS: frozenset[Callable[..., int]] = frozenset({cmd_rank})


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tradeoff`` console script; returns the exit code."""
    import argparse

    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # the command's own usage, and the option meant, not the top level's
            command_parsers(parser, argv)[-1].error(unrecognized(parser, argv, extra))
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return int(exc.code or 0)
    # Only now: the recorder imports the engine, which --help never needs.
    from tradeoff.limits import ignore_file_size_signal
    from tradeoff.record.recorder import SessionWriteError

    ignore_file_size_signal()
    args.argv = [redacted(a, a if "://" in a else None) for a in argv]  # as recorded
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        with nullcontext() if func in MANY_THREADS else one_thread():
            code = func(args)
        sys.stdout.flush()
        return code
    except InputError as exc:
        options = command_options(parser, argv)
        renamed = exc.renamed(
            known_names(FLAG_NAMES, options), known_names(FIX_NAMES, options, FIX_FALLBACKS)
        )
        error(renamed.message())
        return 2
    except UsageError as exc:
        error(f"tradeoff: {exc}")
        return 2
    except SessionWriteError as exc:
        error(f"tradeoff: {exc} Free some space or fix the folder, then resume the session.")
        return 1
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:
        return 130
