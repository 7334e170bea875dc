"""What every command shares: the usage error, option parsers, and safe output.

Output rules (docs/architecture.md): text for a terminal goes through :func:`say`, which
replaces control characters read from files; ``--json`` output goes through :func:`emit`,
which builds the whole document before writing, so stdout holds one document or nothing.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tradeoff.net import redacted
from tradeoff.text import clean_text, terminal_fit

if TYPE_CHECKING:
    from tradeoff.pool import Objective

DEFAULT_SCENARIO = "breast-cancer-triage.toml"

FLAG_NAMES = {
    "where condition": "--where",
    "constraint": "--constraint",
    "reference point": "--ref",
    "reference": "--reference",
    "baseline": "--baseline",
    "metric weights": "--metric",
    "weights and an alpha objective": "--weight and --alpha-objective",
    "alpha objective": "--alpha-objective",
    "alpha": "--alpha",
    "weight": "--weight",
    "weights": "--weight",
    "sweep_group": "--alpha-objective",
    "sweep_alphas": "--sweep",
    "sessions": "--session",
    "p": "--p",
    "top": "--top",
}
"""Core parameter names (an error's location, or the start of it) and the flags that set them."""

FIX_NAMES = {
    "the where condition": "--where",
    "use drop_missing to leave those models out": "use --drop-missing to leave those models out",
    "drop_missing": "--drop-missing",
    "criterion p = ": "--p ",
    "method ideal, delta or norm": "--method ideal, delta or norm",
    "the alpha objectives": "--alpha-objective",
    "or the scenario file (its [pool]": "or --scenario FILE (its [pool]",
    "give --study NAME.": "give --optuna-study NAME.",
    "give one with --study.": "give one with --optuna-study.",
}
"""Core parameter names in an error's fix, and the flags that set them."""

FIX_FALLBACKS = {
    "use drop_missing to leave those models out": "leave those models out of the file",
}
"""What a fix says instead when the command has no flag for the core parameter it names."""


def flags_of(text: str) -> set[str]:
    """The command-line options a text names.

    >>> sorted(flags_of("use --where 'x > 1' or --drop-missing; see -h"))
    ['--drop-missing', '--where']
    """
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def command_parsers(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> list[argparse.ArgumentParser]:
    """The parsers of the command ``argv`` runs, its subcommands followed from ``parser``:
    ``parser`` first, the command's own last."""
    chain = [parser]
    words = iter(argv)
    while True:
        subs = [a for a in chain[-1]._actions if isinstance(a, argparse._SubParsersAction)]
        word = next((w for w in words if subs and w in subs[0].choices), None)
        if word is None:
            return chain
        chain.append(subs[0].choices[word])


def command_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """Every option of the command ``argv`` runs (its subcommands followed from
    ``parser``), with the options of the commands above it."""
    return {
        s
        for current in command_parsers(parser, argv)
        for action in current._actions
        for s in action.option_strings
    }


def unrecognized(parser: argparse.ArgumentParser, argv: Sequence[str], extra: Sequence[str]) -> str:
    """The usage error for words of ``argv`` no option of its command took (``extra``),
    each unknown option with the command's closest one, if any (examples:
    tests/cli/test_command_names.py)."""
    options = sorted(command_options(parser, argv))
    hints = {}
    for word in extra:
        name = word.split("=", 1)[0]
        close = difflib.get_close_matches(name, options, n=1) if name.startswith("--") else []
        if close:
            hints[name] = f"did you mean {close[0]}?"
    said = f"unrecognized arguments: {' '.join(extra)}"
    if len(hints) > 1:
        return f"{said} ({'; '.join(f'{k}: {v}' for k, v in hints.items())})"
    return f"{said} ({next(iter(hints.values()))})" if hints else said


def known_names(
    names: dict[str, str], options: set[str], fallbacks: dict[str, str] | None = None
) -> dict[str, str]:
    """Of ``names`` (a core name and the flags that set it), those whose flags the command
    has (``options``); for the others, what ``fallbacks`` says instead, if anything. A fix
    never names an option the command does not have.

    >>> known_names({"top": "--top", "drop_missing": "--drop-missing"}, {"--top"})
    {'top': '--top'}
    """
    out = {}
    for old, new in names.items():
        if flags_of(new) <= options:
            out[old] = new
        elif fallbacks is not None and old in fallbacks:
            out[old] = fallbacks[old]
    return out


class UsageError(Exception):
    """A bad command-line value; reported like an input error (exit code 2)."""


class LazyNames:
    """An option's choices, read from a registry in another module the first time argparse
    needs them (to check a value given, or to write the command's help), so that building
    the parser imports nothing heavy. Give the option a ``metavar``: without one argparse
    reads the choices to name the value as soon as the option is added.

    >>> names = LazyNames("tradeoff.ask.strategies", "STRATEGY_NAMES")
    >>> "joint" in names, "magic" in names, len(names), ", ".join(names)
    (True, False, 4, 'paper, bisection, probabilistic, joint')
    """

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        self._names: tuple[str, ...] | None = None

    def names(self) -> tuple[str, ...]:
        """The registry's names (its module imported the first time)."""
        if self._names is None:
            from importlib import import_module

            self._names = tuple(str(n) for n in getattr(import_module(self.module), self.name))
        return self._names

    def __contains__(self, value: object) -> bool:
        return value in self.names()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())


def scenarios_dir() -> Path:
    """The shipped scenarios: ``./scenarios`` if present, else those installed with tradeoff."""
    here = Path.cwd() / "scenarios"
    if here.is_dir():
        return here
    from tradeoff.data import shipped_scenarios

    return shipped_scenarios()


def default_scenario() -> Path:
    return scenarios_dir() / DEFAULT_SCENARIO


def floats(text: str, what: str) -> list[float]:
    """Comma-separated finite numbers, or a UsageError naming the option."""
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{what} must be comma-separated numbers, got {text!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise UsageError(f"{what} must be finite numbers (no nan or inf), got {text!r}")
    return values


def point(text: str | None, what: str, d: int) -> list[float] | None:
    """An optional point of ``d`` coordinates."""
    if text is None:
        return None
    values = floats(text, what)
    if len(values) != d:
        raise UsageError(f"{what} needs {d} values, one per objective; got {len(values)}")
    return values


def finite(value: float | None, what: str, low: float | None = None) -> None:
    """Refuse nan/inf, and values below ``low``, of a numeric option."""
    if value is None:
        return
    if not math.isfinite(value) or (low is not None and value < low):
        bound = "" if low is None else f" ≥ {low:g}"
        raise UsageError(f"{what} must be a finite number{bound}, got {value}")


def parse_p(text: str) -> float:
    """The p of a p-norm as a number (``inf`` or ``∞`` for infinity); whether it is a valid
    p is checked by the core (:func:`tradeoff.choose.rank.check_p`)."""
    if text.strip().lower() in ("inf", "infinity", "∞"):
        return float("inf")
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"--p must be a number ≥ 1 or 'inf', got {text!r}") from None


def writable_file(path: str, what: str) -> Path:
    """A file path whose folder exists and which is not a folder itself."""
    p = Path(path)
    if p.is_dir():
        raise UsageError(f"{what} {path!r} is a folder; give a file name")
    if not p.parent.is_dir():
        raise UsageError(f"{what} {path!r}: the folder {str(p.parent)!r} does not exist")
    return p


def _json_safe(data: Any) -> Any:
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _json_safe(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_json_safe(v) for v in data]
    return data


def emit(data: Any) -> None:
    """Print exactly one JSON document (built completely before anything is written)."""
    try:
        text = json.dumps(data, indent=2, allow_nan=False)
    except ValueError:  # nan or inf somewhere: JSON has no such numbers, they become null
        text = json.dumps(_json_safe(data), indent=2, allow_nan=False)
    sys.stdout.write(text + "\n")


def say(text: object = "", *, wrap: bool = False, hang: int = 0) -> None:
    """Print text for a terminal: every control character from files made harmless; with
    ``wrap``, on a terminal, lines longer than it is wide broken between words
    (:func:`~tradeoff.text.terminal_fit`) rather than wherever the terminal breaks them,
    their continuations indented ``hang`` more (a table row's: under its last column)."""
    out = "\n".join(clean_text(line) for line in str(text).split("\n"))
    print(terminal_fit(out, sys.stdout, hang) if wrap else out)


def prose_width() -> int:
    """How wide a command writes its sentences (a table's rows keep their own width): the
    terminal's width (``COLUMNS``, else the terminal's own; 80 where there is none), at
    most 80 columns, at least 40."""
    return max(40, min(80, shutil.get_terminal_size().columns))


def terminal_width() -> int:
    """How wide a table may be: the terminal's width (``COLUMNS``, else the terminal's own;
    80 where there is none), at least 40."""
    return max(40, shutil.get_terminal_size().columns)


def error(text: str) -> None:
    """Write a message to stderr, control characters made harmless and any URL in it
    without its credentials (:func:`tradeoff.net.redacted`); on a terminal, its lines
    broken between words (:func:`~tradeoff.text.terminal_fit`)."""
    lines = redacted(text).split("\n")
    out = "\n".join(clean_text(line) for line in lines)
    sys.stderr.write(terminal_fit(out, sys.stderr) + "\n")


def took(seconds: float) -> str:
    """A duration as a person reads it: "40 s", "12 min", "2.5 h".

    >>> took(39.6), took(600), took(9000)
    ('40 s', '10 min', '2.5 h')
    """
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """How far a long command has come, on stderr: on a terminal one line rewritten at most
    twice a second; elsewhere (a log) one line at most every ``every`` seconds, so a short
    run writes nothing. After a second it also says how fast it goes and about how long is
    left (at the rate so far), and at the end how long it took.

    >>> import io
    >>> p = Progress("simulated", "people", stream=io.StringIO(), every=0.0)
    >>> p(3, 10); p(10, 10)
    >>> p.stream.getvalue().splitlines()
    ['simulated 3 of 10 people (30 %)', 'simulated 10 of 10 people (100 %)']
    >>> clock = iter([0.0, 20.0, 80.0]).__next__
    >>> p = Progress("simulated", "people", stream=io.StringIO(), every=0.0, clock=clock)
    >>> p(50, 200); p(200, 200)
    >>> p.stream.getvalue().splitlines()  # doctest: +NORMALIZE_WHITESPACE
    ['simulated 50 of 200 people (25 %); 2.5 people a second, about 60 s left',
     'simulated 200 of 200 people (100 %) in 80 s']
    """

    def __init__(
        self,
        verb: str,
        things: str,
        *,
        stream: Any = None,
        every: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.verb = verb
        self.things = things
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = 0.5 if self.tty else every
        self.clock = clock
        self.started = clock()
        self.last = self.started

    def __call__(self, done: int, total: int) -> None:
        now = self.clock()
        final = done >= total
        if now - self.last < self.every and not (final and self.last > self.started):
            return
        if final and not self.tty and now - self.started < self.every:
            return
        self.last = now
        line = f"{self.verb} {done:,} of {total:,} {self.things} ({done / max(total, 1):.0%})"
        line = line.replace("%)", " %)")
        elapsed = now - self.started
        if elapsed >= 1.0 and done > 0:
            if final:
                line += f" in {took(elapsed)}"
            else:
                rate = done / elapsed
                fast = f"{rate:,.0f}" if rate >= 10 else f"{rate:.1f}"
                line += f"; {fast} {self.things} a second, about {took((total - done) / rate)} left"
        if self.tty:
            self.stream.write("\r\x1b[2K" + line + ("\n" if final else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def objectives(items: Sequence[str] | None, at_least: int = 1) -> list[Objective]:
    """``--objective COL:min|max`` options parsed."""
    if not items or len(items) < at_least:
        what = "one --objective" if at_least == 1 else f"{at_least} --objective options"
        raise UsageError(f"give at least {what} COL:min|max")
    from dataclasses import replace

    from tradeoff.pool import Objective
    from tradeoff.pool.meaning import column_meaning

    try:
        parsed = [Objective.parse(o) for o in items]
    except ValueError as exc:
        raise UsageError(f"--objective: {exc}") from None
    # what a column's name says it holds (recall_* a share): checked as the pool is read
    return [replace(o, meaning=column_meaning(o.column)) for o in parsed]
