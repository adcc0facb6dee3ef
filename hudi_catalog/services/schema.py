"""The catalog database's schema layout: its status against this build's, the upgrade, and the upgrade's
SQL script for a DBA (``hudi-metastore schema status | upgrade | sql``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.engine import Dialect

from ..errors import SchemaVersionError
from ..schema_layout import DIALECTS, SchemaStatus
from ..store import migrations
from ..store.engine import Store
from ..store.schema import SCHEMA_VERSION

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class UpgradeResult:
    from_version: int | None
    to_version: int
    applied: list[str]


class SchemaService:
    """The schema of one catalog database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @classmethod
    def connect(cls, db_url: str) -> SchemaService:
        """The schema of the database at ``db_url``, without a catalog over it (``close`` when done)."""
        return cls(Store(db_url))

    def close(self) -> None:
        self.store.dispose()

    def status(self) -> SchemaStatus:
        version = self.store.schema_version()
        pending = [] if version is not None and version >= SCHEMA_VERSION else migrations.pending(version)
        return SchemaStatus(SCHEMA_VERSION, version, [m.name for m in pending])

    def upgrade(self) -> UpgradeResult:
        """Create or migrate the schema to this build's layout (several processes at once take turns).

        Raises:
            SchemaVersionError: the database's layout is newer than this build's.
        """
        found, applied = self.store.init_schema(upgrade=True)
        return UpgradeResult(found, SCHEMA_VERSION, [m.name for m in applied])

    def upgrade_sql(self, from_version: int | None = None) -> str:
        """The upgrade's script for this database's dialect, from its layout (or ``from_version``)."""
        found = self.store.schema_version() if from_version is None else from_version
        return upgrade_sql(self.store.engine.dialect, found)


def empty_database_status() -> SchemaStatus:
    """The status of a database that holds no catalog schema, known without connecting to it (connecting to a
    SQLite file that does not exist would create it)."""
    return SchemaStatus(SCHEMA_VERSION, None, [migrations.CREATION.name])


def upgrade_sql(dialect: Dialect | str, from_version: int | None) -> str:
    """The SQL script that brings a database of layout ``from_version`` (None or 0: empty) to this build's.

    Raises:
        SchemaVersionError: ``from_version`` is newer than this build's layout or older than the oldest.
        NoSqlFormError: a pending migration computes values in Python.
    """
    if isinstance(dialect, str):
        if dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {dialect!r}; one of {', '.join(DIALECTS)}")
        dialect = DIALECTS[dialect]()
    if from_version == 0:
        from_version = None
    oldest = migrations.MIGRATIONS[0].version - 1
    if from_version is not None and not oldest <= from_version <= SCHEMA_VERSION:
        raise SchemaVersionError(
            f"layout {from_version} is not one this build upgrades from ({oldest} to {SCHEMA_VERSION})"
        )
    start = "an empty database" if from_version is None else f"layout {from_version}"
    header = [
        f"hudi-metastore schema upgrade from {start} to layout {SCHEMA_VERSION} ({dialect.name}).",
        "Review, then apply with the database's own client; nothing has been changed yet.",
    ]
    return migrations.render_sql(dialect, from_version, header)
