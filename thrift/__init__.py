"""The Thrift IDL files of hudi-metastore, installed as package data (``hudi_metastore_idl``)."""

from pathlib import Path

IDL_DIR = Path(__file__).parent
