"""Charts drawn on the server as inline SVG: a Hudi table's timeline and the health page's small line
charts. No script draws them and nothing is fetched: a page is whole as it arrives, with or without
JavaScript, and each mark names itself in an SVG ``<title>`` (the browser shows it on hover)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from markupsafe import Markup, escape

from hudi_catalog.model import Action, InstantState

from .metrics_history import Series

_LANE_HEIGHT = 22
_LABEL_WIDTH = 110
_PLOT_WIDTH = 900
_AXIS_HEIGHT = 24
ROLLED_BACK_LANE = "rolled back"
_LANES = (
    *(
        a.value
        for a in (
            Action.COMMIT,
            Action.DELTACOMMIT,
            Action.REPLACECOMMIT,
            Action.COMPACTION,
            Action.LOGCOMPACTION,
            Action.CLUSTERING,
            Action.CLEAN,
            Action.ROLLBACK,
            Action.RESTORE,
            Action.SAVEPOINT,
            Action.INDEXING,
        )
    ),
    ROLLED_BACK_LANE,
)


def instant_moment(text: str | None) -> datetime | None:
    """The moment a Hudi instant time names (``yyyyMMddHHmmss`` and milliseconds since 0.9), or None for
    a time that is no moment (the bootstrap's ``00000000000000``)."""
    if not text or len(text) < 14 or not text[:17].isdigit():
        return None
    try:
        moment = datetime.strptime(text[:14], "%Y%m%d%H%M%S")
    except ValueError:
        return None
    return moment + timedelta(milliseconds=int(text[14:17])) if len(text) >= 17 else moment


@dataclass(frozen=True)
class TimelineMark:
    """One instant as the chart draws it, in the lane of its action (``ROLLED_BACK_LANE`` for an instant a
    rollback removed from the timeline): ``status`` is ``completed``, ``inflight``, ``requested``, ``failed``
    (its writer's heartbeat ran out) or ``rolled-back``; ``anchor`` the id of its table row."""

    requested_time: str
    completion_time: str | None
    lane: str
    status: str
    label: str
    anchor: str


def timeline_chart(marks: Sequence[TimelineMark], now: datetime) -> Markup:
    """The instants as bars from their requested time to their completion (to ``now`` while pending), one
    lane per action, coloured by status; each bar links to its row."""
    timed = [(m, instant_moment(m.requested_time)) for m in marks]
    drawn = [(m, start) for m, start in timed if start is not None]
    if not drawn:
        return Markup("")
    ends = {m.requested_time: instant_moment(m.completion_time) or now for m, _ in drawn}
    first = min(start for _, start in drawn)
    last = max(max(ends.values()), max(start for _, start in drawn))
    span = max((last - first).total_seconds(), 1.0)
    lanes = [lane for lane in _LANES if any(m.lane == lane for m, _ in drawn)]
    height = len(lanes) * _LANE_HEIGHT + _AXIS_HEIGHT
    width = _LABEL_WIDTH + _PLOT_WIDTH

    def x(moment: datetime) -> float:
        return _LABEL_WIDTH + _PLOT_WIDTH * (moment - first).total_seconds() / span

    parts = [
        f'<svg class="timeline" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="Timeline of {len(drawn)} instants">'
    ]
    for index, lane in enumerate(lanes):
        y, rule = index * _LANE_HEIGHT, (index + 1) * _LANE_HEIGHT
        parts.append(f'<text class="lane" x="4" y="{y + 15}">{escape(lane)}</text>')
        parts.append(f'<line class="lane-rule" x1="{_LABEL_WIDTH}" y1="{rule}" x2="{width}" y2="{rule}"/>')
    for mark, start in drawn:
        y = lanes.index(mark.lane) * _LANE_HEIGHT + 4
        left = x(start)
        bar = max(x(ends[mark.requested_time]) - left, 3.0)
        parts.append(
            f'<a href="#{escape(mark.anchor)}"><rect class="instant {escape(mark.status)}" x="{left:.1f}" y="{y}" '
            f'width="{bar:.1f}" height="{_LANE_HEIGHT - 8}" data-instant="{escape(mark.requested_time)}">'
            f"<title>{escape(mark.label)}</title></rect></a>"
        )
    axis_y = len(lanes) * _LANE_HEIGHT + 16
    for fraction in (0.0, 0.5, 1.0):
        moment = first + timedelta(seconds=span * fraction)
        anchor = ("start", "middle", "end")[int(fraction * 2)]
        parts.append(
            f'<text class="axis" x="{_LABEL_WIDTH + _PLOT_WIDTH * fraction:.1f}" y="{axis_y}" '
            f'text-anchor="{anchor}">{moment:%Y-%m-%d %H:%M:%S}</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def status_of(state: InstantState, expired: bool, rolled_back: bool) -> str:
    if rolled_back:
        return "rolled-back"
    if state is InstantState.COMPLETED:
        return "completed"
    return "failed" if expired else state.value


def line_chart(series: Series, width: int = 300, height: int = 70) -> Markup:
    """A small line chart of a series over its time span, with its latest and highest values."""
    points = series.points
    title = f"{series.title} ({series.unit})" if series.unit else series.title
    head = (
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg" aria-label="{escape(title)}"><title>{escape(title)}</title>'
    )
    if len(points) < 2:
        return Markup(head + f'<text class="axis" x="4" y="{height // 2}">collecting samples</text></svg>')
    start, end = points[0][0], points[-1][0]
    top = max(v for _, v in points)
    span = max(end - start, 1e-9)
    plot = height - 14
    scale = (plot - 4) / top if top > 0 else 0.0  # all zero: a line along the bottom
    coordinates = " ".join(f"{width * (t - start) / span:.1f},{plot - scale * v:.1f}" for t, v in points)
    return Markup(
        head
        + f'<polyline class="series" fill="none" points="{coordinates}"/>'
        + f'<text class="axis" x="2" y="{height - 2}">max {top:.3g}</text>'
        + f'<text class="axis" x="{width - 2}" y="{height - 2}" text-anchor="end">now {points[-1][1]:.3g}</text>'
        + "</svg>"
    )
