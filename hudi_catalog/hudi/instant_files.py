"""The names of a Hudi timeline's instant files, and the action and state vocabulary they use.

File names (``<ts>`` is a requested time, ``yyyyMMddHHmmssSSS``):

- every version: ``<ts>.<action>.requested`` and ``<ts>.<action>.inflight``, except an inflight
  ``commit``, which is ``<ts>.inflight``;
- table versions 6 and earlier (timeline layout 1, in ``.hoodie/``): completed is ``<ts>.<action>``;
  clustering is written with the ``replacecommit`` names;
- table versions 8 and later (layout 2, in ``.hoodie/timeline/``): completed is
  ``<ts>_<completion ts>.<action>``; clustering has its own ``clustering`` pending names;
- on both layouts a completed ``compaction`` is a ``commit``, a completed ``logcompaction`` a
  ``deltacommit`` and a completed ``clustering`` a ``replacecommit`` (:attr:`Action.completed_as`).

The actions and states are :class:`hudi_catalog.model.Action` and :class:`hudi_catalog.model.InstantState`.

Layout 1 names carry no completion time; :mod:`hudi_catalog.hudi.active_timeline` supplies it.

Example:
    >>> done = parse_instant_file_name("20240103153000123_20240103153001456.deltacommit", 8)
    >>> done.requested_time, done.completion_time, done.action.value, done.state.value
    ('20240103153000123', '20240103153001456', 'deltacommit', 'completed')
    >>> parse_instant_file_name("20240103153000123.inflight", 6).action
    <Action.COMMIT: 'commit'>
    >>> parse_instant_file_name(done.file_name, 8) == done
    True
    >>> parse_instant_file_name("hoodie.properties", 6) is None
    True
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from ..model import Action, Instant, InstantState
from .properties import FIRST_LAYOUT_2_VERSION

log = logging.getLogger(__name__)

_STATE_ORDER = {InstantState.REQUESTED: 0, InstantState.INFLIGHT: 1, InstantState.COMPLETED: 2}


@dataclass(frozen=True)
class InstantFile:
    """One state of one instant, as found on storage.

    ``file_name`` is the file's name in the timeline folder; for an archived instant it is
    ``<container file, relative to the base path>#<the instant's active-timeline name>``.
    """

    requested_time: str
    action: Action
    state: InstantState
    completion_time: str | None
    file_name: str

    @property
    def is_completed(self) -> bool:
        return self.state is InstantState.COMPLETED

    @classmethod
    def of(cls, instant: Instant, table_version: int) -> InstantFile:
        """The file of a catalog instant's state, as Hudi names it: for decoding its metadata and naming it in
        errors."""
        name = instant_file_name(
            instant.requested_time, instant.action, instant.state, table_version, instant.completion_time
        )
        return cls(instant.requested_time, instant.action, instant.state, instant.completion_time, name)

    def sort_key(self) -> tuple[str, int, str]:
        """Timeline order: requested time, then requested < inflight < completed."""
        return self.requested_time, _STATE_ORDER[self.state], self.action


_NAME = re.compile(
    r"(?P<requested>\d+)(?:_(?P<completion>\d+))?\.(?P<action>[a-z]+)(?:\.(?P<state>requested|inflight))?"
)


def instant_file_name(
    requested_time: str, action: Action, state: InstantState, table_version: int, completion_time: str | None = None
) -> str:
    """The file name Hudi gives this instant state (the inverse of :func:`parse_instant_file_name`).

    >>> instant_file_name("20240101000000000", Action.CLUSTERING, InstantState.REQUESTED, 6)
    '20240101000000000.replacecommit.requested'
    >>> instant_file_name("20240101000000000", Action.COMPACTION, InstantState.COMPLETED, 9, "20240101000001000")
    '20240101000000000_20240101000001000.commit'
    """
    layout_2 = table_version >= FIRST_LAYOUT_2_VERSION
    if state is InstantState.COMPLETED:
        stamp = f"{requested_time}_{completion_time}" if layout_2 and completion_time else requested_time
        return f"{stamp}.{Action(action).completed_as.value}"
    if action == Action.COMMIT and state is InstantState.INFLIGHT:
        return f"{requested_time}.inflight"
    if action == Action.CLUSTERING and not layout_2:
        action = Action.REPLACECOMMIT
    return f"{requested_time}.{Action(action).value}.{state.value}"


def parse_instant_file_name(name: str, table_version: int) -> InstantFile | None:
    """The instant a timeline file name stands for; ``None`` for any other file (``hoodie.properties``,
    folders, ``.crc`` files, unknown actions). A completed layout 1 name gets no completion time here."""
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    requested, completion, action_name, state = match.group("requested", "completion", "action", "state")
    if action_name == "inflight" and state is None:
        action, parsed_state = Action.COMMIT, InstantState.INFLIGHT
    else:
        try:
            action = Action(action_name)
        except ValueError:
            log.debug("ignoring timeline file %s: unknown action %r", name, action_name)
            return None
        parsed_state = InstantState(state) if state else InstantState.COMPLETED
    layout_2 = table_version >= FIRST_LAYOUT_2_VERSION
    if completion is not None and (parsed_state is not InstantState.COMPLETED or not layout_2):
        return None
    return InstantFile(requested, action, parsed_state, completion, name)
