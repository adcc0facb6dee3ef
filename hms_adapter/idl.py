"""The Thrift modules generated at import time from the project's IDL files."""

from __future__ import annotations

import thriftpy2
from hudi_metastore_idl import IDL_DIR

hive = thriftpy2.load(str(IDL_DIR / "hive_metastore.thrift"), module_name="hive_metastore_thrift")
"""Structs, exceptions and the ``ThriftHiveMetastore`` service of the HMS protocol."""

metaserver = thriftpy2.load(str(IDL_DIR / "hudi_metaserver.thrift"), module_name="hudi_metaserver_thrift")
"""Structs, exceptions and the ``ThriftHoodieMetaserver`` service of Hudi's metaserver protocol (with our
snapshot calls)."""
