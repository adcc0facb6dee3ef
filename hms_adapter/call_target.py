"""The object a Hive Metastore call names: its catalog, database, table and partition, worked out once per call.

The processor reads it from the call's arguments before the call runs; the catalog scope, the authorization
check and the audit log all use that one answer, so they cannot disagree about what a call acts on.

Hive's calls name their object in one of two ways:
- as leading string arguments, the database then the table (``get_table(dbname, tbl_name)``);
- inside a request struct, or a struct within it (``GetTableRequest.dbName``/``tblName``,
  ``AddPartitionsRequest``, a ``Table`` whose ``dbName`` it carries, a list of partitions: its first one).

Hive 3+ clients may prefix a database name with its catalog, ``@<catalog>#<database>``; a request struct
may instead carry the catalog in a field of its own (``catName``).

A call names one partition by its values (``get_partition(db, tbl, part_vals)``, a ``Partition`` struct as
``add_partition(new_part)`` sends it, ``GetPartitionRequest.partVals``) or by its name
(``get_partition_by_name(db, tbl, part_name)``); the ``_ps`` calls name a partial list of values, which
stands for the partitions it matches. The arguments are told apart by their IDL names, since a third string
argument is a partition's name in one call and a filter or a column in others.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .convert.names import catalog_of_name, strip_catalog

CATALOG_FIELDS = ("catName", "catalogName", "catalog", "hive3CatName")
"""Fields of Hive 3/4 structs that name the catalog of a call."""
DATABASE_FIELDS = (
    "dbName",
    "db_name",
    "dbname",
    "databaseName",
    "table_db",
    "database",
    "db",
    "oldDbName",
    "foreign_db_name",
    "parent_db_name",
    "name",
)
"""Fields that name the database of a struct, in the order they are looked for (``name``: a ``Database``
struct, or a request naming a database, such as ``GetDatabaseRequest``)."""
TABLE_FIELDS = ("tblName", "tableName", "tbl_name", "tablename", "table_name", "foreign_tbl_name", "parent_tbl_name")
"""Fields that name the table of a struct that names a database."""
SEARCH_DEPTH = 3
"""How deep into nested structs the names are looked for."""
PARTITION_VALUE_ARGUMENTS = ("part_vals",)
"""Arguments (and request struct fields, below) holding the values of the partition a call names."""
PARTITION_VALUE_FIELDS = ("partVals", "partValues", "part_vals")
PARTITION_NAME_ARGUMENTS = ("part_name",)
PARTITION_NAME_FIELDS = ("partName", "part_name", "partitionName")
PARTITION_STRUCT_ARGUMENTS = ("new_part", "part", "partition")
"""Arguments that are one ``Partition`` struct (its ``values`` name it)."""


@dataclass(frozen=True)
class CallTarget:
    """What a call names. ``database`` is without its catalog prefix (``None`` when the call names none, or
    names a whole catalog, ``@hive#``); ``database_as_named`` is the name as the call sent it."""

    catalog: str | None
    """The catalog named by a prefix or a catalog field; ``None``: the default one."""
    database_as_named: str | None
    table: str | None
    partition_values: tuple[str, ...] | None = None
    """The values of the partition the call names (a partial list for the ``_ps`` calls)."""
    partition_name: str | None = None
    """The name (``k1=v1/k2=v2``) of the partition the call names, as sent."""

    @property
    def database(self) -> str | None:
        return strip_catalog(self.database_as_named) if self.database_as_named else None

    def describe(self) -> str:
        """``db``, ``db.table`` or ``-``: the object as the audit log names it."""
        if not self.database_as_named:
            return "-"
        names = [self.database or self.database_as_named, *([self.table] if self.table else [])]
        return ".".join(names)

    def describe_partition(self) -> str | None:
        """The partition as the audit log names it: its name, or its values as ``[v1,v2]``; ``None``."""
        if self.partition_name is not None:
            return self.partition_name
        if self.partition_values is not None:
            return "[" + ",".join(self.partition_values) + "]"
        return None


def target_of_call(args: Sequence, names: Sequence[str] = ()) -> CallTarget:
    """The catalog, database, table and partition a call's arguments (in IDL order, named ``names``) name."""
    catalog = next(filter(None, (_catalog_in(value, SEARCH_DEPTH) for value in args)), None)
    database: str | None
    table: str | None
    if args and isinstance(args[0], str):
        database, table = args[0], args[1] if len(args) > 1 and isinstance(args[1], str) else None
    else:
        database, table = next(
            (found for found in (_names_in(value, SEARCH_DEPTH) for value in args) if found[0]), (None, None)
        )
    values, name = _partition_in(args, names)
    return CallTarget(catalog, database, table, values, name)


def _partition_in(args: Sequence, names: Sequence[str]) -> tuple[tuple[str, ...] | None, str | None]:
    """The values or the name of the partition the arguments name (``(None, None)``: none)."""
    for value, name in zip(args, names):
        if name in PARTITION_VALUE_ARGUMENTS and _strings(value):
            return tuple(value), None
        if name in PARTITION_NAME_ARGUMENTS and isinstance(value, str):
            return None, value
        if name in PARTITION_STRUCT_ARGUMENTS and _strings(getattr(value, "values", None)):
            return tuple(value.values), None
    for value in args:
        found = _partition_fields_in(value, SEARCH_DEPTH)
        if found != (None, None):
            return found
    return None, None


def _partition_fields_in(value, depth: int) -> tuple[tuple[str, ...] | None, str | None]:
    """The partition a request struct names in its fields, or one of a struct inside it
    (``ColumnStatistics.statsDesc.partName``); not one of a list's (a call about many partitions)."""
    for struct in _structs(value, depth, into_lists=False):
        found = next((getattr(struct, f) for f in PARTITION_VALUE_FIELDS if _strings(getattr(struct, f, None))), None)
        if found is not None:
            return tuple(found), None
        named = _first_string(struct, PARTITION_NAME_FIELDS)
        if named is not None:
            return None, named
    return None, None


def _strings(value) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _names_in(value, depth: int) -> tuple[str | None, str | None]:
    """The database and table a struct names: its own fields, else those of the first struct inside it that
    names a database."""
    for struct in _structs(value, depth, into_lists=True):
        database = _first_string(struct, DATABASE_FIELDS)
        if database is not None:
            return database, _first_string(struct, TABLE_FIELDS)
    return None, None


def _structs(value, depth: int, into_lists: bool) -> Iterator:
    """``value`` if it is a struct, then the structs inside it, each before those it holds, down to ``depth``
    levels; with ``into_lists``, a list stands for its first element."""
    if isinstance(value, list):
        if into_lists and value:
            yield from _structs(value[0], depth, into_lists)
        return
    spec = getattr(value, "thrift_spec", None)
    if spec is None or depth == 0:
        return
    yield value
    for item in spec.values():
        yield from _structs(getattr(value, item[1], None), depth - 1, into_lists)


def _catalog_in(value, depth: int) -> str | None:
    """The catalog a value names: a prefixed database name, or a struct's catalog field (or one of a struct
    inside it)."""
    if isinstance(value, str):
        return catalog_of_name(value)
    if isinstance(value, list):
        return _catalog_in(value[0], depth) if value else None
    spec = getattr(value, "thrift_spec", None)
    if spec is None or depth == 0:
        return None
    named = _first_string(value, CATALOG_FIELDS, nonempty=True)
    if named is not None:
        return named
    for field in DATABASE_FIELDS:
        named = getattr(value, field, None)
        marked = catalog_of_name(named) if isinstance(named, str) else None
        if marked:
            return marked
    for item in spec.values():
        nested = getattr(value, item[1], None)
        if nested is not None and not isinstance(nested, (str, bytes, int, float, dict)):
            found = _catalog_in(nested, depth - 1)
            if found:
                return found
    return None


def _first_string(struct, fields: Sequence[str], nonempty: bool = False) -> str | None:
    for field in fields:
        value = getattr(struct, field, None)
        if isinstance(value, str) and (value or not nonempty):
            return value
    return None
