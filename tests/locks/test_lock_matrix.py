"""HMS locks and transactions, case by case, on ours and on Apache Hive Metastore 2.3.10 and 4.0.1 (the references).

Every case runs against each server of the ``hms`` fixture (ours on SQLite, MariaDB and PostgreSQL, the Hive
2.3.10 peer and the Hive 4.0.1 peer) and expects what Hive 2.3.10 was observed to do, except where a step
says ``[ours: ANSWER]``: there this server answers otherwise, on purpose, and docs/locks.md ("Where this
server differs from Hive 2.3.10") says why (arrival-order queueing, lower-cased names, a retried commit); and
where it says ``[hive4: ANSWER]``: Hive 4.0.1's answer, which ``HIVE_4_DIFFERENCES`` explains (as
docs/compatibility.md, "Against Hive Metastore 4.0.1"). The peers' answers are still checked. The cases are data: the compatibility matrix
(``MATRIX``), how waiting locks hold back later requests (``BEHIND_WAITING``), and scenarios written as
steps (``QUEUEING``, ``SAME_TRANSACTION``, ``HIVE_2_3_ORDER_QUIRKS``, ``ERRORS``, ``TRANSACTIONS``) in the
little language that :class:`Case` runs:

``A = lock[@T] TYPE[:LEVEL] obj[, ...] -> STATE|Error [ours: STATE|Error] [hive4: STATE|Error]``
    one LockRequest (user and hostname set, txnid ``T`` if given) with a component per ``TYPE obj``; ``obj``
    is ``db``, ``db.table`` or ``db.table/partition``, and the component's level follows from it unless
    ``:LEVEL`` says otherwise; ``A`` names the lock id. No component: an empty list.
``check A``, ``unlock A``, ``heartbeat [lock=A] [txn=T]`` (``-> STATE|Error``, default ``OK``)
``show A -> STATE[<B] ...``
    show_locks' elements of lock A by lockIdInternal: their states, and ``<B``: blocked by lock B
    (blockedByExtId); an ACQUIRED element must name no blocker.
``gone A``: show_locks has no element of lock A.
``open T1 [T2 ...]`` (one open_txns call), ``commit T``, ``abort T``, ``abort_txns T [...]``
``txns T -> OPEN|ABORTED|gone``: T in get_open_txns and get_open_txns_info, with that state, or in neither
``min_open -> T|None``, ``hwm -> T``: get_open_txns' min_open_txn and txn_high_water_mark
``range T1 T2 -> aborted ... | nosuch ...``: heartbeat_txn_range(T1, T2)

Ids are names (``A``, ``T1``), numbers, ``NOLOCK``/``NOTXN`` (ids nobody has) and ``name+n``. ``Error`` is
the Thrift exception's class name, checked on every server; ``Error: message`` also gives Hive's message,
``{A}``/``{d}`` standing for lock A's id and database d's real name, checked on the peers only (no client
matches these messages: Hive's, Iceberg's and Hudi's lock clients go by exception class and lock state).
Database names get a prefix of the case's own, so cases sharing a server never meet; objects need not exist
(Hive locks names, not catalog objects: no database of these cases is ever created). Whatever a case leaves
(open transactions, locks) is aborted and unlocked after it.

Facts found on the way, and the odd ones, are in the comments; where Hive 2.3.10 may have a bug, the case
still expects 2.3.10's answer and says so, and what Hive 4.0.1 answers.
"""

from __future__ import annotations

import re
import time
import uuid

import pytest
from thriftpy2.thrift import TException

from tests.conftest import hive
from tests.locks.conftest import HIVE_4, PEERS, fresh_facts, open_txns

# Hive Metastore 2.3's and 4's starts (session fixtures) with a test: past the default 600 s on a machine 3-4 times slower
pytestmark = pytest.mark.timeout(1800)

SR, SW, EX = "SHARED_READ", "SHARED_WRITE", "EXCLUSIVE"
A, W = "ACQUIRED", "WAITING"

# the held lock is on DB, TABLE or PART; requests also go to OTHER_* objects, none of which a held
# PARTITION lock covers
DB, TABLE, PART = "d", "d.t", "d.t/p=1"
OTHER_TABLE, OTHER_PART, OTHER_DB = "d.u", "d.t/p=2", "e"

