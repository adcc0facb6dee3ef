"""``Catalog.call``: a call that meets a transient database error is run again while none of its changes
committed, within its budget; never after a commit, and then its error no longer says it may be tried
again."""

from __future__ import annotations

import pytest

from hudi_catalog.errors import StorageError, TransientStorageError
from hudi_catalog.model import Database
from hudi_catalog.retries import RetryPolicy


def test_a_call_that_failed_before_committing_runs_again(catalog):
    attempts = []

    def call():
        attempts.append(1)
        if len(attempts) < 3:
            raise TransientStorageError("catalog database error: (2013, 'Lost connection')")
        catalog.databases.create(Database("retried"))
        return "done"

    assert catalog.call(call) == "done"
    assert len(attempts) == 3
    assert "retried" in catalog.databases.names()


def test_a_call_is_never_run_again_after_one_of_its_changes_committed(catalog):
    attempts = []

    def call():
        attempts.append(1)
        catalog.databases.create(Database(f"once{len(attempts)}"))  # committed
        raise TransientStorageError("catalog database error: (2013, 'Lost connection')")

    with pytest.raises(StorageError, match="part of the call was applied") as raised:
        catalog.call(call)
    # not transient: the front ends would word it as a failure a client may send again
    assert not isinstance(raised.value, TransientStorageError)
    assert len(attempts) == 1
    assert [n for n in catalog.databases.names() if n.startswith("once")] == ["once1"]


def test_the_budget_ends_the_retries_with_the_database_error(catalog):
    catalog.retry_policy = RetryPolicy(budget_seconds=0.3, first_delay=0.05, max_delay=0.1)
    attempts = []

    def call():
        attempts.append(1)
        raise TransientStorageError('catalog database error: (2003, "Can\'t connect")')

    with pytest.raises(StorageError, match="Can't connect"):
        catalog.call(call)
    assert 2 <= len(attempts) <= 10
    catalog.retry_policy = RetryPolicy(budget_seconds=0)
    attempts.clear()
    with pytest.raises(TransientStorageError):
        catalog.call(call)
    assert len(attempts) == 1
