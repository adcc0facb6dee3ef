"""The Hive Metastore Thrift front end of hudi-metastore: protocol translation only."""
