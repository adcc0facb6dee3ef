"""The ``transactional`` table property as Hive Metastore settles it on create and alter (Hive's
transactional validation listener, whose rules and messages clients see).

On create, ``transactional=false`` (any case of key or value) is dropped: its absence means the same, and
Hive Metastore never stores it (Trino sends it with every ``CREATE TABLE``). ``true`` is stored as
``transactional=true``; another value is refused. On alter, as Hive 4, ``false`` again counts as absent
(also on tables stored before this rule, which may hold it); a table may become transactional, never stop
being so. A table made transactional must be managed and, unless it is insert-only, stored in an ACID format
(ORC).
"""

from __future__ import annotations

from ..errors import TransactionalPropertyError
from ..model import EXTERNAL_TABLE, Table

TRANSACTIONAL = "transactional"
TRANSACTIONAL_PROPERTIES = "transactional_properties"
INSERT_ONLY = "insert_only"
ACID_INPUT_FORMATS = frozenset({"org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"})
ACID_OUTPUT_FORMATS = frozenset({"org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat"})
"""The formats implementing Hive's ``AcidInputFormat``/``AcidOutputFormat``."""


def _take(parameters: dict[str, str]) -> str | None:
    """Remove every spelling of the ``transactional`` key; its value, with ``false`` read as absent."""
    value = None
    for key in [k for k in parameters if k.lower() == TRANSACTIONAL]:
        value = parameters.pop(key)
    return None if value is None or value.lower() == "false" else value


def _stored(parameters: dict[str, str]) -> str | None:
    return next(
        (v for k, v in parameters.items() if k.lower() == TRANSACTIONAL and v.lower() != "false"),
        None,
    )


def _check_can_become_transactional(table: Table) -> None:
    if table.table_type == EXTERNAL_TABLE:
        raise TransactionalPropertyError(
            f"{table.qualified_name} cannot be declared transactional because it's an external table"
        )
    insert_only = table.parameters.get(TRANSACTIONAL_PROPERTIES, "").lower() == INSERT_ONLY
    acid_format = table.sd.input_format in ACID_INPUT_FORMATS and table.sd.output_format in ACID_OUTPUT_FORMATS
    if not insert_only and not acid_format:
        raise TransactionalPropertyError(
            f"The table must be stored using an ACID compliant format (such as ORC): {table.qualified_name}"
        )


def settle_on_create(table: Table) -> None:
    """Settle ``table.parameters``' ``transactional`` key for a new table, in place.

    Raises:
        TransactionalPropertyError: a value other than true or false, or a table that cannot be transactional.
    """
    value = _take(table.parameters)
    if value is None:
        return
    if value.lower() != "true":
        raise TransactionalPropertyError(
            f"'transactional' property of TBLPROPERTIES may only have value 'true': {table.qualified_name}"
        )
    table.parameters[TRANSACTIONAL] = "true"
    _check_can_become_transactional(table)


def settle_on_alter(old: Table, new: Table) -> None:
    """Settle ``new.parameters``' ``transactional`` key for an alter of ``old``, in place.

    Raises:
        TransactionalPropertyError: a transactional table made non-transactional (Hive's "cannot be unset"),
            or a table made transactional that cannot be.
    """
    value = _take(new.parameters)
    before = _stored(old.parameters)
    if value is not None:
        new.parameters[TRANSACTIONAL] = value
    if value is not None and value.lower() == "true" and (before or "").lower() != "true":
        _check_can_become_transactional(new)
        return
    unchanged = before.lower() == value.lower() if before is not None and value is not None else before == value
    insert_only = old.parameters.get(TRANSACTIONAL_PROPERTIES, "").lower() == INSERT_ONLY
    if not unchanged and not insert_only:
        raise TransactionalPropertyError(
            f"TBLPROPERTIES with 'transactional'='true' cannot be unset: {new.qualified_name}"
        )
