"""Hive's ``SQLPrimaryKey``, ``SQLForeignKey``, ``SQLUniqueConstraint``, ``SQLNotNullConstraint``,
``SQLDefaultConstraint`` and ``SQLCheckConstraint`` to and from ``TableConstraint``."""

from __future__ import annotations

from collections.abc import Iterable

from hudi_catalog.catalog_scope import current_catalog
from hudi_catalog.model import ConstraintKind, TableConstraint

from ..idl import hive
from .names import strip_catalog


def _flags(c) -> dict:
    return {"enable": bool(c.enable_cstr), "validate": bool(c.validate_cstr), "rely": bool(c.rely_cstr)}


def from_thrift_constraints(
    primary_keys=None, foreign_keys=None, unique=None, not_null=None, defaults=None, checks=None
) -> list[TableConstraint]:
    """The constraints of any of the six lists (None for a list not given)."""
    found = [
        TableConstraint(
            ConstraintKind.PRIMARY_KEY,
            c.pk_name,
            strip_catalog(c.table_db) or "",
            c.table_name,
            c.column_name,
            c.key_seq or 1,
            **_flags(c),
        )
        for c in primary_keys or []
    ]
    found += [
        TableConstraint(
            ConstraintKind.FOREIGN_KEY,
            c.fk_name,
            strip_catalog(c.fktable_db) or "",
            c.fktable_name,
            c.fkcolumn_name,
            c.key_seq or 1,
            **_flags(c),
            parent_database=strip_catalog(c.pktable_db),
            parent_table=c.pktable_name,
            parent_column=c.pkcolumn_name,
            parent_key_name=c.pk_name,
            update_rule=c.update_rule or 0,
            delete_rule=c.delete_rule or 0,
        )
        for c in foreign_keys or []
    ]
    found += [
        TableConstraint(
            ConstraintKind.UNIQUE,
            c.uk_name,
            strip_catalog(c.table_db) or "",
            c.table_name,
            c.column_name,
            c.key_seq or 1,
            **_flags(c),
        )
        for c in unique or []
    ]
    found += [
        TableConstraint(
            ConstraintKind.NOT_NULL,
            c.nn_name,
            strip_catalog(c.table_db) or "",
            c.table_name,
            c.column_name,
            **_flags(c),
        )
        for c in not_null or []
    ]
    found += [
        TableConstraint(
            ConstraintKind.DEFAULT,
            c.dc_name,
            strip_catalog(c.table_db) or "",
            c.table_name,
            c.column_name,
            **_flags(c),
            value=c.default_value,
        )
        for c in defaults or []
    ]
    found += [
        TableConstraint(
            ConstraintKind.CHECK,
            c.dc_name,
            strip_catalog(c.table_db) or "",
            c.table_name,
            c.column_name,
            **_flags(c),
            value=c.check_expression,
        )
        for c in checks or []
    ]
    return found


def _thrift_flags(c: TableConstraint) -> dict:
    return {"enable_cstr": c.enable, "validate_cstr": c.validate, "rely_cstr": c.rely}


def to_thrift_primary_keys(constraints: Iterable[TableConstraint]) -> list:
    return [
        hive.SQLPrimaryKey(
            table_db=c.database,
            table_name=c.table,
            column_name=c.column,
            key_seq=c.position,
            pk_name=c.name,
            catName=current_catalog(),
            **_thrift_flags(c),
        )
        for c in constraints
    ]


def to_thrift_foreign_keys(constraints: Iterable[TableConstraint]) -> list:
    return [
        hive.SQLForeignKey(
            pktable_db=c.parent_database,
            pktable_name=c.parent_table,
            pkcolumn_name=c.parent_column,
            fktable_db=c.database,
            fktable_name=c.table,
            fkcolumn_name=c.column,
            key_seq=c.position,
            update_rule=c.update_rule,
            delete_rule=c.delete_rule,
            fk_name=c.name,
            pk_name=c.parent_key_name,
            catName=current_catalog(),
            **_thrift_flags(c),
        )
        for c in constraints
    ]


def to_thrift_unique(constraints: Iterable[TableConstraint]) -> list:
    return [
        hive.SQLUniqueConstraint(
            catName=current_catalog(),
            table_db=c.database,
            table_name=c.table,
            column_name=c.column,
            key_seq=c.position,
            uk_name=c.name,
            **_thrift_flags(c),
        )
        for c in constraints
    ]


def to_thrift_not_null(constraints: Iterable[TableConstraint]) -> list:
    return [
        hive.SQLNotNullConstraint(
            catName=current_catalog(),
            table_db=c.database,
            table_name=c.table,
            column_name=c.column,
            nn_name=c.name,
            **_thrift_flags(c),
        )
        for c in constraints
    ]


def to_thrift_defaults(constraints: Iterable[TableConstraint]) -> list:
    return [
        hive.SQLDefaultConstraint(
            catName=current_catalog(),
            table_db=c.database,
            table_name=c.table,
            column_name=c.column,
            default_value=c.value,
            dc_name=c.name,
            **_thrift_flags(c),
        )
        for c in constraints
    ]


def to_thrift_checks(constraints: Iterable[TableConstraint]) -> list:
    return [
        hive.SQLCheckConstraint(
            catName=current_catalog(),
            table_db=c.database,
            table_name=c.table,
            column_name=c.column,
            check_expression=c.value,
            dc_name=c.name,
            **_thrift_flags(c),
        )
        for c in constraints
    ]


TO_THRIFT = {
    ConstraintKind.PRIMARY_KEY: to_thrift_primary_keys,
    ConstraintKind.FOREIGN_KEY: to_thrift_foreign_keys,
    ConstraintKind.UNIQUE: to_thrift_unique,
    ConstraintKind.NOT_NULL: to_thrift_not_null,
    ConstraintKind.DEFAULT: to_thrift_defaults,
    ConstraintKind.CHECK: to_thrift_checks,
}
"""Each kind's conversion to its Thrift struct list."""
