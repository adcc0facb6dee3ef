"""What an instant did, in a few figures: the summaries a timeline page draws (``TimelineService.summaries``).

A completed write's commit metadata gives the files, records and bytes it wrote; a clean's and a rollback's
the files they deleted; a rollback's and a restore's the instants they undid. Pending instants have no
completed metadata, and a summary of metadata that cannot be decoded names the problem instead of failing
the whole page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import HudiMetadataError
from ..hudi.instant_files import InstantFile
from ..hudi.metadata import CleanMetadata, CommitMetadata, RestoreMetadata, RollbackMetadata, decode_instant
from ..model import Instant, InstantState, InstantSummary


def summarize(instants: Sequence[Instant], completed: Mapping[str, bytes], table_version: int) -> list[InstantSummary]:
    """A summary of each instant, from ``completed``: the completed metadata by requested time."""
    return [_summary(i, completed.get(i.requested_time), table_version) for i in instants]


def _summary(instant: Instant, data: bytes | None, table_version: int) -> InstantSummary:
    if instant.state is not InstantState.COMPLETED or data is None:
        return InstantSummary(instant)
    try:
        decoded = decode_instant(InstantFile.of(instant, table_version), data, table_version)
    except HudiMetadataError as error:
        return InstantSummary(instant, problem=str(error))
    if isinstance(decoded, CommitMetadata):
        stats = decoded.write_stats
        return InstantSummary(
            instant,
            operation=decoded.operation_type,
            files_written=len({s.path for s in stats if s.path}),
            records_written=sum(s.num_writes for s in stats),
            records_deleted=sum(s.num_deletes for s in stats),
            bytes_written=sum(s.file_size for s in stats),
        )
    if isinstance(decoded, CleanMetadata):
        return InstantSummary(instant, files_deleted=sum(len(f) for f in decoded.deleted_files.values()))
    if isinstance(decoded, RollbackMetadata):
        return _undoing(instant, decoded.rolled_back_instants, [decoded])
    if isinstance(decoded, RestoreMetadata):
        return _undoing(instant, decoded.rolled_back_instants, decoded.rollbacks)
    return InstantSummary(instant)


def _undoing(instant: Instant, undid: Sequence[str], rollbacks: Sequence[RollbackMetadata]) -> InstantSummary:
    deleted = sum(len(files) for r in rollbacks for files in r.deleted_files.values())
    return InstantSummary(instant, undid=tuple(undid), files_deleted=deleted)
