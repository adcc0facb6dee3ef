"""What every service shares: the store, the warehouse and the clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..store.engine import Store
from ..warehouse import Warehouse


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class ServiceContext:
    store: Store
    warehouse: Warehouse
    clock: Callable[[], datetime] = field(default=_utc_now)
    """The current time; instant times and Hive's create and DDL times come from it."""

    def now(self) -> int:
        """The current time in seconds since the epoch, as Hive records create and DDL times."""
        return int(self.clock().timestamp())


DDL_TIME = "transient_lastDdlTime"
