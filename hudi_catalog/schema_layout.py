"""The catalog database's schema layout as a front end sees it: a database's status against this build's
layout (``SchemaStatus``, ``SchemaState``) and the dialects the upgrade's SQL script is rendered for without
a database (``DIALECTS``). ``services.schema`` finds the status and upgrades."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from sqlalchemy.dialects import mysql, postgresql, sqlite
from sqlalchemy.engine import Dialect

DIALECTS: dict[str, type[Dialect]] = {
    "sqlite": sqlite.dialect,
    "mysql": mysql.dialect,
    "postgresql": postgresql.dialect,
}
"""The dialects ``services.schema.upgrade_sql`` renders for without a database."""


class SchemaState(enum.Enum):
    CURRENT = "current"
    BEHIND = "behind"
    """Older than this build's layout, or empty: ``upgrade`` brings it to this build's."""
    AHEAD = "ahead"
    """Newer than this build's layout: a newer hudi-metastore made it."""


@dataclass(frozen=True)
class SchemaStatus:
    build_version: int
    database_version: int | None
    """None: the database holds no catalog schema."""
    pending: list[str]
    """The names of the migrations ``upgrade`` would apply (``create`` for an empty database)."""

    @property
    def state(self) -> SchemaState:
        if self.database_version is None or self.database_version < self.build_version:
            return SchemaState.BEHIND
        return SchemaState.AHEAD if self.database_version > self.build_version else SchemaState.CURRENT