# (held type, held on, requested type, requested on, the request's state): one lock is held (ACQUIRED,
# no transaction), then the other is requested.
#
# Two components overlap when they name the same database, and the same table unless either names none,
# and the same partition unless either names none: a DB lock covers its tables, a TABLE lock its
# partitions. SHARED_READ goes with SHARED_READ and SHARED_WRITE; SHARED_WRITE conflicts with
# SHARED_WRITE; EXCLUSIVE with everything.
# (1) Hive never lets a DB-level SHARED_READ and a TABLE- or PARTITION-level EXCLUSIVE conflict, whichever
#     came first (dropping or creating a table while someone holds its database for reading).
MATRIX = [
    (SR, DB, SR, DB, A),
    (SR, DB, SR, TABLE, A),
    (SR, DB, SR, PART, A),
    (SR, DB, SW, DB, A),
    (SR, DB, SW, TABLE, A),
    (SR, DB, SW, PART, A),
    (SR, DB, EX, DB, W),
    (SR, DB, EX, TABLE, A),  # (1)
    (SR, DB, EX, PART, A),  # (1)
    (SR, DB, SR, OTHER_TABLE, A),
    (SR, DB, SW, OTHER_TABLE, A),
    (SR, DB, EX, OTHER_TABLE, A),  # (1)
    (SR, DB, SR, OTHER_PART, A),
    (SR, DB, SW, OTHER_PART, A),
    (SR, DB, EX, OTHER_PART, A),  # (1)
    (SR, TABLE, SR, DB, A),
    (SR, TABLE, SR, TABLE, A),
    (SR, TABLE, SR, PART, A),
    (SR, TABLE, SW, DB, A),
    (SR, TABLE, SW, TABLE, A),
    (SR, TABLE, SW, PART, A),
    (SR, TABLE, EX, DB, W),
    (SR, TABLE, EX, TABLE, W),
    (SR, TABLE, EX, PART, W),
    (SR, TABLE, SR, OTHER_TABLE, A),
    (SR, TABLE, SW, OTHER_TABLE, A),
    (SR, TABLE, EX, OTHER_TABLE, A),
    (SR, TABLE, SR, OTHER_PART, A),
    (SR, TABLE, SW, OTHER_PART, A),
    (SR, TABLE, EX, OTHER_PART, W),
    (SR, PART, SR, DB, A),
    (SR, PART, SR, TABLE, A),
    (SR, PART, SR, PART, A),
    (SR, PART, SW, DB, A),
    (SR, PART, SW, TABLE, A),
    (SR, PART, SW, PART, A),
    (SR, PART, EX, DB, W),
    (SR, PART, EX, TABLE, W),
    (SR, PART, EX, PART, W),
    (SR, PART, SR, OTHER_TABLE, A),
    (SR, PART, SW, OTHER_TABLE, A),
    (SR, PART, EX, OTHER_TABLE, A),
    (SR, PART, SR, OTHER_PART, A),
    (SR, PART, SW, OTHER_PART, A),
    (SR, PART, EX, OTHER_PART, A),
    (SW, DB, SR, DB, A),
    (SW, DB, SR, TABLE, A),
    (SW, DB, SR, PART, A),
    (SW, DB, SW, DB, W),
    (SW, DB, SW, TABLE, W),
    (SW, DB, SW, PART, W),
    (SW, DB, EX, DB, W),
    (SW, DB, EX, TABLE, W),
    (SW, DB, EX, PART, W),
    (SW, DB, SR, OTHER_TABLE, A),
    (SW, DB, SW, OTHER_TABLE, W),
    (SW, DB, EX, OTHER_TABLE, W),
    (SW, DB, SR, OTHER_PART, A),
    (SW, DB, SW, OTHER_PART, W),
    (SW, DB, EX, OTHER_PART, W),
    (SW, TABLE, SR, DB, A),
    (SW, TABLE, SR, TABLE, A),
    (SW, TABLE, SR, PART, A),
    (SW, TABLE, SW, DB, W),
    (SW, TABLE, SW, TABLE, W),
    (SW, TABLE, SW, PART, W),
    (SW, TABLE, EX, DB, W),
    (SW, TABLE, EX, TABLE, W),
    (SW, TABLE, EX, PART, W),
    (SW, TABLE, SR, OTHER_TABLE, A),
    (SW, TABLE, SW, OTHER_TABLE, A),
    (SW, TABLE, EX, OTHER_TABLE, A),
    (SW, TABLE, SR, OTHER_PART, A),
    (SW, TABLE, SW, OTHER_PART, W),
    (SW, TABLE, EX, OTHER_PART, W),
    (SW, PART, SR, DB, A),
    (SW, PART, SR, TABLE, A),
    (SW, PART, SR, PART, A),
    (SW, PART, SW, DB, W),
    (SW, PART, SW, TABLE, W),
    (SW, PART, SW, PART, W),
    (SW, PART, EX, DB, W),
    (SW, PART, EX, TABLE, W),
    (SW, PART, EX, PART, W),
    (SW, PART, SR, OTHER_TABLE, A),
    (SW, PART, SW, OTHER_TABLE, A),
    (SW, PART, EX, OTHER_TABLE, A),
    (SW, PART, SR, OTHER_PART, A),
    (SW, PART, SW, OTHER_PART, A),
    (SW, PART, EX, OTHER_PART, A),
    (EX, DB, SR, DB, W),
    (EX, DB, SR, TABLE, W),
    (EX, DB, SR, PART, W),
    (EX, DB, SW, DB, W),
    (EX, DB, SW, TABLE, W),
    (EX, DB, SW, PART, W),
    (EX, DB, EX, DB, W),
    (EX, DB, EX, TABLE, W),
    (EX, DB, EX, PART, W),
    (EX, DB, SR, OTHER_TABLE, W),
    (EX, DB, SW, OTHER_TABLE, W),
    (EX, DB, EX, OTHER_TABLE, W),
    (EX, DB, SR, OTHER_PART, W),
    (EX, DB, SW, OTHER_PART, W),
    (EX, DB, EX, OTHER_PART, W),
    (EX, DB, SR, OTHER_DB, A),
    (EX, DB, SW, OTHER_DB, A),
    (EX, DB, EX, OTHER_DB, A),
    (EX, TABLE, SR, DB, A),  # (1)
    (EX, TABLE, SR, TABLE, W),
    (EX, TABLE, SR, PART, W),
    (EX, TABLE, SW, DB, W),
    (EX, TABLE, SW, TABLE, W),
    (EX, TABLE, SW, PART, W),
    (EX, TABLE, EX, DB, W),
    (EX, TABLE, EX, TABLE, W),
    (EX, TABLE, EX, PART, W),
    (EX, TABLE, SR, OTHER_TABLE, A),
    (EX, TABLE, SW, OTHER_TABLE, A),
    (EX, TABLE, EX, OTHER_TABLE, A),
    (EX, TABLE, SR, OTHER_PART, W),
    (EX, TABLE, SW, OTHER_PART, W),
    (EX, TABLE, EX, OTHER_PART, W),
    (EX, PART, SR, DB, A),  # (1)
    (EX, PART, SR, TABLE, W),
    (EX, PART, SR, PART, W),
    (EX, PART, SW, DB, W),
    (EX, PART, SW, TABLE, W),
    (EX, PART, SW, PART, W),
    (EX, PART, EX, DB, W),
    (EX, PART, EX, TABLE, W),
    (EX, PART, EX, PART, W),
    (EX, PART, SR, OTHER_TABLE, A),
    (EX, PART, SW, OTHER_TABLE, A),
    (EX, PART, EX, OTHER_TABLE, A),
    (EX, PART, SR, OTHER_PART, A),
    (EX, PART, SW, OTHER_PART, A),
    (EX, PART, EX, OTHER_PART, A),
]

# Hive 4.0.1 grants a SHARED_WRITE beside an overlapping SHARED_WRITE (Hive 3 made them compatible: writers of
# one table conflict at commit, by what they wrote); this server keeps Hive 2.3.10's answer (HIVE_4_DIFFERENCES)
HIVE_4_MATRIX = {row[:4]: A for row in MATRIX if row[0] == row[2] == SW}

