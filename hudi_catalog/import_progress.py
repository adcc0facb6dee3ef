"""What an import of a Hudi table reports as it goes (``hudi-metastore import``), the observer the importer
is given, and what it did in the end (``ImportResult``). The catalog only counts; a front end shows the
counts (the CLI as a progress bar on a terminal, or as periodic log lines)."""

from __future__ import annotations

from dataclasses import dataclass


class ImportProgress:
    """Receives an import's counts, from the importing thread, in this order: ``listed`` once, ``decoded``
    until every instant is decoded, then ``written`` until every instant is written. This one ignores them;
    a front end overrides what it shows."""

    def listed(self, instants: int) -> None:
        """The timeline holds ``instants`` instants: each is decoded, then written."""

    def decoded(self, instants: int) -> None:
        """``instants`` more instants were read and decoded."""

    def written(self, instants: int, applied: int) -> None:
        """``instants`` more instants were written (or found recorded already, by an earlier run);
        ``applied`` of them were completed instants, applied to the file snapshot."""


@dataclass(frozen=True)
class ImportResult:
    """What an import did: the table it registered or brought up to date, and the latest completed write."""

    database: str
    table: str
    recorded: int
    """Instant states recorded by this run (0 when the catalog was already up to date)."""
    latest_commit: str | None
