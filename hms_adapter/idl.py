"""The Thrift modules generated at import time from the project's IDL files."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeAlias

import thriftpy2

import hudi_metastore_idl

IDL_DIR = Path(next(iter(hudi_metastore_idl.__path__)))
"""The installed IDL files (the repository's ``thrift/``, installed as ``hudi_metastore_idl``). The folder has
no ``__init__.py``, so that it never shadows Apache Thrift's ``thrift`` package (PyIceberg's Hive client
imports it) when the repository root is on ``sys.path``."""

ThriftStruct: TypeAlias = Any
"""A struct or exception of the generated modules. thriftpy2 makes their classes at run time from the IDL, so
a type checker knows neither them nor their fields: code names this alias where it takes or gives one."""

hive = thriftpy2.load(str(IDL_DIR / "hive_metastore.thrift"), module_name="hive_metastore_thrift")
"""Structs, exceptions and the ``ThriftHiveMetastore`` service of the HMS protocol."""

metaserver = thriftpy2.load(str(IDL_DIR / "hudi_metaserver.thrift"), module_name="hudi_metaserver_thrift")
"""Structs, exceptions and the ``ThriftHoodieMetaserver`` service of Hudi's metaserver protocol (with our
snapshot calls)."""
