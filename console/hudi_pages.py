"""A Hudi table's own pages: its timeline drawn over time, its latest file slices, its Iceberg view's
snapshots. Each is authorized as reading the table is (``get_table``)."""

from __future__ import annotations

import time
from datetime import datetime

from starlette.requests import Request
from starlette.responses import HTMLResponse

from hudi_catalog.hudi.file_slices import FileSlice
from hudi_catalog.iceberg_views import ViewState
from hudi_catalog.model import InstantState, InstantSummary, Table

from .charts import ROLLED_BACK_LANE, TimelineMark, instant_moment, status_of, timeline_chart
from .context import ConsoleContext

TIMELINE_PAGE = 200
"""Instants on one timeline page, newest first."""
SLICE_PARTITIONS = 20
"""Partitions whose slices one page shows."""


class HudiPages:
    def __init__(self, context: ConsoleContext) -> None:
        self.context = context
        self.catalog = context.catalog

    async def timeline(self, request: Request) -> HTMLResponse:
        catalog, database, name = await self.context.readable_table(request)
        before = request.query_params.get("before") or None

        def read() -> tuple[Table, list[InstantSummary]]:
            table = self.catalog.tables.get(database, name)
            return table, self.catalog.timeline.summaries(database, name, before, TIMELINE_PAGE + 1)

        table, summaries = await self.context.run(read, "get_timeline", catalog)
        more = len(summaries) > TIMELINE_PAGE
        summaries = summaries[:TIMELINE_PAGE]
        undone = {time for s in summaries for time in s.undid}
        now_s = time.time()
        rows = []
        for summary in summaries:
            instant = summary.instant
            expired = (
                instant.state is not InstantState.COMPLETED
                and instant.heartbeat_seconds > 0
                and instant.last_heartbeat + instant.heartbeat_seconds < now_s
            )
            status = status_of(instant.state, expired, instant.requested_time in undone)
            rows.append((summary, status, _duration(instant.requested_time, instant.completion_time)))
        marks = [
            TimelineMark(
                s.instant.requested_time,
                s.instant.completion_time,
                s.instant.action.value,
                status,
                _label(s, status, duration),
                f"i-{s.instant.requested_time}",
            )
            for s, status, duration in rows
        ]
        listed = {s.instant.requested_time for s in summaries}
        # a rollback removes the instant it undid from the timeline: drawn apart, pointing at the rollback
        removed = [(t, s) for s in summaries for t in s.undid if t not in listed]
        marks += [
            TimelineMark(
                t,
                s.instant.requested_time,
                ROLLED_BACK_LANE,
                "rolled-back",
                f"{t}: rolled back by {s.instant.action.value} {s.instant.requested_time}",
                f"i-{s.instant.requested_time}",
            )
            for t, s in removed
        ]
        return self.context.page(
            request,
            "timeline.html",
            title=f"Timeline of {table.qualified_name}",
            catalog=catalog,
            table=table,
            rows=rows,
            removed=removed,
            chart=timeline_chart(marks, datetime.now()),
            next_before=summaries[-1].instant.requested_time if more and summaries else None,
            before=before,
        )

    async def slices(self, request: Request) -> HTMLResponse:
        catalog, database, name = await self.context.readable_table(request)
        after = request.query_params.get("after") or None
        chosen = request.query_params.get("partition")

        def read() -> tuple[Table, dict[str, list[FileSlice]], bool]:
            table = self.catalog.tables.get(database, name)
            if chosen is not None:
                return table, self.catalog.snapshot.latest_file_slices(database, name, chosen), False
            paths = self.catalog.snapshot.partition_paths(database, name)
            later = [p for p in paths if after is None or p > after]
            shown = later[:SLICE_PARTITIONS]
            found = {p: self.catalog.snapshot.latest_file_slices(database, name, p)[p] for p in shown}
            return table, found, len(later) > len(shown)

        table, by_partition, more = await self.context.run(read, "get_file_slices", catalog)
        return self.context.page(
            request,
            "slices.html",
            title=f"Latest file slices of {table.qualified_name}",
            catalog=catalog,
            table=table,
            by_partition=by_partition,
            chosen=chosen,
            next_after=list(by_partition)[-1] if more and by_partition else None,
        )

    async def snapshots(self, request: Request) -> HTMLResponse:
        catalog, database, name = await self.context.readable_table(request)

        def read() -> tuple[Table, ViewState | None]:
            return self.catalog.tables.get(database, name), self.catalog.iceberg_views.state(database, name)

        table, view = await self.context.run(read, "get_iceberg_view", catalog)
        return self.context.page(
            request,
            "snapshots.html",
            title=f"Iceberg view of {table.qualified_name}",
            catalog=catalog,
            table=table,
            view=view,
            snapshots=list(reversed(view.snapshots)) if view else [],
            moment=lambda ms: datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S"),
        )


def _duration(requested: str, completed: str | None) -> float | None:
    """Seconds from an instant's request to its completion, when both are moments in that order (a table
    before version 8 names no completion time: it is its file's modification time, which a copy of the
    table's files may have moved)."""
    start, end = instant_moment(requested), instant_moment(completed)
    if start is None or end is None or end < start:
        return None
    return (end - start).total_seconds()


def _label(summary: InstantSummary, status: str, duration: float | None) -> str:
    instant = summary.instant
    parts = [f"{instant.action.value} {instant.requested_time}: {status}"]
    if duration is not None:
        parts.append(f"{duration:.3f} s")
    if summary.operation:
        parts.append(summary.operation)
    if summary.files_written is not None:
        parts.append(f"{summary.files_written} files, {summary.records_written} records written")
    if summary.files_deleted:
        parts.append(f"{summary.files_deleted} files deleted")
    if summary.undid:
        parts.append("undid " + ", ".join(summary.undid))
    return "; ".join(parts)
