"""Settings a client may change for its own calls (Hive's ``setMetaConf``), in scope for one call.

Example:
    >>> current_settings().check_column_types
    True
    >>> with settings_scope(CallSettings(check_column_types=False)):
    ...     current_settings().check_column_types
    False
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class CallSettings:
    partition_value_pattern: str | None = None
    """A regular expression every partition value must match whole (Hive's
    ``hive.metastore.partition.name.whitelist.pattern``); None: any value."""
    check_column_types: bool = True
    """Refuse column type changes Hive cannot convert implicitly (Hive's
    ``hive.metastore.disallow.incompatible.col.type.changes``)."""
    hive4_client: bool = False
    """The client speaks Hive 4 (it made a call only Hive 4 clients make): with ``LikeRule.AUTO``, its
    partition filters' ``LIKE`` patterns are read as Hive Metastore 4 reads them."""
    record_events: bool = True
    """Changes log their notification events. A copy from another metastore (``hudi-metastore copy``) turns
    them off: the source logged them, and its consumers must not see them twice."""


_current: ContextVar[CallSettings] = ContextVar("hudi_metastore_call_settings", default=CallSettings())


def current_settings() -> CallSettings:
    return _current.get()


@contextmanager
def settings_scope(settings: CallSettings) -> Iterator[CallSettings]:
    token = _current.set(settings)
    try:
        yield settings
    finally:
        _current.reset(token)
