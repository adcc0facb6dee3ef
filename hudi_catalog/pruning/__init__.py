"""Partition pruning in SQL: a Hive metastore filter becomes one condition over ``partition_key_val``."""

from .parse import parse_filter, parse_partition_filter
from .to_sql import filter_to_clause
from .where import where_to_filter

__all__ = ["parse_filter", "parse_partition_filter", "filter_to_clause", "where_to_filter"]
