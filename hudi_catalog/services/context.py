"""What every service shares: the store, the warehouse and the clock."""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..store.engine import Store
from ..warehouse import Warehouse


@dataclass
class ServiceContext:
    store: Store
    warehouse: Warehouse

    @staticmethod
    def now() -> int:
        """The current time in seconds since the epoch, as Hive records create and DDL times."""
        return int(time.time())


DDL_TIME = "transient_lastDdlTime"
