"""Pooled MySQL connections: a connection the server closed while it sat idle is replaced, not handed out."""

from __future__ import annotations

import pymysql
import pytest
from sqlalchemy.engine import make_url

from hudi_catalog.errors import StorageError
from hudi_catalog.store.engine import Store


def _connection_id(store: Store) -> int:
    with store.read() as conn:
        return conn.exec_driver_sql("SELECT CONNECTION_ID()").scalar_one()


def _kill(url: str, connection_id: int) -> None:
    parsed = make_url(url)
    admin = pymysql.connect(host=parsed.host, port=parsed.port or 3306, user=parsed.username,
                            password=parsed.password or "", autocommit=True)
    with admin.cursor() as cur:
        cur.execute("KILL CONNECTION %s", (connection_id,))
    admin.close()


def test_idle_connection_killed_by_the_server_is_replaced(mysql_db_url):
    store = Store(mysql_db_url, ping_after_idle=0.0)
    first = _connection_id(store)
    _kill(mysql_db_url, first)
    assert _connection_id(store) != first
    store.engine.dispose()


def test_busy_connection_is_not_pinged(mysql_db_url):
    """Within the idle time the pool trusts the connection: a kill shows as an error of that call only."""
    store = Store(mysql_db_url, ping_after_idle=3600.0)
    first = _connection_id(store)
    _kill(mysql_db_url, first)
    with pytest.raises(StorageError):
        _connection_id(store)
    assert _connection_id(store) != first
    store.engine.dispose()