# (type of the waiting lock, requested type, the request's state): lock B waits on TABLE d.t behind a lock
# on PARTITION d.t/p=1; the request is on PARTITION d.t/p=2, which only B covers. Hive compares a request
# with the waiting locks before it whose type is not stronger (SHARED_READ < SHARED_WRITE < EXCLUSIVE): a
# SHARED_READ never waits for a waiting lock, a SHARED_WRITE for a waiting SHARED_WRITE only, an EXCLUSIVE
# for any. So a waiting EXCLUSIVE does not hold back later readers and writers (writers can starve).
BEHIND_WAITING = [
    (SR, SR, A),
    (SR, SW, A),
    (SR, EX, W),
    (SW, SR, A),
    (SW, SW, W),
    (SW, EX, W),
    (EX, SR, A),
    (EX, SW, A),
    (EX, EX, W),
]
# this server queues in arrival order: a waiting EXCLUSIVE holds back every later overlapping request
OURS_BEHIND_WAITING = {(EX, SR): W, (EX, SW): W}
# Hive 4.0.1 queues as this server does, and grants a SHARED_WRITE beside a (waiting) SHARED_WRITE (HIVE_4_MATRIX)
HIVE_4_BEHIND_WAITING = {**OURS_BEHIND_WAITING, (SW, SW): A}
# what makes B wait behind the lock on d.t/p=1 (on every server: Hive 4.0.1 lets SHARED_WRITEs share)
BLOCKER = {SR: EX, SW: EX, EX: SR}

QUEUEING = {
    "readers queue behind an exclusive lock, each blocked by it, and each gets the lock once it goes": [
        f"A = lock {EX} d.t -> ACQUIRED",
        f"B = lock {SR} d.t -> WAITING",
        f"C = lock {SR} d.t -> WAITING",
        "show B -> WAITING<A",
        "show C -> WAITING<A",
        "check B -> WAITING",
        "unlock A",
        "gone A",
        # C does not wait for B, which came first: a waiting SHARED_READ holds back no reader
        "check C -> ACQUIRED",
        "check B -> ACQUIRED",
        "show B -> ACQUIRED",
        "show C -> ACQUIRED",
    ],
    # Hive 2.3.10 lets readers overtake a waiting writer (writer starvation); Hive 4.0.1 queues C behind B, as
    # this server does
    "a waiting exclusive lock does not hold back a later reader": [
        f"A = lock {SR} d.t -> ACQUIRED",
        f"B = lock {EX} d.t -> WAITING",
        "show B -> WAITING<A",
        f"C = lock {SR} d.t -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
    ],
    "readers and one writer share a table; a second writer waits": [
        f"A = lock {SR} d.t -> ACQUIRED",
        f"B = lock {SW} d.t -> ACQUIRED",
        f"C = lock {SW} d.t -> WAITING [hive4: ACQUIRED]",
        "show C -> WAITING<B [hive4: ACQUIRED]",
        f"D = lock {SR} d.t -> ACQUIRED",
        "unlock B",
        "check C -> ACQUIRED",
        # blocked by all four: which one a server names is not pinned
        f"E = lock {EX} d.t -> WAITING",
    ],
    # every component of a waiting request shows WAITING, the grantable ones too; the blocked one names its
    # blocker (Hive names none on the others)
    "a request waits as a whole, and is granted as a whole": [
        f"A = lock {EX} d.t -> ACQUIRED",
        f"B = lock {SR} d.u, {SR} d.t, {SR} d.v -> WAITING",
        "show B -> WAITING WAITING<A WAITING",
        # the grantable component of the waiting request holds back no reader
        f"C = lock {SR} d.u -> ACQUIRED",
        "unlock A",
        "check B -> ACQUIRED",
        "show B -> ACQUIRED ACQUIRED ACQUIRED",
    ],
    "the components of one request never conflict with each other": [
        f"A = lock {EX} d.t, {SR} d.t -> ACQUIRED",
        f"B = lock {EX} e.t, {EX} e.t -> ACQUIRED",
        f"C = lock {EX} f, {SW} f.t/p=1 -> ACQUIRED",
        "show C -> ACQUIRED ACQUIRED",
    ],
    # Hive 2.3.10 stores no level (HIVE_LOCKS has no such column): which names a component carries decides
    # what it covers. A stricter server could refuse such components; 2.3.10's answer is expected
    "the names, not the level, decide what a component covers": [
        f"A = lock {EX}:DB d.t -> ACQUIRED",
        f"B = lock {SR} d.u -> ACQUIRED",
        f"C = lock {EX}:TABLE e -> ACQUIRED",
        f"D = lock {SR} e.u -> WAITING",
        "show D -> WAITING<C",
    ],
    # HMS clients lower-case names before they lock; Hive 2.3.10 compares them as given
    # (ours lower-cases names, as Hive 4.0.1 does: D.T and d.t are one table)
    "names are compared as given, case and all": [
        f"A = lock {EX} D.T -> ACQUIRED",
        f"B = lock {EX} d.t -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
        f"C = lock {EX} d.u/P=1 -> ACQUIRED",
        f"D = lock {EX} d.u/p=1 -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
    ],
    "unlocking a waiting lock withdraws it": [
        f"A = lock {EX} d.t -> ACQUIRED",
        f"B = lock {EX} d.t -> WAITING",
        "unlock B",
        "gone B",
        "check B -> NoSuchLockException",
        f"C = lock {SR} d.t -> WAITING",
        "show C -> WAITING<A",
    ],
}

SAME_TRANSACTION = {
    "locks of one transaction never conflict with each other; commit releases them": [
        "open T1",
        f"A = lock@T1 {EX} d.t -> ACQUIRED",
        f"B = lock@T1 {EX} d.t -> ACQUIRED",
        f"C = lock@T1 {EX} d, {SW} d.t/p=1 -> ACQUIRED",
        f"D = lock {SR} d.t -> WAITING",
        "commit T1",
        "gone A",
        "gone B",
        "gone C",
        "check D -> ACQUIRED",
    ],
    "locks of different transactions conflict as usual; abort releases them": [
        "open T1 T2",
        f"A = lock@T1 {SR} d.t -> ACQUIRED",
        f"B = lock@T2 {EX} d.t -> WAITING",
        "show B -> WAITING<A",
        "abort T1",
        "gone A",
        "check B -> ACQUIRED",
        "abort T2",
        "gone B",
    ],
    "commit and abort release waiting locks too": [
        "open T1 T2",
        f"A = lock {EX} d.t -> ACQUIRED",
        f"B = lock@T1 {SR} d.t -> WAITING",
        f"C = lock@T2 {SR} d.t -> WAITING",
        "commit T1",
        "gone B",
        "abort T2",
        "gone C",
        "show A -> ACQUIRED",
    ],
    # Hive 2.3.10 sees no deadlock: T1's EXCLUSIVE waits for T2's waiting EXCLUSIVE, which waits for T1's
    # SHARED_READ, until a transaction times out or is aborted, and grants T1's later SHARED_READ; Hive 4.0.1
    # queues that one behind B as well, as this server does
    "a transaction's later lock waits behind another's waiting lock (no deadlock detection)": [
        "open T1 T2",
        f"A = lock@T1 {SR} d.t -> ACQUIRED",
        f"B = lock@T2 {EX} d.t -> WAITING",
        "show B -> WAITING<A",
        f"C = lock@T1 {EX} d.t -> WAITING",
        "show C -> WAITING<B",
        f"D = lock@T1 {SR} d.t -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
    ],
    "txnid 0 is no transaction": [
        f"A = lock@0 {EX} d.t -> ACQUIRED",
        f"B = lock {EX} d.t -> WAITING",
        "unlock A",
        "check B -> ACQUIRED",
    ],
}

