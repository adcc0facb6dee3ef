"""Hudi instant times: ``yyyyMMddHHmmssSSS`` strings that order as text the way they order in time.

Example:
    >>> next_instant_time("20240101000000000", now=datetime(2023, 1, 1, tzinfo=timezone.utc))
    '20240101000000001'
    >>> format_instant_time(datetime(2024, 2, 29, 23, 59, 59, 999000, tzinfo=timezone.utc))
    '20240229235959999'
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

INSTANT_TIME_FORMAT = "%Y%m%d%H%M%S"
_INSTANT_TIME = re.compile(r"\d{17}")


def format_instant_time(moment: datetime) -> str:
    """``moment`` as an instant time, in UTC, to the millisecond."""
    moment = moment.astimezone(timezone.utc)
    return moment.strftime(INSTANT_TIME_FORMAT) + f"{moment.microsecond // 1000:03d}"


def is_instant_time(text: str) -> bool:
    """Whether ``text`` has the 17-digit form (Hudi's early sentinel times such as ``00000000000000001``
    included)."""
    return bool(_INSTANT_TIME.fullmatch(text))


def next_instant_time(last: str | None, now: datetime | None = None) -> str:
    """The current time as an instant time, or one millisecond after ``last`` if that is not later."""
    candidate = format_instant_time(now or datetime.now(timezone.utc))
    if last is None or candidate > last:
        return candidate
    if not is_instant_time(last):
        raise ValueError(f"not an instant time: {last!r}")
    parsed = datetime.strptime(last[:14], INSTANT_TIME_FORMAT).replace(
        microsecond=int(last[14:]) * 1000, tzinfo=timezone.utc
    )
    return format_instant_time(parsed + timedelta(milliseconds=1))
