"""What no console page shows: the values of parameters that hold secrets or storage credentials.

A parameter is taken for a secret by its name (``fs.s3a.secret.key``, ``javax.jdo.option.ConnectionPassword``,
``fs.azure.account.key.<account>``, ``fs.s3a.session.token``, ...): its value is shown as ``HIDDEN``. Event
messages are JSON holding tables and partitions (Hive's carry them as JSON text inside JSON): every object
in them, at any depth, has such values hidden before the page shows it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

HIDDEN = "(hidden)"

_SECRET_NAME = re.compile(
    r"pass(word|wd)?\b|secret|credential|token|private|access[._-]?key|account[._-]?key|session[._-]?key"
    r"|sas[._-]|signature|\.key$|_key$|auth[._-]?info",
    re.IGNORECASE,
)


def is_secret(name: str) -> bool:
    """Whether a parameter of this name is taken to hold a secret."""
    return bool(_SECRET_NAME.search(name))


def shown(parameters: Mapping[str, str]) -> list[tuple[str, str]]:
    """The parameters as a page shows them: sorted by name, secret values hidden."""
    return [(k, HIDDEN if is_secret(k) else v) for k, v in sorted(parameters.items())]


def shown_message(message: str) -> str:
    """An event message with every secret value in it hidden; a message that is not JSON is shown only when
    nothing in it looks like a secret's name."""
    try:
        parsed = json.loads(message)
    except ValueError:
        return HIDDEN if _SECRET_NAME.search(message) else message
    return json.dumps(_hidden(parsed), indent=1, sort_keys=True)


def _hidden(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: HIDDEN if is_secret(str(k)) and not isinstance(v, dict | list) else _hidden(v) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hidden(v) for v in value]
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return _hidden(json.loads(value))
        except ValueError:
            return value
    return value