# Hive 2.3.10 compares a request only with older locks (lower lock ids), one at a time, the nearest first
# (waiting ones, then acquired ones by type, EXCLUSIVE before SHARED_WRITE before SHARED_READ, newest
# first), and stops at the first that decides: one it must wait for; one whose SHARED_READ/SHARED_WRITE it
# may share; or one it need not conflict with (of its own transaction or request, or the DB SHARED_READ /
# TABLE EXCLUSIVE exemption), which grants it at once without looking further. So an exclusive lock can be
# granted while another client's read lock on the same table is held, depending on the order the locks came
# in. Bugs by any standard, which Hive 4.0.1 no longer has ([hive4: ...]). This server checks every
# conflicting lock ahead of a request and waits in these cases, as a locking client would want and as Hive
# 4.0.1 does ([ours: ...]); the peers' answers are still checked, and the cases are kept apart, to be judged apart.
HIVE_2_3_ORDER_QUIRKS = {
    # only older locks count: once A goes, B is granted its EXCLUSIVE lock while C, younger, still holds
    # SHARED_READ on the same table
    "a waiting lock is checked against older locks only": [
        f"A = lock {SR} d.t -> ACQUIRED",
        f"B = lock {EX} d.t -> WAITING",
        f"C = lock {SR} d.t -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
        "unlock A",
        "check B -> ACQUIRED",
        "show B -> ACQUIRED",
        "show C -> ACQUIRED [ours: WAITING<B] [hive4: WAITING<B]",
    ],
    "a transaction's exclusive lock passes another's older read lock after its own read lock": [
        f"A = lock {SR} d.t -> ACQUIRED",
        "open T1",
        f"B = lock@T1 {SR} d.t -> ACQUIRED",
        f"C = lock@T1 {EX} d.t -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
        "show A -> ACQUIRED",
        "show C -> ACQUIRED [ours: WAITING<A] [hive4: WAITING<A]",
    ],
    "the same, with the other's read lock the younger: the exclusive lock waits": [
        "open T1",
        f"B = lock@T1 {SR} d.t -> ACQUIRED",
        f"A = lock {SR} d.t -> ACQUIRED",
        f"C = lock@T1 {EX} d.t -> WAITING",
        "show C -> WAITING<A",
    ],
    "a request's own read component lets its exclusive one pass another's read lock": [
        f"A = lock {SR} d.t -> ACQUIRED",
        f"B = lock {SR} d.t, {EX} d.t -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
        f"C = lock {SR} d.u -> ACQUIRED",
        f"D = lock {EX} d.u, {SR} d.u -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
        # without the read component it waits
        f"E = lock {SR} e.t -> ACQUIRED",
        f"F = lock {EX} e.t -> WAITING",
    ],
    "a DB read lock lets a table exclusive lock pass an older table read lock": [
        f"A = lock {SR} d.t -> ACQUIRED",
        f"B = lock {SR} d -> ACQUIRED",
        f"C = lock {EX} d.t -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
    ],
    "the same, with the DB read lock the older: the exclusive lock waits": [
        f"B = lock {SR} d -> ACQUIRED",
        f"A = lock {SR} d.t -> ACQUIRED",
        f"C = lock {EX} d.t -> WAITING",
        "show C -> WAITING<A",
    ],
    "a transaction's DB exclusive lock passes another's DB read lock after its own table exclusive lock": [
        "open T1 T2",
        f"A = lock@T1 {SR} d -> ACQUIRED",
        f"B = lock@T2 {EX} d.t -> ACQUIRED",
        f"C = lock@T2 {EX} d -> ACQUIRED [ours: WAITING] [hive4: WAITING]",
    ],
}

ERRORS = {
    "an unknown lock": [
        "check NOLOCK -> NoSuchLockException: No such lock lockid:{NOLOCK}",
        "heartbeat lock=NOLOCK -> NoSuchLockException: No such lock: lockid:{NOLOCK}",
        "unlock NOLOCK",  # idempotent
        "check 0 -> NoSuchLockException: No such lock lockid:0",
        "heartbeat lock=0",  # 0: no lock
        "heartbeat",
    ],
    "a released lock": [
        f"A = lock {SR} d.t -> ACQUIRED",
        "unlock A",
        "check A -> NoSuchLockException: No such lock lockid:{A}",
        "heartbeat lock=A -> NoSuchLockException: No such lock: lockid:{A}",
        "unlock A",
    ],
    "the acquired lock of an open transaction cannot be unlocked, a waiting one can": [
        "open T1",
        f"A = lock@T1 {EX} d.t -> ACQUIRED",
        "unlock A -> TxnOpenException: Unlocking locks associated with transaction not permitted.  "
        "lockid:{A} intLockId:1 txnid:{T1} db:{d} table:t partition:null state:ACQUIRED type:EXCLUSIVE",
        "show A -> ACQUIRED",
        "heartbeat lock=A",
        f"B = lock@T1 {SR} d.t -> ACQUIRED",
        f"C = lock {EX} d.u -> ACQUIRED",
        f"D = lock@T1 {SR} d.u -> WAITING",
        "unlock D",
        "gone D",
    ],
    # Hive 2.3.10 fails inside (a MetaException that lock does not declare), which reaches the client as an
    # INTERNAL_ERROR; Hive 4.0.1 too ("This should never happen! ..."). 2.3.10's class is expected
    "a lock request without components": [
        "lock -> TApplicationException: Internal error processing lock",
    ],
    "an unknown transaction": [
        f"lock@NOTXN {SR} d.t -> NoSuchTxnException: No such transaction txnid:{{NOTXN}}",
        "commit NOTXN -> NoSuchTxnException: No such transaction txnid:{NOTXN}",
        "abort NOTXN -> NoSuchTxnException: No such transaction txnid:{NOTXN}",
        "abort_txns NOTXN",  # ignored
        "heartbeat txn=NOTXN -> NoSuchTxnException: No such transaction txnid:{NOTXN}",
    ],
    "an aborted transaction": [
        "open T1",
        "abort T1",
        f"lock@T1 {SR} d.t -> TxnAbortedException: Transaction txnid:{{T1}} already aborted",
        "commit T1 -> TxnAbortedException: Transaction txnid:{T1} already aborted",
        "abort T1",  # idempotent
        "abort_txns T1",
        "heartbeat txn=T1 -> TxnAbortedException: Transaction txnid:{T1} already aborted",
    ],
    # a committed transaction is forgotten: to every call it is one that never was
    "a committed transaction": [
        "open T1",
        "commit T1",
        # Hive 4.0.1 grants a lock to a committed transaction, a lock that nothing releases then
        f"lock@T1 {SR} d.t -> NoSuchTxnException: No such transaction txnid:{{T1}} [hive4: ACQUIRED]",
        # ours answers a retried commit as Hive 3+ does
        "commit T1 -> NoSuchTxnException: No such transaction txnid:{T1} [ours: OK] [hive4: OK]",
        "abort T1 -> NoSuchTxnException: No such transaction txnid:{T1} "
        "[hive4: NoSuchTxnException: Transaction txnid:{T1} is already committed.]",
        "abort_txns T1",
        "heartbeat txn=T1 -> NoSuchTxnException: No such transaction txnid:{T1} "
        "[hive4: NoSuchTxnException: No such txn: {T1}]",
    ],
    "the locks of a finished transaction are gone": [
        "open T1 T2",
        f"A = lock@T1 {SR} d.t -> ACQUIRED",
        f"B = lock@T2 {SR} d.t -> ACQUIRED",
        "commit T1",
        "abort T2",
        "check A -> NoSuchLockException: No such lock lockid:{A}",
        "check B -> NoSuchLockException: No such lock lockid:{B}",
    ],
    "heartbeat of an open transaction, with and without a lock": [
        "open T1",
        "heartbeat txn=T1",
        f"A = lock@T1 {SR} d.t -> ACQUIRED",
        "heartbeat lock=A txn=T1",
        "heartbeat lock=NOLOCK txn=T1 -> NoSuchLockException: No such lock: lockid:{NOLOCK}",
    ],
}

