"""What every ``hudi-metastore`` parser shares: no abbreviated options, every option's default in ``--help``,
the options naming the catalog database (``--db-url``) and the log level, and the types of numeric
options."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import NoReturn

from hudi_catalog.config import CREATE_CATALOG_ENV, DB_URL_DEFAULT, DB_URL_ENV

LOG_LEVEL_ENV = "HUDI_METASTORE_LOG_LEVEL"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


class _DefaultsFormatter(argparse.HelpFormatter):
    """Appends ``(default: X)`` to an option's help unless the help names its default already, or it has none
    worth showing (``None``, a flag's ``False``, an empty list)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        empty = default is None or default is False or default == [] or default == argparse.SUPPRESS
        shown = action.option_strings and not empty
        if shown and "default" not in text:
            text = f"{text} (default: %(default)s)" if text else "default: %(default)s"
        return text


class CliParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that refuses abbreviated options (``--prot`` is not ``--protocol``) and shows
    defaults; ``add_subparsers`` makes its subcommands' parsers of this class too."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """A usage mistake in two lines (argparse prints the whole usage, some forty lines for ``serve``), exit 2."""
        self.exit(2, f"{self.prog}: error: {message}\nsee `{self.prog} --help`\n")


def _log_level(text: str) -> str:
    level = text.strip().upper()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a log level: use one of {', '.join(LOG_LEVELS)}")
    return level


def add_db_url_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db-url",
        default=os.environ.get(DB_URL_ENV, DB_URL_DEFAULT),
        metavar="URL",
        help=f"the catalog database: sqlite:///PATH, mysql://USER:PASS@HOST:3306/DB (MariaDB too), "
        f"postgresql://USER:PASS@HOST:5432/DB; set {DB_URL_ENV} once instead of this option "
        f"(default: ${DB_URL_ENV}, else {DB_URL_DEFAULT}, a file in the current folder)",
    )


def add_log_level_option(parser: argparse.ArgumentParser, default: str, what: str) -> None:
    """``--log-level``: ``what`` says what the levels show; an unknown level (here or in the environment) is a
    usage error, not a traceback."""
    parser.add_argument(
        "--log-level",
        type=_log_level,
        default=os.environ.get(LOG_LEVEL_ENV, default),
        metavar="|".join(LOG_LEVELS),
        help=f"{what}; DEBUG also prints the traceback of an error (env {LOG_LEVEL_ENV}; default {default})",
    )


_SWITCH_WORDS = {**dict.fromkeys(("1", "true", "yes", "on"), True), **dict.fromkeys(("0", "false", "no", "off"), False)}


def _create_catalog_word(text: str) -> bool:
    """The value of ``HUDI_METASTORE_CREATE_CATALOG``; another word is a usage error of the command reading it."""
    word = text.strip().lower()
    if word not in _SWITCH_WORDS:
        raise argparse.ArgumentTypeError(
            f"{CREATE_CATALOG_ENV}={text!r} is neither true nor false (write true or false, 1 or 0, yes or no)"
        )
    return _SWITCH_WORDS[word]


class _EnvironmentSwitch(argparse.BooleanOptionalAction):
    """``--X`` / ``--no-X`` whose default may be the text of an environment variable. argparse reads a text
    default through the action's ``type`` only when the option is not given, and only on the command that
    runs: a bad variable is then that command's usage error (not every command's, ``status`` and ``--help``
    included), and the option wins over it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.type = _create_catalog_word  # set here: BooleanOptionalAction's own ``type`` argument is deprecated


def add_create_catalog_option(parser: argparse.ArgumentParser, default: bool, why: str) -> None:
    """``--create-catalog`` / ``--no-create-catalog``, the one rule of every command that may make a catalog
    (``serve``, ``import``): whether a ``--db-url`` holding none (a SQLite file that does not exist, a database
    without the catalog schema) gets one or is refused. ``HUDI_METASTORE_CREATE_CATALOG`` sets it for every
    such command; ``default`` when the variable is not set; ``why`` ends the help."""
    parser.add_argument(
        "--create-catalog",
        action=_EnvironmentSwitch,
        default=os.environ.get(CREATE_CATALOG_ENV, default),
        help=f"create the catalog when --db-url has none yet (a new SQLite file, an empty database), or refuse "
        f"such a --db-url; {why} (env {CREATE_CATALOG_ENV}=true|false; default: {str(default).lower()})",
    )


def _number(convert: Callable[[str], float], what: str, zero_allowed: bool) -> Callable[[str], float]:
    """An argparse type: ``convert`` of the text, positive (or zero when ``zero_allowed``)."""

    def parse(text: str) -> float:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if value < 0 or (value == 0 and not zero_allowed):
            raise argparse.ArgumentTypeError(f"must be {'at least 0' if zero_allowed else 'positive'}: {text!r}")
        return value

    return parse


positive_seconds = _number(float, "a number of seconds", zero_allowed=False)
seconds = _number(float, "a number of seconds", zero_allowed=True)
positive_count = _number(int, "a whole number", zero_allowed=False)
count = _number(int, "a whole number", zero_allowed=True)
