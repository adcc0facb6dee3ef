"""A Hudi table's timeline driven through Hudi's metaserver protocol, instant by instant, as its writer made
it: the instants on the wire, and the replay of a whole table into the catalog behind a metaserver client."""

from __future__ import annotations

from datetime import datetime, timezone

from hms_adapter.idl import metaserver as ms
from hudi_catalog.hudi.properties import read_table_config
from hudi_catalog.hudi.storage import open_path
from hudi_catalog.hudi.timeline_source import timeline_entries
from hudi_catalog.model import InstantState

REQUESTED, INFLIGHT, COMPLETED = InstantState.REQUESTED, InstantState.INFLIGHT, InstantState.COMPLETED


def at(instant_time: str) -> datetime:
    return datetime.strptime(instant_time[:14], "%Y%m%d%H%M%S").replace(
        microsecond=int(instant_time[14:]) * 1000, tzinfo=timezone.utc
    )


def wire_state(state) -> int:
    """A state's code on the metaserver protocol, by its name in the IDL."""
    return ms.TState._NAMES_TO_VALUES[state.name]


def thrift_instant(ts: str, action: str, state: InstantState):
    return ms.THoodieInstant(timestamp=ts, action=ms.TAction._NAMES_TO_VALUES[action.upper()], state=wire_state(state))


def replay(catalog, client, base, database: str, partition_keys) -> None:
    """Create table ``<database>.t`` through the metaserver and drive every instant of the Hudi table at
    ``base`` through it, in the order its writer made them, at the server clock of each instant."""
    fs, path = open_path(str(base))
    config = read_table_config(fs, path)
    client.createDatabase(database)
    client.createTable(
        ms.Table(
            tableName="t",
            databaseName=database,
            owner="writer",
            createTime=0,
            location=f"file:{base}",
            tableType=config.table_type,
            partitionKeys=[ms.FieldSchema(name=k.name, type=k.type, comments=None) for k in partition_keys],
            parameters={"hoodie.table.version": str(config.version)},
        )
    )
    events = []
    for entry in timeline_entries(fs, path, config):
        instant, metadata = entry.instant, entry.read(fs, path, config)
        events.append((instant.requested_time, 0, instant, metadata))
        if instant.state is COMPLETED:
            events.append((instant.completion_time or instant.requested_time, 1, instant, metadata))
    for moment, kind, instant, metadata in sorted(events, key=lambda e: e[:2]):
        catalog.ctx.clock = lambda moment=moment: at(moment)
        ts, action = instant.requested_time, instant.action
        if kind == 0:
            first = REQUESTED if REQUESTED in metadata or INFLIGHT not in metadata else INFLIGHT
            client.createNewInstantWithTime(database, "t", thrift_instant(ts, action, first), metadata.get(first, b""))
            if first is REQUESTED and instant.state is not REQUESTED:
                client.transitionInstantState(
                    database,
                    "t",
                    thrift_instant(ts, action, REQUESTED),
                    thrift_instant(ts, action, INFLIGHT),
                    metadata.get(INFLIGHT, b""),
                )
        else:
            result = client.transitionInstantState(
                database,
                "t",
                thrift_instant(ts, action, INFLIGHT),
                thrift_instant(ts, action, COMPLETED),
                metadata.get(COMPLETED, b""),
            )
            assert result.success and result.instant.state == wire_state(COMPLETED)