TRANSACTIONS = {
    # aborted transactions stay listed (with state ABORTED) until a housekeeper removes those that wrote
    # nothing; none runs in the peer. min_open_txn is the smallest OPEN one
    "committed transactions leave the lists, aborted ones stay": [
        "open T1 T2 T3",
        "hwm -> T3",
        "txns T1 -> OPEN",
        "min_open -> T1",
        "commit T1",
        "abort T2",
        "txns T1 -> gone",
        "txns T2 -> ABORTED",
        "txns T3 -> OPEN",
        "min_open -> T3",
        "hwm -> T3",
        "abort_txns T3 NOTXN",
        "txns T3 -> ABORTED",
        "min_open -> None",
    ],
    "heartbeat_txn_range reports the aborted and the unknown ones": [
        "open T1 T2 T3",
        "commit T1",
        "abort T2",
        "range T1 T3+2 -> aborted T2 | nosuch T1 T3+1 T3+2",
        "range T3 T3 -> aborted | nosuch",
    ],
    "abort_txns aborts the open ones and ignores the rest": [
        "open T1 T2",
        "commit T1",
        f"A = lock@T2 {EX} d.t -> ACQUIRED",
        "abort_txns T1 T2 NOTXN",
        "txns T2 -> ABORTED",
        "gone A",
    ],
}

HIVE_4_DIFFERENCES = {
    "MATRIX": "Hive 4.0.1 grants a SHARED_WRITE beside an overlapping SHARED_WRITE (Hive 3 made them compatible: "
    "writers of one table conflict at commit, by what they wrote); this server has no such check at commit and "
    "keeps Hive 2.3.10's exclusion, so that two writers never both commit over each other",
    "BEHIND_WAITING": "the same for a SHARED_WRITE behind a waiting SHARED_WRITE; and Hive 4.0.1 queues in arrival "
    "order, as this server does: a waiting EXCLUSIVE holds back later readers and writers",
    "a waiting exclusive lock does not hold back a later reader": "Hive 4.0.1 queues in arrival order, as this server",
    "readers and one writer share a table; a second writer waits": "a SHARED_WRITE beside a SHARED_WRITE (MATRIX)",
    "names are compared as given, case and all": "Hive 4.0.1 lower-cases names, as this server does",
    "a transaction's later lock waits behind another's waiting lock (no deadlock detection)": "arrival order, as here",
    "a waiting lock is checked against older locks only": "Hive 4.0.1 checks every conflicting lock ahead of a "
    "request, as this server does (HIVE_2_3_ORDER_QUIRKS)",
    "a transaction's exclusive lock passes another's older read lock after its own read lock": "the same",
    "a request's own read component lets its exclusive one pass another's read lock": "the same",
    "a DB read lock lets a table exclusive lock pass an older table read lock": "the same",
    "a transaction's DB exclusive lock passes another's DB read lock after its own table exclusive lock": "the same",
    "a committed transaction": "Hive 4.0.1 grants a lock to a committed transaction, a lock nothing releases (this "
    "server refuses it with Hive 2.3.10's NoSuchTxnException), answers a retried commit as this server does, and "
    "words the errors of abort and heartbeat otherwise (no client matches them)",
}
"""Why Hive 4.0.1 answers otherwise than Hive 2.3.10, by case (``[hive4: ...]`` steps) or table of cases
(``HIVE_4_MATRIX``, ``HIVE_4_BEHIND_WAITING``); docs/compatibility.md lists them too."""

# (held type, requested type, the request's state) on one table: EXCL_WRITE, the type Hive 3 added for writes
# that must exclude other writers, shares a table with SHARED_READ only. Hive 2.3.10 has no such type: these
# cases run against this server and Hive 4.0.1
EW = "EXCL_WRITE"
EXCL_WRITE_MATRIX = [(SR, EW, A), (SW, EW, W), (EW, SR, A), (EW, SW, W), (EW, EW, W), (EW, EX, W), (EX, EW, W)]

UNKNOWN_IDS = {"NOLOCK": 987_654_321, "NOTXN": 987_654_322}
RESULT_STATES = {"ACQUIRED", "WAITING", "OK"}


class _Names(dict):
    """str.format_map's mapping: ids by name, and a database's real name for any other key."""

    def __init__(self, case: Case) -> None:
        super().__init__(case.ids)
        self.case = case

    def __missing__(self, key: str) -> str:
        return self.case.db(key)


