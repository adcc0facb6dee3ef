"""Hudi instants on the metaserver protocol: ``THoodieInstant``'s ``TAction`` and ``TState`` codes to and
from the catalog's ``Action`` and ``InstantState``, by the enums' names in the IDL."""

from __future__ import annotations

from hudi_catalog.errors import InvalidOperationError
from hudi_catalog.model import Action, Instant, InstantState

from ..idl import metaserver


def from_thrift_action(code: int) -> Action | None:
    """The action a ``TAction`` code names; None for a code this server does not know."""
    name = metaserver.TAction._VALUES_TO_NAMES.get(code)
    return Action[name] if name in Action.__members__ else None


def from_thrift_state(code: int) -> InstantState | None:
    """The state a ``TState`` code names; None for ``NIL`` and unknown codes."""
    name = metaserver.TState._VALUES_TO_NAMES.get(code)
    return InstantState[name] if name in InstantState.__members__ else None


def from_thrift_instant(thrift_instant) -> tuple[str, Action, InstantState]:
    """(requested time, action, state) of a ``THoodieInstant``; InvalidOperationError when it names none."""
    action = None if thrift_instant is None else from_thrift_action(thrift_instant.action)
    state = None if thrift_instant is None else from_thrift_state(thrift_instant.state)
    if action is None or state is None:
        raise InvalidOperationError(f"not a valid instant: {thrift_instant!r}")
    return thrift_instant.timestamp or "", action, state


def to_thrift_state(state: InstantState) -> int:
    return metaserver.TState._NAMES_TO_VALUES[state.name]


def to_thrift_instant(instant: Instant):
    return metaserver.THoodieInstant(
        timestamp=instant.requested_time,
        action=metaserver.TAction._NAMES_TO_VALUES[Action(instant.action).name],
        state=to_thrift_state(instant.state),
    )
