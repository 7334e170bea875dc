"""Errors that the faces (CLI, TUI) render for people instead of a traceback.

Every mistake in a file a user gives us (scenario, pool, session) is reported as an
:class:`InputError` that names the file, where in it the problem is, what is wrong and how
to fix it. The CLI prints :meth:`InputError.message` and exits with code 2; the TUI shows
the same text in a dialog.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One problem found in a user's file.

    Parameters
    ----------
    location
        Where in the file: a key path (``attributes[1].range``), a line (``line 4``) or a
        row and column (``row 17, column 'CO2'``). Empty when the file as a whole is wrong.
    problem
        What is wrong, in plain words.
    fix
        How to fix it.
    stands_for
        How many problems this line stands for when it counts others left unlisted ("… and
        58 more problems like these."); 0 for a problem of its own.
    """

    location: str
    problem: str
    fix: str = ""
    stands_for: int = 0

    def render(self) -> str:
        where = f"{self.location}: " if self.location else ""
        text = f"{where}{self.problem}"
        if self.fix:
            text += f" Fix: {self.fix}"
        return text


@dataclass(frozen=True)
class InputError(Exception):
    """A mistake in something the user gave us, with every problem found in it.

    Examples
    --------
    >>> err = InputError.single("pool.csv", "row 3, column 'CO2'", "is empty.", "fill it in.")
    >>> print(err.message())
    pool.csv: row 3, column 'CO2': is empty. Fix: fill it in.
    >>> rest = Problem("", "… and 58 more problems like these.", stands_for=58)
    >>> print(InputError.many("pool.csv", [Problem("row 1", "is empty."), rest]).message())
    pool.csv: 59 problems:
      - row 1: is empty.
      - … and 58 more problems like these.
    """

    source: str
    problems: tuple[Problem, ...] = field(default_factory=tuple)

    @classmethod
    def single(cls, source: str | Path, location: str, problem: str, fix: str = "") -> InputError:
        """Build an error with exactly one problem."""
        return cls(str(source), (Problem(location, problem, fix),))

    @classmethod
    def many(cls, source: str | Path, problems: Sequence[Problem]) -> InputError:
        """Build an error from several problems found in one file."""
        return cls(str(source), tuple(problems))

    def renamed(self, locations: dict[str, str], fixes: dict[str, str]) -> InputError:
        """The same error with parameter names replaced by the face's own.

        A location is renamed by the first name of ``locations`` it starts with, where the
        name is the whole location or followed by a space (``where condition 'x > 1'`` →
        ``--where 'x > 1'``; ``p`` → ``--p``, but not ``population.path``); in fixes every
        occurrence of a name of ``fixes`` is replaced.

        >>> err = InputError.single("pool.csv", "top", "must be at least 1.", "use the top 5")
        >>> print(err.renamed({"top": "--top"}, {"the top": "--top"}).message())
        pool.csv: --top: must be at least 1. Fix: use --top 5
        >>> print(InputError.single("s.toml", "stop", "bad.").renamed({"top": "--top"}, {}))
        s.toml: stop: bad.
        """

        def rename_location(text: str) -> str:
            for old, new in locations.items():
                name = old.rstrip()
                if text == name or text.startswith(name + " "):
                    return new.rstrip() + text[len(name) :]
            return text

        def rename_fix(text: str) -> str:
            for old, new in fixes.items():
                text = text.replace(old, new)
            return text

        return type(self)(
            self.source,
            tuple(
                Problem(rename_location(p.location), p.problem, rename_fix(p.fix), p.stands_for)
                for p in self.problems
            ),
        )

    def message(self) -> str:
        """The text shown to the user: one line per problem, each prefixed by the file."""
        if len(self.problems) == 1:
            return f"{self.source}: {self.problems[0].render()}"
        total = sum(p.stands_for or 1 for p in self.problems)
        lines = [f"{self.source}: {total} problems:"]
        lines += [f"  - {p.render()}" for p in self.problems]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.message()


#: What Python itself sets on an exception as it travels (``contextlib`` sets the traceback
#: with plain attribute assignment when an error leaves a ``with`` block).
_EXCEPTION_STATE = frozenset(
    {"__traceback__", "__cause__", "__context__", "__suppress_context__", "__notes__"}
)
_frozen_setattr = InputError.__setattr__


def _setattr(self: InputError, name: str, value: object) -> None:
    """An :class:`InputError`'s fields stay frozen; Python's own exception state does not
    (a frozen dataclass refuses every assignment, which turned an error leaving a
    ``@contextmanager`` block into a ``FrozenInstanceError`` traceback)."""
    if name in _EXCEPTION_STATE:
        Exception.__setattr__(self, name, value)
    else:
        _frozen_setattr(self, name, value)


setattr(InputError, "__setattr__", _setattr)  # noqa: B010 (after the dataclass made its own)


def read_user_file(path: str | Path, missing_fix: str = "check the path.") -> bytes:
    """The bytes of a file a user gave, or an InputError: not found (with ``missing_fix``),
    a folder, or unreadable."""
    p = Path(path)
    if not p.is_file():
        if p.exists() and not p.is_dir():  # a FIFO or a device: reading it could wait for ever
            raise InputError.single(
                p, "", "is not a regular file (a FIFO, socket or device).", "give a file."
            )
        if p.is_dir():  # "not found" would send the user looking for a typo
            raise InputError.single(
                p, "", "is a folder, not a file.", f"give the files in it, e.g. {p / '*'}."
            )
        raise InputError.single(p, "", "file not found.", missing_fix)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError.single(
            p, "", f"cannot be read ({exc.strerror}).", "check the file's permissions."
        ) from None


#: The longest cell :func:`csv_records` reads, in characters: the csv module's own limit as
#: Python ships it, held here whatever a library imported since has set that limit to.
CELL_LIMIT = 131_072


def csv_records(source: str | Path, text: str) -> Iterator[tuple[int, list[str]]]:
    """The records of the CSV ``text`` (from the file ``source``) with the line each starts
    on, as an editor numbers it (blank lines count, and a cell of several lines makes its
    record span them); blank records left out. A record with a cell longer than
    :data:`CELL_LIMIT` (or a quote never closed, which runs to the end of the file), or
    one the csv module refuses, is an :class:`InputError` naming its line.

    >>> list(csv_records("t.csv", 'a,b\\n\\n1,"x\\ny"\\n2,3\\n'))
    [(1, ['a', 'b']), (3, ['1', 'x\\ny']), (5, ['2', '3'])]
    >>> try:
    ...     list(csv_records("t.csv", "a\\n" + "9" * 200_000 + "\\n"))
    ... except InputError as err:
    ...     print(err.problems[0].location, err.problems[0].problem)
    line 2 has a cell longer than 131,072 characters.
    """
    reader = csv.reader(io.StringIO(text, newline=""))
    long = f"has a cell longer than {CELL_LIMIT:,} characters."
    fix = "shorten the cell, or close its quote."
    before = 0
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:  # the module's own limit, where nothing raised it
            said = long if "field limit" in str(exc) else f"cannot be read as CSV ({exc})."
            raise InputError.single(source, f"line {before + 1}", said, fix) from None
        if any(len(cell) > CELL_LIMIT for cell in record):
            raise InputError.single(source, f"line {before + 1}", long, fix)
        if any(cell.strip() for cell in record):
            yield before + 1, record
        before = reader.line_num
