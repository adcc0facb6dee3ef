"""What is going on: the live locks, open transactions and pending table services (refreshing), the recent
notification events, and the server's health with its figures over time.

Locks and transactions are authorized as ``show_locks`` and ``get_open_txns_info`` are, events as
``get_next_notification`` (an admin's), health as fb303's ``getStatus``.
"""

from __future__ import annotations

import time
from datetime import datetime

from sqlalchemy.engine import URL
from starlette.requests import Request
from starlette.responses import HTMLResponse

from hudi_catalog.authorization import GLOBAL, Operation
from hudi_catalog.events import StoredEvent
from hudi_catalog.locks.model import HeldLock, LockState, TxnInfo
from hudi_catalog.model import PendingInstant
from hudi_catalog.schema_layout import SchemaState

from .charts import line_chart
from .context import ConsoleContext
from .page import viewer_of
from .redaction import shown_message

REFRESH_SECONDS = 5
"""How often the activity page reloads itself (a meta refresh: no script)."""
EVENTS_PAGE = 50


class ActivityPages:
    def __init__(self, context: ConsoleContext) -> None:
        self.context = context
        self.catalog = context.catalog

    async def activity(self, request: Request) -> HTMLResponse:
        viewer = viewer_of(request)
        await self.context.authorize(viewer, Operation.READ, GLOBAL, "show_locks")

        def read() -> tuple[list[HeldLock], tuple[int, list[TxnInfo]], list[PendingInstant]]:
            return self.catalog.locks.show(), self.catalog.txns.infos(), self.catalog.timeline.pending_table_services()

        locks, (high_water_mark, txns), services = await self.context.run(read, "show_locks")
        refresh = request.query_params.get("refresh", "on") != "off"
        return self.context.page(
            request,
            "activity.html",
            title="Locks, transactions and table services",
            locks=locks,
            txns=txns,
            high_water_mark=high_water_mark,
            services=services,
            refresh=REFRESH_SECONDS if refresh else None,
            moment=_moment_ms,
            now_ms=int(time.time() * 1000),
        )

    async def events(self, request: Request) -> HTMLResponse:
        viewer = viewer_of(request)
        await self.context.authorize(viewer, Operation.ADMIN, GLOBAL, "get_next_notification")
        before = _int(request.query_params.get("before"))

        def read() -> tuple[int, list[StoredEvent]]:
            current = self.catalog.events.current_id()
            last = current if before is None else min(before - 1, current)
            first = max(last - EVENTS_PAGE, 0)
            return current, self.catalog.events.after(first, last - first) if last > 0 else []

        current, found = await self.context.run(read, "get_next_notification")
        found = list(reversed(found))
        return self.context.page(
            request,
            "events.html",
            title="Notification events",
            current=current,
            events=[(e, shown_message(e.message)) for e in found],
            next_before=found[-1].event_id if found and found[-1].event_id > 1 else None,
            moment=lambda seconds: datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M:%S"),
        )

    async def health(self, request: Request) -> HTMLResponse:
        viewer = viewer_of(request)
        await self.context.authorize(viewer, Operation.READ, GLOBAL, "getStatus")
        problem = None
        try:
            status = await self.context.run(self.catalog.schema.status, "getStatus")
            ready = status.state is SchemaState.CURRENT
            if not ready:
                problem = (
                    f"the catalog schema is layout {status.database_version}, this build serves {status.build_version}"
                )
        except Exception as error:  # the page reports an unreachable database, it does not fail with it
            ready, problem = False, f"catalog database unreachable: {type(error).__name__}"

        def counts() -> dict[str, int]:
            locks = self.catalog.locks.counts()
            _, txns = self.catalog.txns.infos()
            return {
                "locks held": locks.get(LockState.ACQUIRED, 0),
                "locks waiting": locks.get(LockState.WAITING, 0),
                "transactions open or aborted": len(txns),
                "newest event id": self.catalog.events.current_id(),
            }

        figures = await self.context.run(counts, "getStatus") if ready else {}
        history = self.context.history
        if history is not None:
            history.sample(at_least_seconds=1.0)
        charts = [(s, line_chart(s)) for s in history.series()] if history is not None else []
        return self.context.page(
            request,
            "health.html",
            title="Health",
            ready=ready,
            problem=problem,
            figures=figures,
            database=_described(self.catalog.store.engine.url),
            charts=charts,
        )


def _described(url: URL) -> str:
    """The catalog database as the page names it: its kind, host and name (no user, password or options)."""
    place = f"{url.host}:{url.port}" if url.host and url.port else url.host or "local file"
    return f"{url.get_backend_name()} at {place}, database {url.database}"


def _moment_ms(ms: int | None) -> str:
    return "" if not ms else datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None
