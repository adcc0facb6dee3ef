"""Opening a location's file system where its client cannot run: one line saying what is missing."""

from __future__ import annotations

import os
import re

import pytest

from hudi_catalog.filesystems import HDFS_NEEDS
from tests.conftest import hive
from tests.hms_adapter.helpers import make_database


@pytest.mark.parametrize("location", ["hdfs://namenode:8020/wh/d.db", "viewfs://cluster/wh/d.db"])
def test_hdfs_without_libhdfs_is_one_meta_exception_naming_what_is_missing(client, location):
    if os.environ.get("ARROW_LIBHDFS_DIR") or os.environ.get("HADOOP_HOME"):
        pytest.skip("this machine has a Hadoop client: the name node would be asked instead")
    with pytest.raises(hive.MetaException) as raised:
        client.create_database(make_database("d", location=location))
    message = raised.value.message
    assert re.match(rf"Cannot open the file system of {re.escape(location)}: .*lib(hdfs|jvm)", message), message
    assert HDFS_NEEDS in message
    assert "d" not in client.get_all_databases()
