"""``docs/reference/cli.md`` and ``docs/reference/environment.md``, from the argument parser of
``payments-emulator`` (``emulator.cli.commands._parser``) and ``settings.VARIABLES``."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from dataclasses import dataclass

from emulator.cli import trigger
from emulator.cli.client import client_parent
from emulator.cli.commands import _parser
from emulator.runtime.settings import CLIENT_VERBS, VARIABLES, Variable
from tools.markdown import code, page, prose, table

PROG = "payments-emulator"


@dataclass(frozen=True)
class Command:
    """A command or verb: its words after the program, its help and its parser."""

    words: tuple[str, ...]
    help: str
    parser: argparse.ArgumentParser

    @property
    def name(self) -> str:
        return " ".join((PROG, *self.words))


def _subcommands(
    parser: argparse.ArgumentParser,
) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def commands(
    parser: argparse.ArgumentParser | None = None, words: tuple[str, ...] = ()
) -> Iterator[Command]:
    """Every command and verb under ``parser``, depth first, in the parser's order."""
    parser = parser or _parser()
    sub = _subcommands(parser)
    if sub is None:
        return
    helps = {choice.dest: choice.help or "" for choice in sub._choices_actions}
    for name, child in sub.choices.items():
        yield Command((*words, name), helps.get(name, ""), child)
        yield from commands(child, (*words, name))


def _signature(action: argparse.Action) -> tuple[tuple[str, ...], str | None]:
    return tuple(action.option_strings), action.help


# The connection options every client verb takes (``client_parent``): listed once.
CLIENT_OPTIONS = {_signature(a) for a in client_parent()._actions}


def _is_client_option(action: argparse.Action) -> bool:
    return _signature(action) in CLIENT_OPTIONS


def _is_listed(action: argparse.Action) -> bool:
    return not isinstance(
        action, argparse._HelpAction | argparse._SubParsersAction | argparse._VersionAction
    )


def _value(action: argparse.Action) -> str:
    if action.choices is not None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    metavar = action.metavar
    return str(metavar) if isinstance(metavar, str) else action.dest.upper()


def argument(action: argparse.Action) -> str:
    """How the argument is written: ``--port PORT``, ``FILE...``, ``[DURATION]``."""
    if not action.option_strings:
        value = _value(action)
        if action.nargs == "+":
            return f"{value}..."
        return f"[{value}]" if action.nargs == "?" else value
    name = ", ".join(action.option_strings)
    if action.nargs == 0:
        return name
    return f"{name} {_value(action)}"


_BY_FLAG = {variable.flag: variable for variable in VARIABLES}
_WORDS = {"none", "random", "now"}  # defaults that are no value to type


def shown(value: str) -> str:
    """A default as the pages show it: a value as code, a description as words."""
    return value if value in _WORDS or " " in value else code(value)


def default(action: argparse.Action, reader: str) -> str:
    """What an absent argument means: argparse's default, else the default of the variable
    it stands for when ``reader`` (serve, the client verbs) reads that variable."""
    value = action.default
    if value not in (None, argparse.SUPPRESS, False, []) and action.nargs != 0:
        return code(value)
    for flag in action.option_strings:
        variable = _BY_FLAG.get(flag)
        if variable is not None and variable.read_by[0] == reader:
            return shown(variable.default)
    return ""


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if "%(" in text:
        text = text % {"prog": PROG, "default": action.default}
    if action.nargs == "+":
        text = (text + "; one or more").lstrip("; ")
    if isinstance(action, argparse._AppendAction):
        text += " (repeatable)" if "repeatable" not in text else ""
    return text


def _rows(actions: list[argparse.Action], reader: str) -> list[list[str]]:
    return [[code(argument(a)), default(a, reader), _help(a)] for a in actions]


