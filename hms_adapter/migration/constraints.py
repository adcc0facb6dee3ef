"""A table's constraints, copied once every table of the run exists (a foreign key names its parent).

Hive 2.3 keeps primary and foreign keys; Hive 3 and later also unique, not-null, default and check
constraints. Constraints the target lacks are added with their own calls (``add_primary_key`` ...);
constraint kinds a Hive 2 target does not keep are refused with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..idl import hive
from .endpoint import Endpoint, TableRef
from .forms import form
from .report import Action, Report


@dataclass(frozen=True)
class _Kind:
    name: str
    read: str
    request: type
    answer_field: str
    add: str
    add_request: type
    add_field: str
    hive3: bool
    """Kept by Hive 3 and later only."""


_KINDS = (
    _Kind(
        "primary key",
        "get_primary_keys",
        hive.PrimaryKeysRequest,
        "primaryKeys",
        "add_primary_key",
        hive.AddPrimaryKeyRequest,
        "primaryKeyCols",
        False,
    ),
    _Kind(
        "foreign key",
        "get_foreign_keys",
        hive.ForeignKeysRequest,
        "foreignKeys",
        "add_foreign_key",
        hive.AddForeignKeyRequest,
        "foreignKeyCols",
        False,
    ),
    _Kind(
        "unique",
        "get_unique_constraints",
        hive.UniqueConstraintsRequest,
        "uniqueConstraints",
        "add_unique_constraint",
        hive.AddUniqueConstraintRequest,
        "uniqueConstraintCols",
        True,
    ),
    _Kind(
        "not null",
        "get_not_null_constraints",
        hive.NotNullConstraintsRequest,
        "notNullConstraints",
        "add_not_null_constraint",
        hive.AddNotNullConstraintRequest,
        "notNullConstraintCols",
        True,
    ),
    _Kind(
        "default",
        "get_default_constraints",
        hive.DefaultConstraintsRequest,
        "defaultConstraints",
        "add_default_constraint",
        hive.AddDefaultConstraintRequest,
        "defaultConstraintCols",
        True,
    ),
    _Kind(
        "check",
        "get_check_constraints",
        hive.CheckConstraintsRequest,
        "checkConstraints",
        "add_check_constraint",
        hive.AddCheckConstraintRequest,
        "checkConstraintCols",
        True,
    ),
)


def read_constraints(side: Endpoint, ref: TableRef) -> dict[str, list[Any]]:
    """The table's constraints by kind, as the side keeps them (the kinds it does not keep are empty)."""
    found: dict[str, list[Any]] = {}
    for kind in _KINDS:
        if kind.hive3 and not side.has_all_constraints:
            found[kind.name] = []
            continue
        found[kind.name] = getattr(side.read(kind.read, _request(kind, ref)), kind.answer_field) or []
    return found


def copy_constraints(source: Endpoint, target: Endpoint, ref: TableRef, report: Report, dry_run: bool) -> None:
    """Add to the target the constraints of the table it lacks."""
    wanted = read_constraints(source, ref)
    if not any(wanted.values()):
        return
    present = read_constraints(target, ref)
    added = []
    for kind in _KINDS:
        have = {_key(c) for c in present[kind.name]}
        missing = [c for c in wanted[kind.name] if _key(c) not in have]
        if not missing:
            continue
        if kind.hive3 and not target.has_all_constraints:
            report.add(
                "constraints", ref.display, Action.REFUSED, f"the target (Hive 2) keeps no {kind.name} constraints"
            )
            continue
        if not dry_run:
            for constraint in missing:
                constraint.catName = None if ref.catalog == "hive" else ref.catalog
            target.write(kind.add, kind.add_request(**{kind.add_field: missing}))
        added.append(f"{len(missing)} {kind.name}")
    if added:
        report.add("constraints", ref.display, Action.CREATED, ", ".join(added))


def _request(kind: _Kind, ref: TableRef) -> Any:
    catalog = ref.catalog
    if kind.request is hive.ForeignKeysRequest:
        return hive.ForeignKeysRequest(foreign_db_name=ref.database, foreign_tbl_name=ref.name, catName=catalog)
    if kind.request is hive.PrimaryKeysRequest:
        return hive.PrimaryKeysRequest(db_name=ref.database, tbl_name=ref.name, catName=catalog)
    return kind.request(catName=catalog, db_name=ref.database, tbl_name=ref.name)


def _key(constraint: Any) -> str:
    return repr(form(constraint))