class Case:
    """Runs the steps of one case on one server (see the module's docstring), then releases what it left."""

    def __init__(self, client, target) -> None:
        self.client = client
        self.target = target
        self.prefix = f"lk{uuid.uuid4().hex[:10]}_"
        self.ids: dict[str, int] = dict(UNKNOWN_IDS)
        self.locks: list[int] = []
        self.txns: list[int] = []

    # --- helpers

    def db(self, name: str) -> str:
        return self.prefix + name

    def id(self, token: str) -> int:
        base, offset = re.fullmatch(r"(\w+?)([+-]\d+)?", token).groups()
        return (int(base) if base.isdigit() else self.ids[base]) + int(offset or 0)

    def component(self, spec: str):
        kind, obj = spec.split()
        kind, _, level = kind.partition(":")
        db, _, rest = obj.partition(".")
        table, _, partition = rest.partition("/")
        level = level or ("PARTITION" if partition else "TABLE" if table else "DB")
        return hive.LockComponent(
            type=getattr(hive.LockType, kind),
            level=getattr(hive.LockLevel, level),
            dbname=self.db(db),
            tablename=table or None,
            partitionname=partition or None,
        )

    def elements(self, lockid: int) -> list:
        return sorted(
            (e for e in self.client.show_locks(hive.ShowLocksRequest()).locks if e.lockid == lockid),
            key=lambda e: e.lockIdInternal,
        )

    def call(self, step: str, expected: str, method: str, *args):
        """``client.method(*args)``, its answer or Thrift exception checked against ``expected``."""
        try:
            answer, error = getattr(self.client, method)(*args), None
        except TException as e:
            answer, error = None, e
        kind, _, message = expected.partition(": ")
        where = f"{self.target.name}: {step!r}"
        if kind in RESULT_STATES:
            assert error is None, f"{where}: {type(error).__name__}: {getattr(error, 'message', error)}"
            if kind != "OK":
                assert hive.LockState._VALUES_TO_NAMES[answer.state] == kind, f"{where}: {answer}"
            return answer
        assert error is not None, f"{where}: answered {answer!r}, expected {kind}"
        assert type(error).__name__ == kind, f"{where}: {type(error).__name__}: {getattr(error, 'message', '')}"
        if message and self.target.is_peer:
            assert error.message == message.format_map(_Names(self)), where
        return None

    # --- steps

    def run(self, steps: list[str]) -> None:
        try:
            for step in steps:
                self.step(step)
        finally:
            self.release()

    def expected_here(self, expected: str) -> str:
        """The step's expected answer on this server: ``HIVE [ours: OURS] [hive4: HIVE4]`` splits by server
        (Hive 2.3.10's answer where no note names the server)."""
        notes = dict(re.findall(r"\[(ours|hive4): ([^\]]*)\]", expected))
        answer = re.sub(r"\s*\[(?:ours|hive4): [^\]]*\]", "", expected)
        if self.target.version == HIVE_4:
            return notes.get("hive4", answer)
        return answer if self.target.is_peer else notes.get("ours", answer)

    def step(self, step: str) -> None:
        action, _, expected = (part.strip() for part in step.partition("->"))
        expected = self.expected_here(expected)
        name, action = re.fullmatch(r"(?:(\w+) = )?(.*)", action).groups()
        verb, *args = action.split(maxsplit=1)
        args = args[0] if args else ""
        verb, _, txn = verb.partition("@")
        if verb == "lock":
            components = [self.component(spec) for spec in args.split(",")] if args else []
            request = hive.LockRequest(
                component=components, txnid=self.id(txn) if txn else None, user="locktest", hostname="localhost"
            )
            answer = self.call(step, expected, "lock", request)
            if answer is not None:
                self.locks.append(answer.lockid)
                if name:
                    self.ids[name] = answer.lockid
        elif verb == "check":
            self.call(step, expected, "check_lock", hive.CheckLockRequest(lockid=self.id(args)))
        elif verb == "unlock":
            self.call(step, expected or "OK", "unlock", hive.UnlockRequest(lockid=self.id(args)))
        elif verb == "heartbeat":
            ids = {key: self.id(value) for key, value in (arg.split("=") for arg in args.split())}
            self.call(
                step, expected or "OK", "heartbeat", hive.HeartbeatRequest(lockid=ids.get("lock"), txnid=ids.get("txn"))
            )
        elif verb == "show":
            self.show(step, self.id(args), expected.split())
        elif verb == "gone":
            assert self.elements(self.id(args)) == [], f"{self.target.name}: {step!r}"
        elif verb == "open":
            names = args.split()
            answer = self.call(
                step, "OK", "open_txns", hive.OpenTxnRequest(num_txns=len(names), user="locktest", hostname="localhost")
            )
            assert len(answer.txn_ids) == len(names), f"{self.target.name}: {step!r}: {answer}"
            self.ids.update(zip(names, answer.txn_ids))
            self.txns.extend(answer.txn_ids)
        elif verb == "commit":
            self.call(step, expected or "OK", "commit_txn", hive.CommitTxnRequest(txnid=self.id(args)))
        elif verb == "abort":
            self.call(step, expected or "OK", "abort_txn", hive.AbortTxnRequest(txnid=self.id(args)))
        elif verb == "abort_txns":
            self.call(
                step,
                expected or "OK",
                "abort_txns",
                hive.AbortTxnsRequest(txn_ids=[self.id(arg) for arg in args.split()]),
            )
        elif verb == "txns":
            self.txn_state(step, self.id(args), expected)
        elif verb == "min_open":
            answer = open_txns(self.client, self.target.version)
            assert answer.min_open_txn == (None if expected == "None" else self.id(expected)), (
                f"{self.target.name}: {step!r}: {answer}"
            )
        elif verb == "hwm":
            answer = open_txns(self.client, self.target.version)
            assert answer.txn_high_water_mark == self.id(expected), f"{self.target.name}: {step!r}: {answer}"
        elif verb == "range":
            low, high = (self.id(arg) for arg in args.split())
            answer = self.call(step, "OK", "heartbeat_txn_range", hive.HeartbeatTxnRangeRequest(min=low, max=high))
            sets = {}
            for part in expected.split("|"):
                key, *ids = part.split()
                sets[key] = {self.id(i) for i in ids}
            assert {"aborted": set(answer.aborted), "nosuch": set(answer.nosuch)} == sets, (
                f"{self.target.name}: {step!r}: {answer}"
            )
        else:
            raise ValueError(f"unknown step {step!r}")

    def show(self, step: str, lockid: int, expected: list[str]) -> None:
        elements = self.elements(lockid)
        where = f"{self.target.name}: {step!r}: {elements}"
        assert [hive.LockState._VALUES_TO_NAMES[e.state] for e in elements] == [
            item.partition("<")[0] for item in expected
        ], where
        for element, item in zip(elements, expected):
            state, _, blocker = item.partition("<")
            if blocker:
                assert element.blockedByExtId == self.id(blocker), where
            elif state == "ACQUIRED":
                assert element.blockedByExtId is None, where

    def txn_state(self, step: str, txnid: int, expected: str) -> None:
        listed = set(open_txns(self.client, self.target.version).open_txns)
        infos = {
            info.id: hive.TxnState._VALUES_TO_NAMES[info.state]
            for info in self.call(step, "OK", "get_open_txns_info").open_txns
        }
        where = f"{self.target.name}: {step!r}: {sorted(listed)} {infos}"
        if expected == "gone":
            assert txnid not in listed and txnid not in infos, where
        else:
            assert txnid in listed and infos.get(txnid) == expected, where

    def release(self) -> None:
        """Abort the case's transactions and unlock its locks (a leftover lock would block later cases)."""
        try:
            if self.txns:
                self.client.abort_txns(hive.AbortTxnsRequest(txn_ids=self.txns))
        except Exception:
            pass
        for lockid in self.locks:
            try:
                self.client.unlock(hive.UnlockRequest(lockid=lockid))
            except Exception:
                pass


