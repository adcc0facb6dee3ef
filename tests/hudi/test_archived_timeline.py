"""The archived timeline of any table version (``hudi_catalog.hudi.archived_timeline``): the real tables have
none; ``test_lsm_history.py`` and ``test_archived_log.py`` write the two layouts.
"""

from __future__ import annotations

import pytest

from hudi_catalog.hudi import list_archived_instants
from tests.hudi.tables import all_tables
from tests.support.hudi_metadata import FS


@pytest.mark.parametrize("name", all_tables())
def test_real_tables_have_no_archived_instants(table, name):
    base, config = table(name)
    assert list_archived_instants(FS, base, config) == []