def _section(command: Command) -> list[str]:
    actions = [a for a in command.parser._actions if _is_listed(a)]
    own = [a for a in actions if not _is_client_option(a)]
    lines = [f"## `{command.name}`", "", prose(command.help[:1].upper() + command.help[1:]) + "."]
    if any(_is_client_option(a) for a in actions):
        lines += ["", "Takes the [client options](#client-options) too."]
    if own:
        reader = "serve" if command.words == ("serve",) else CLIENT_VERBS
        lines += ["", *table(("Argument", "Default", "Meaning"), _rows(own, reader))]
    if command.words == ("trigger",):
        events = [
            [code(name), does, "" if status is None else code(status)]
            for name, (_, does, status) in trigger.EVENTS.items()
        ]
        events += [
            [code(alias), f"the same as {code(name)}", ""]
            for alias, name in trigger.ALIASES.items()
        ]
        lines += [
            "",
            "The events:",
            "",
            *table(("Event", "What it does", "Status reached"), events),
        ]
    return [*lines, ""]


def cli_page() -> str:
    parser = _parser()
    top = [a for a in parser._actions if _is_listed(a)]
    body = [
        f"Every command of `{PROG}` (also `python -m emulator`) with its arguments, as"
        f" `{PROG} COMMAND --help` shows them; every command takes `-h`/`--help`.",
        "Where an argument stands for an environment variable, the flag wins over the"
        " variable (see [Environment variables](environment.md)).",
        "",
        "## Client options",
        "",
        "The verbs that drive a running emulator (every command but `serve`, `scenario validate`"
        " and `scenario list`) take these, before the verb or after it:",
        "",
        *table(
            ("Argument", "Default", "Meaning"),
            _rows([a for a in top if _is_client_option(a)], CLIENT_VERBS),
        ),
        "",
        f"`{PROG} --version` prints the version.",
        "",
    ]
    for command in commands(parser):
        body += _section(command)
    return page("Command line", "the argument parser (`emulator/cli/`)", body)


_ENV_NOTE = re.compile(r"\s*\(env [A-Z_]+(=1)?(, default [^)]*)?\)")


def _meaning(variable: Variable) -> str:
    """The help of the flag the variable stands for (serve's first, then the client verbs'),
    without the "(env ..., default ...)" note."""
    for command in [*commands(), Command((), "", _parser())]:
        for action in command.parser._actions:
            if variable.flag in action.option_strings and variable.name in (action.help or ""):
                return _ENV_NOTE.sub("", action.help or "")
    raise LookupError(f"no flag {variable.flag} says it stands for {variable.name}")


def named_variables() -> set[str]:
    """Every EMULATOR_* variable the parser's help texts name."""
    found: set[str] = set()
    for command in [Command((), "", _parser()), *commands()]:
        for action in command.parser._actions:
            found.update(re.findall(r"\bEMULATOR_[A-Z_]+\b", action.help or ""))
    return found


def environment_page() -> str:
    missing = named_variables() - {v.name for v in VARIABLES}
    if missing:
        raise LookupError(f"add {sorted(missing)} to emulator/runtime/settings.py VARIABLES")
    rows = [
        [code(v.name), code(v.flag), shown(v.default), ", ".join(v.read_by), _meaning(v)]
        for v in VARIABLES
    ]
    body = [
        "Every environment variable the emulator reads. A flag given on the command line wins"
        " over its variable; an unset variable means the default. A value that does not parse"
        " stops `serve` before it starts, with one line naming the variable (exit code 2).",
        "Every `serve` flag has its variable (a test walks the parser). A switch (`--tls`,"
        " `--ephemeral`, `--strict-requests`) is on with `1`, `true`, `yes` or `on` and off with"
        " `0`, `false`, `no` or `off`; `EMULATOR_SCENARIO` takes names or files separated by"
        " commas (`--scenario` is repeated instead).",
        "",
        *table(("Variable", "Flag", "Default", "Read by", "Meaning"), rows),
    ]
    return page(
        "Environment variables",
        "`emulator/runtime/settings.py` (`VARIABLES`) and the argument parser",
        body,
    )
