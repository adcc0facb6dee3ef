"""Hive's per-connection metastore configuration (``getMetaConf``/``setMetaConf``).

A client may change, for its own connection, the few keys Hive lets it change (Hive's ``metaConfVars``);
the values hold until the connection closes (kept in its ``ConnectionState``). Two of them change
what this server does: the partition value whitelist pattern and the check of column type changes; the
others are kept and answered, with no effect here (direct SQL is always used, for example).
"""

from __future__ import annotations

from hudi_catalog.call_settings import CallSettings

from . import connection
from .idl import hive

PARTITION_PATTERN_KEY = "hive.metastore.partition.name.whitelist.pattern"
DISALLOW_INCOMPATIBLE_KEY = "hive.metastore.disallow.incompatible.col.type.changes"
EXPRESSION_PROXY_KEY = "hive.metastore.expression.proxy"
MSCK_EXPRESSION_PROXY = "org.apache.hadoop.hive.metastore.MsckPartitionExpressionProxy"
"""The expression proxy HiveServer2's ``MSCK REPAIR TABLE`` sets on its connection before it drops partitions:
their "expressions" are then partition specs as text (``msck_partition_names``)."""
DEFAULTS = {
    "hive.metastore.try.direct.sql": "true",
    "hive.metastore.try.direct.sql.ddl": "true",
    "hive.metastore.client.socket.timeout": "600s",
    PARTITION_PATTERN_KEY: "",
    "hive.metastore.client.capability.check": "true",
    DISALLOW_INCOMPATIBLE_KEY: "true",
    "hive.metastore.partition.order.expr": "false",
    EXPRESSION_PROXY_KEY: "org.apache.hadoop.hive.ql.optimizer.ppr.PartitionExpressionForMetastore",
}
"""The keys Hive lets a connection change (2.3's six, and 4's two more), with this server's values."""
ALIASES = {key.removeprefix("hive."): key for key in DEFAULTS}
"""Hive 3 and 4 name each key without ``hive.`` too (``metastore.expression.proxy``), and take either."""


class ConnectionMetaConf:
    """The metastore configuration of each connection (``connection.current().settings``)."""

    @staticmethod
    def _check(key: str | None) -> str:
        key = ALIASES.get(key or "", key)
        if key not in DEFAULTS:
            raise hive.MetaException(message=f"Invalid configuration key {key}")
        return key

    def get(self, key: str | None) -> str:
        key = self._check(key)
        return connection.current().settings.get(key, DEFAULTS[key])

    def set(self, key: str | None, value: str | None) -> None:
        key = self._check(key)
        connection.current().settings[key] = value or ""

    def settings(self) -> CallSettings:
        """What the connection's values, and the Hive version its calls show, change in the catalog's calls."""
        return CallSettings(
            partition_value_pattern=self.get(PARTITION_PATTERN_KEY) or None,
            check_column_types=self.get(DISALLOW_INCOMPATIBLE_KEY).lower() != "false",
            hive4_client=connection.current().hive4_client,
            record_events=connection.current().records_events,
        )