def _ids(rows):
    return ["-".join(str(v) for v in row) for row in rows]


@pytest.mark.parametrize(("held", "held_on", "requested", "requested_on", "state"), MATRIX, ids=_ids(MATRIX))
def test_lock_matrix(hms, hms_client, held, held_on, requested, requested_on, state):
    if hms.version == HIVE_4:
        state = HIVE_4_MATRIX.get((held, held_on, requested, requested_on), state)
    steps = [f"A = lock {held} {held_on} -> ACQUIRED", f"B = lock {requested} {requested_on} -> {state}"]
    if state == W:
        steps.append("show B -> WAITING<A")
    steps += ["unlock B", "unlock A", "gone A", "gone B"]
    Case(hms_client, hms).run(steps)


@pytest.mark.parametrize(("waiting", "requested", "state"), BEHIND_WAITING, ids=_ids(BEHIND_WAITING))
def test_behind_a_waiting_lock(hms, hms_client, waiting, requested, state):
    if not hms.is_peer:
        state = OURS_BEHIND_WAITING.get((waiting, requested), state)
    elif hms.version == HIVE_4:
        state = HIVE_4_BEHIND_WAITING.get((waiting, requested), state)
    steps = [
        f"H = lock {BLOCKER[waiting]} d.t/p=1 -> ACQUIRED",
        f"B = lock {waiting} d.t -> WAITING",
        "show B -> WAITING<H",
        f"C = lock {requested} d.t/p=2 -> {state}",
    ]
    if state == W:
        steps.append("show C -> WAITING<B")
    Case(hms_client, hms).run(steps)


def _scenarios(cases: dict[str, list[str]]):
    return pytest.mark.parametrize("steps", list(cases.values()), ids=list(cases))


@_scenarios(QUEUEING)
def test_queueing(hms, hms_client, steps):
    Case(hms_client, hms).run(steps)


@_scenarios(SAME_TRANSACTION)
def test_same_transaction(hms, hms_client, steps):
    Case(hms_client, hms).run(steps)


@_scenarios(HIVE_2_3_ORDER_QUIRKS)
def test_hive_2_3_order_quirks(hms, hms_client, steps):
    Case(hms_client, hms).run(steps)


@_scenarios(ERRORS)
def test_errors(hms, hms_client, steps):
    Case(hms_client, hms).run(steps)


@_scenarios(TRANSACTIONS)
def test_transactions(hms, hms_client, steps):
    Case(hms_client, hms).run(steps)


@pytest.mark.parametrize("hms", ["ours-sqlite", "ours-mysql", "ours-postgresql", PEERS[HIVE_4]], indirect=True)
@pytest.mark.parametrize(("held", "requested", "state"), EXCL_WRITE_MATRIX, ids=_ids(EXCL_WRITE_MATRIX))
def test_excl_write(hms, hms_client, held, requested, state):
    steps = [f"A = lock {held} d.t -> ACQUIRED", f"B = lock {requested} d.t -> {state}"]
    if state == W:
        steps.append("show B -> WAITING<A")
    Case(hms_client, hms).run(steps)


def test_every_hive_4_difference_is_explained():
    """``HIVE_4_DIFFERENCES`` names exactly the cases where Hive 4.0.1 is expected to answer otherwise."""
    scenarios = (QUEUEING, SAME_TRANSACTION, HIVE_2_3_ORDER_QUIRKS, ERRORS, TRANSACTIONS)
    noted = {name for cases in scenarios for name, steps in cases.items() if any("[hive4:" in s for s in steps)}
    if any(HIVE_4_MATRIX.get(row[:4], row[4]) != row[4] for row in MATRIX):
        noted.add("MATRIX")
    if any(HIVE_4_BEHIND_WAITING.get(row[:2], row[2]) != row[2] for row in BEHIND_WAITING):
        noted.add("BEHIND_WAITING")
    assert noted == set(HIVE_4_DIFFERENCES)


def _now_ms() -> int:
    return int(time.time() * 1000)


def _lock(case: Case, *specs: str, txnid=None, **fields):
    fields = {"user": "locktest", "hostname": "localhost", **fields}
    answer = case.client.lock(hive.LockRequest(component=[case.component(s) for s in specs], txnid=txnid, **fields))
    case.locks.append(answer.lockid)
    return answer


def _open(case: Case, n: int, **fields) -> list[int]:
    fields = {"user": "locktest", "hostname": "localhost", **fields}
    txns = case.client.open_txns(hive.OpenTxnRequest(num_txns=n, **fields)).txn_ids
    case.txns.extend(txns)
    return txns


# Hive takes its times from the database (MariaDB: whole seconds), ours may not: times are checked to lie
# within the calls that set them, give or take this
CLOCK_SLACK_MS = 2000


