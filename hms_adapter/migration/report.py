"""What a copy did to each object, counted for the summary and the exit code."""

from __future__ import annotations

import enum
import logging
import threading
from collections import Counter
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

EXIT_DONE = 0
EXIT_STOPPED = 1
"""The run could not start or stopped: a metastore could not be reached, or went away for good."""
EXIT_REFUSED = 3
"""Everything was copied but the objects the target cannot hold (each listed with its reason)."""
EXIT_FAILED = 4
"""Some objects failed (listed); the rest was copied, and a re-run finishes them."""
EXIT_DIFFERENT = 5
"""``--verify`` found differences (listed by object and call)."""


class Action(enum.Enum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    DROPPED = "dropped"
    REFUSED = "refused"
    FAILED = "failed"


@dataclass(frozen=True)
class Outcome:
    kind: str
    """``catalog``, ``database``, ``table``, ``function``, ``role``, ``grants``, ``constraints``, ``events``."""
    name: str
    action: Action
    detail: str = ""


@dataclass
class Report:
    dry_run: bool = False
    outcomes: list[Outcome] = field(default_factory=list)
    partitions: Counter = field(default_factory=Counter)
    """Partitions ``added``, ``altered``, ``dropped``, ``failed``, and partition ``statistics`` written."""
    hudi_tables: int = 0
    """Hudi tables written, whose timeline and file snapshot this server read from storage."""
    differences: list[str] = field(default_factory=list)
    """``--verify``'s findings, one line each: the object, the call, the path, both values."""
    known_differences: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Differences the two servers' Hive versions explain (not failures): by the reason, how many and the
    first one."""
    notes: list[str] = field(default_factory=list)
    """What the run could not do that is no fault of an object (printed, not counted)."""
    stopped: str | None = None
    """Why the run stopped before the end, when it did."""

    _guard: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def tally(self, what: str, count: int = 1) -> None:
        """Count ``count`` partitions ``what`` (``added`` ...); the copy's threads share the report."""
        if count:
            with self._guard:
                self.partitions[what] += count

    def hudi_table_followed(self) -> None:
        with self._guard:
            self.hudi_tables += 1

    def known_difference(self, why: str, example: str) -> None:
        count, first = self.known_differences.get(why, (0, example))
        self.known_differences[why] = (count + 1, first)

    def add(self, kind: str, name: str, action: Action, detail: str = "") -> Outcome:
        outcome = Outcome(kind, name, action, detail)
        self.outcomes.append(outcome)
        level = logging.WARNING if action in (Action.FAILED, Action.REFUSED) else logging.INFO
        verb = f"would be {action.value}" if self.dry_run and action not in (Action.UNCHANGED,) else action.value
        log.log(level, "%s %s %s%s", kind, name, verb, f": {detail}" if detail else "")
        return outcome

    def count(self, action: Action) -> int:
        return sum(o.action is action for o in self.outcomes)

    @property
    def exit_code(self) -> int:
        if self.stopped:
            return EXIT_STOPPED
        if self.count(Action.FAILED) or self.partitions["failed"]:
            return EXIT_FAILED
        if self.differences:
            return EXIT_DIFFERENT
        if self.count(Action.REFUSED):
            return EXIT_REFUSED
        return EXIT_DONE

    def summary(self) -> list[str]:
        """The lines printed at the end of a run."""
        by_kind: dict[str, Counter] = {}
        for outcome in self.outcomes:
            by_kind.setdefault(outcome.kind, Counter())[outcome.action.value] += 1
        prefix = "would copy (dry run)" if self.dry_run else "copied"
        lines = [f"{prefix}:"]
        for kind, counts in by_kind.items():
            lines.append(f"  {_plural(kind):<12} " + ", ".join(f"{n} {action}" for action, n in sorted(counts.items())))
        if self.partitions:
            lines.append("  partitions   " + ", ".join(f"{n} {what}" for what, n in sorted(self.partitions.items())))
        if self.hudi_tables:
            lines.append(
                f"  hudi tables  {self.hudi_tables}: timeline and file snapshot read from storage by the target"
            )
        for outcome in self.outcomes:
            if outcome.action in (Action.REFUSED, Action.FAILED):
                lines.append(f"{outcome.action.value}: {outcome.kind} {outcome.name}: {outcome.detail}")
        lines += [f"different: {line}" for line in self.differences]
        lines += [
            f"known difference ({count}): {why}; the first: {first}"
            for why, (count, first) in self.known_differences.items()
        ]
        lines += [f"note: {line}" for line in self.notes]
        if self.stopped:
            lines.append(f"stopped: {self.stopped}; run the same command again to finish")
        return lines


def _plural(kind: str) -> str:
    return kind if kind.endswith("s") else f"{kind}s"
