"""How the command line reads: its parser class, the sections of ``tradeoff --help``, and
the old names that still work for a release.

The rule of the names (README, "Commands"): a top-level command is a verb that does one job
(``elicit``, ``simulate``, ``pick``, ``report``, ``bench``) or names a group, a thing
(``session``, ``study``, ``pool``, ``scenario``, ``choices``) or the judging stage
(``judge``), whose subcommands say what to do or show (``session show``, ``study create``,
``pool rank``, ``judge gap``); no top-level command is a bare noun that runs something.
``--out`` is always the file or folder a command writes; a command that makes a new study
takes it as ``--study DIR``, as every other option that names a study folder does.

An old name (``select``, ``rank``, ``compare``, ``gap``) or an old option spelling still
works: it runs the new command and writes one line to stderr naming the new one (stdout, and
so ``--json``, is untouched).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from tradeoff.net import redacted

if TYPE_CHECKING:
    _Commands = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _Commands = argparse._SubParsersAction


def notice(old: str, new: str) -> None:
    """One line on stderr: ``old`` is now ``new``, and the old spelling still works.

    >>> import contextlib, io
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stderr(out):
    ...     notice("tradeoff select", "tradeoff pick")
    >>> print(out.getvalue(), end="")
    tradeoff: 'tradeoff select' is now 'tradeoff pick' (still accepted until the next release)
    """
    sys.stderr.write(f"tradeoff: {old!r} is now {new!r} (still accepted until the next release)\n")


class Help(argparse.HelpFormatter):
    """Help that fits 80 columns: option help starts at column 26, never further right."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=26)


class Commands(_Commands):
    """A level of commands: each with its section of the help and a description (its help
    line, unless it has one of its own), and old names that run a new command with a notice.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = "commands"
        self.sections: dict[str, list[str]] = {}
        self.old_names: dict[str, str] = {}

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        section = kwargs.pop("section", None)
        if "help" in kwargs and "description" not in kwargs:
            kwargs["description"] = kwargs["help"][:1].upper() + kwargs["help"][1:] + "."
        parser = super().add_parser(name, **kwargs)
        if section is not None:
            self.sections.setdefault(section, []).append(name)
        return parser

    def add_old_name(self, old: str, parser: argparse.ArgumentParser) -> None:
        """``old`` runs ``parser`` (a command of this level or below) after a notice."""
        self._name_parser_map[old] = parser
        self.old_names[old] = parser.prog

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(values, list)
        name = values[0]
        if name in self.old_names:
            notice(f"{parser.prog} {name}", self.old_names[name])
        super().__call__(parser, namespace, values, option_string)


def add_commands(parser: argparse.ArgumentParser, title: str) -> Commands:
    """A group's level of commands (one of them must be given)."""
    commands = parser.add_subparsers(title=title, metavar="ACTION", required=True)
    assert isinstance(commands, Commands)
    commands.title = title
    return commands


class OldOption(argparse.Action):
    """An option's old spelling: stores into the new option's place after a notice. Hidden
    from the help."""

    def __init__(self, option_strings: list[str], dest: str, new: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        notice(f"{parser.prog} {option_string}", f"{parser.prog} {self.new}")
        setattr(namespace, self.dest, values)


class Parser(argparse.ArgumentParser):
    """The parser of every command: help laid out by :class:`Help`, with a level's commands
    listed like options (under their sections at the top level); a usage error, which repeats
    what was typed (``unrecognized arguments: …``), shows a URL in it without its
    credentials (:func:`tradeoff.net.redacted`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Help)
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", Commands)

    def error(self, message: str) -> NoReturn:
        super().error(redacted(message))

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A command not known is refused naming the current commands (not the old names)."""
        if isinstance(action, Commands) and value not in action.choices:
            names = ", ".join(repr(n) for n in action.choices if n not in action.old_names)
            self.error(
                f"argument {action.metavar}: invalid choice: {value!r} (choose from {names})"
            )
        super()._check_value(action, value)

    def commands(self) -> Commands | None:
        """This parser's level of subcommands, if it has one."""
        found = [a for a in self._actions if isinstance(a, Commands)]
        return found[0] if found else None

    def format_help(self) -> str:
        commands = self.commands()
        if commands is None:
            return super().format_help()
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        formatter.add_text(self.description)
        listed = {a.dest: a for a in commands._choices_actions}
        sections = commands.sections or {commands.title: list(listed)}
        for title, names in sections.items():
            formatter.start_section(title)
            formatter.add_arguments([listed[n] for n in names])
            formatter.end_section()
        formatter.start_section("options")
        formatter.add_arguments([a for a in self._actions if a.option_strings])
        formatter.end_section()
        text = formatter.format_help()
        return text + ("\n" + self.epilog if self.epilog else "")
