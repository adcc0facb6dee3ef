"""Which directories the server may delete or move, and where databases, tables and partitions may be.

A client names the location of what it creates, so a drop, truncate or rename must not reach data the server
was not given to manage. A directory is deleted (or emptied, or moved) only when

- the server made it for that very object, at the location the object has now (``made_location``, recorded
  when it made or moved it), or it lies strictly inside the warehouse root, a ``--data-root``, or a directory
  the server made for the object holding it (the database of a table, the managed table of a partition:
  dropping that object would delete it anyway), and
- it is not, and does not hold, the location of another live database, table or partition (checked in SQL,
  in the transaction that drops or changes the object), nor the warehouse root or a data root, and it is not
  itself a symbolic link.

Anything else stays, and the log says why. ``docs/security.md`` (Data deletion) states the rule for users.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from ..errors import CatalogError
from ..filesystems import check_scheme
from ..store import locations
from ..store.locations import NOTHING_SPARED, Spared
from ..warehouse import Warehouse

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Claim:
    """A directory a drop, truncate or rename would delete, empty or move, with what vouches for it."""

    location: str
    made: bool = False
    """The server made it for this object (``store.locations.made``)."""
    containers: tuple[str, ...] = ()
    """Directories the server made for the objects holding this one, which would be deleted with them."""
    spared: Spared = NOTHING_SPARED
    """Live objects that do not count against it (the object being moved or truncated)."""


def container_of(location: str | None, made: bool) -> tuple[str, ...]:
    """An enclosing object's location as a ``Claim`` container: only when the server made it."""
    return (location,) if location and made else ()


def _distrust(warehouse: Warehouse, claim: Claim) -> str | None:
    """Why a directory is not the server's to delete, judged without the catalog database, or None."""
    if warehouse.holds_root(claim.location):
        return "it is or holds the warehouse root or a data root"
    if warehouse.is_link(claim.location):
        return "it is a symbolic link"
    if claim.made or warehouse.inside_roots(claim.location):
        return None
    if any(warehouse.inside(claim.location, c) for c in claim.containers):
        return None
    return (
        "the server did not make it for this object, and it lies outside the warehouse root and the data "
        "roots (serve --data-root)"
    )


def allowed(conn: Connection, warehouse: Warehouse, claims: Sequence[Claim], action: str = "deleting") -> list[bool]:
    """Whether each claimed directory may be deleted (emptied, moved); a refusal is logged with its reason.
    Called in the transaction that drops or changes the objects, after their own rows are gone (or with
    them spared), so that only other objects count."""
    verdicts = [False] * len(claims)
    reasons: dict[int, str] = {}
    pending: list[int] = []
    for i, claim in enumerate(claims):
        reason = _distrust(warehouse, claim)
        if reason is None:
            pending.append(i)
        else:
            reasons[i] = reason
    held = locations.claimed(conn, [(warehouse.spellings(claims[i].location), claims[i].spared) for i in pending])
    for i, is_held in zip(pending, held):
        if is_held:
            reasons[i] = "it is or holds the location of another database, table or partition"
        else:
            verdicts[i] = True
    for i, reason in reasons.items():
        log.warning("not %s %s: %s; its files stay", action, claims[i].location, reason)
    return verdicts


def approved(conn: Connection, warehouse: Warehouse, claims: Sequence[Claim], action: str = "deleting") -> list[str]:
    """The locations of the claims that ``allowed`` allows, in order."""
    return [c.location for c, ok in zip(claims, allowed(conn, warehouse, claims, action)) if ok]


def held(conn: Connection, warehouse: Warehouse, location: str, spared: Spared = NOTHING_SPARED) -> bool:
    """Whether ``location`` is or holds a live object's location (a move's target must not be)."""
    return locations.claimed(conn, [(warehouse.spellings(location), spared)])[0]


def parents_below(warehouse: Warehouse, deleted: Sequence[str], root: str) -> list[str]:
    """The parents of ``deleted`` directories strictly inside ``root``, spelled as ``root`` is whatever the
    spelling of the deleted ones, deepest first."""
    parents: set[str] = set()
    for location in deleted:
        below = warehouse.below(location, root)
        if not below:
            continue
        steps = below.strip("/").split("/")[:-1]
        parents.update(root.rstrip("/") + "/" + "/".join(steps[: i + 1]) for i in range(len(steps)))
    return sorted(parents, key=lambda p: (-p.count("/"), p))


def unheld(conn: Connection, warehouse: Warehouse, parents: Sequence[str]) -> list[str]:
    """Those of ``parents`` that are not, and do not hold, a live object's location: a drop deletes them once
    they are empty. Asked after the drop committed, of what then remains: inside its own transaction a drop
    still sees the sibling partitions other calls are dropping at the same moment, and each would keep the
    parent they share."""
    held = locations.claimed(conn, [(warehouse.spellings(p), NOTHING_SPARED) for p in parents])
    return [p for p, is_held in zip(parents, held) if not is_held]


def check_location(warehouse: Warehouse, location: str | None, what: str, error: type[CatalogError]) -> None:
    """Refuse a database, table or partition at the root of the local file system or in a system directory
    (``Warehouse.refusal``) with ``error``, naming ``what`` (``table db.t``), and one at a location whose
    scheme no file system here takes (``UnsupportedSchemeError``, Hive's ``MetaException``).

    Raises:
        UnsupportedSchemeError: the scheme is not one of ``filesystems.SCHEMES``.
    """
    if location is None:
        return
    check_scheme(location)
    reason = warehouse.refusal(location)
    if reason is not None:
        raise error(f"Invalid location {location} for {what}: it is {reason}")