def test_show_locks_elements(hms, hms_client):
    """One element per component, with what the request said; times in milliseconds."""
    case = Case(hms_client, hms)
    try:
        before = _now_ms()
        a = _lock(case, f"{SR} d.t", f"{SW} d.u/p=1", user="alice", hostname="host1", agentInfo="agent-x")
        b = _lock(case, f"{EX} d.t")
        (txn,) = _open(case, 1)
        c = _lock(case, f"{SR} e", txnid=txn)
        after = _now_ms()
        assert (a.state, b.state, c.state) == (hive.LockState.ACQUIRED, hive.LockState.WAITING, hive.LockState.ACQUIRED)
        a1, a2 = case.elements(a.lockid)
        (b1,) = case.elements(b.lockid)
        (c1,) = case.elements(c.lockid)

        def fields(e):
            return (
                e.lockid,
                e.lockIdInternal,
                e.dbname,
                e.tablename,
                e.partname,
                e.state,
                e.type,
                e.txnid,
                e.user,
                e.hostname,
                e.heartbeatCount,
                e.agentInfo,
                e.blockedByExtId,
                e.blockedByIntId,
            )

        # txnid is 0, not unset, for a lock outside transactions; heartbeatCount stays 0 in Hive 2.3
        assert fields(a1) == (
            a.lockid,
            1,
            case.db("d"),
            "t",
            None,
            hive.LockState.ACQUIRED,
            hive.LockType.SHARED_READ,
            0,
            "alice",
            "host1",
            0,
            "agent-x",
            None,
            None,
        )
        assert fields(a2) == (
            a.lockid,
            2,
            case.db("d"),
            "u",
            "p=1",
            hive.LockState.ACQUIRED,
            hive.LockType.SHARED_WRITE,
            0,
            "alice",
            "host1",
            0,
            "agent-x",
            None,
            None,
        )
        # agentInfo defaults to "Unknown" (the IDL's default, which the client sends); the waiting component
        # names the component it waits for
        assert fields(b1) == (
            b.lockid,
            1,
            case.db("d"),
            "t",
            None,
            hive.LockState.WAITING,
            hive.LockType.EXCLUSIVE,
            0,
            "locktest",
            "localhost",
            0,
            "Unknown",
            a.lockid,
            1,
        )
        assert fields(c1) == (
            c.lockid,
            1,
            case.db("e"),
            None,
            None,
            hive.LockState.ACQUIRED,
            hive.LockType.SHARED_READ,
            txn,
            "locktest",
            "localhost",
            0,
            "Unknown",
            None,
            None,
        )
        for element in (a1, a2, b1):
            assert before - CLOCK_SLACK_MS <= element.lastheartbeat <= after + CLOCK_SLACK_MS, element
        for element in (a1, a2, c1):
            assert before - CLOCK_SLACK_MS <= element.acquiredat <= after + CLOCK_SLACK_MS, element
        assert b1.acquiredat is None
        # a transaction's locks are not heartbeated themselves (the transaction is): lastheartbeat 0
        assert c1.lastheartbeat == 0
    finally:
        case.release()


# (show_locks filter, the internal ids of the request's components it lists); the request locks
# 1: d.t, 2: d.t/p=1, 3: d, 4: e.t
SHOW_LOCKS_FILTERS = [
    ({}, [1, 2, 3, 4]),
    ({"dbname": "d"}, [1, 2, 3]),
    ({"dbname": "d", "tablename": "t"}, [1, 2]),
    ({"dbname": "d", "tablename": "t", "partname": "p=1"}, [2]),
    ({"dbname": "d", "tablename": "x"}, []),
    ({"dbname": "x"}, []),
    # a table name alone lists that table in every database
    ({"tablename": "t"}, [1, 2, 4]),
]


@pytest.mark.parametrize(("filters", "internal_ids"), SHOW_LOCKS_FILTERS, ids=[str(f) for f, _ in SHOW_LOCKS_FILTERS])
def test_show_locks_filters(hms, hms_client, filters, internal_ids):
    case = Case(hms_client, hms)
    try:
        lock = _lock(case, f"{SR} d.t", f"{SR} d.t/p=1", f"{SR} d", f"{SR} e.t")
        request = hive.ShowLocksRequest(
            **{key: case.db(value) if key == "dbname" else value for key, value in filters.items()}
        )
        listed = sorted(e.lockIdInternal for e in hms_client.show_locks(request).locks if e.lockid == lock.lockid)
        assert listed == internal_ids
    finally:
        case.release()


def test_open_txns_info_elements(hms, hms_client):
    """TxnInfo of open and aborted transactions; a committed one is not listed."""
    case = Case(hms_client, hms)
    try:
        before = _now_ms()
        # no agentInfo: Hive 2.3 answers "Unknown" whatever OpenTxnRequest.agentInfo said (it does not keep
        # it); later Hive reports it. Not pinned here either way
        t1, t2, t3 = _open(case, 3, user="alice", hostname="host1")
        after = _now_ms()
        hms_client.abort_txn(hive.AbortTxnRequest(txnid=t2))
        hms_client.commit_txn(hive.CommitTxnRequest(txnid=t3))
        infos = {info.id: info for info in hms_client.get_open_txns_info().open_txns}
        assert t3 not in infos
        for txn, state in ((t1, hive.TxnState.OPEN), (t2, hive.TxnState.ABORTED)):
            info = infos[txn]
            assert (info.state, info.user, info.hostname, info.agentInfo, info.heartbeatCount, info.metaInfo) == (
                state,
                "alice",
                "host1",
                "Unknown",
                0,
                None,
            ), info
            assert before - CLOCK_SLACK_MS <= info.startedTime <= after + CLOCK_SLACK_MS, info
            assert before - CLOCK_SLACK_MS <= info.lastHeartbeatTime <= after + CLOCK_SLACK_MS, info
        assert hms_client.get_open_txns_info().txn_high_water_mark == t3
    finally:
        case.release()


def test_lock_ids_and_txn_ids_are_separate_sequences(hms, hms_client):
    """One lock id per lock request, one txn id per transaction, each counting on its own."""
    case = Case(hms_client, hms)
    try:
        first = _lock(case, f"{SR} d", f"{SR} d.t").lockid
        txns = _open(case, 3)
        second = _lock(case, f"{SR} d").lockid
        (fourth_txn,) = _open(case, 1)
        assert second == first + 1
        assert txns == [txns[0], txns[0] + 1, txns[0] + 2]
        assert fourth_txn == txns[0] + 3
    finally:
        case.release()


# a server nobody used yet (Hive 2.3.10 when the peer has just started)
FRESH = {"txn_high_water_mark": 0, "open_txns": set(), "min_open_txn": None, "first_lock_id": 1, "first_txn_id": 1}


def test_a_fresh_server_counts_locks_and_txns_from_1(server):
    client = server.client()
    try:
        assert fresh_facts(client) == FRESH
    finally:
        client.close()


@pytest.mark.parametrize("peer", ["hive_peer", "hive4_peer"])
def test_the_peers_counted_locks_and_txns_from_1(request, peer):
    assert request.getfixturevalue(peer).fresh == FRESH
