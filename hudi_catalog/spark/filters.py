"""The WHERE clause of a read, as the exact row filter that follows partition pruning.

Pruning (``hudi_catalog.pruning.where``) keeps every partition whose values may match; the filter then
decides each row. In both, a partition column means the partition's value as the catalog holds it (what
``SHOW PARTITIONS`` lists), which for Hudi's timestamp key generators is the formatted path (``2024/01/15``),
not the source value the data files carry. So the filter reads partition columns from hidden columns
holding the catalog's values, and data columns from the data. The clause is parsed as pruning parses it.

Example:
    >>> print(exact_filter("where city = 'paris' and t.fare > 10", ["City"]))
    `__hm_part_0` = 'paris' AND `fare` > 10
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from ..pruning.where import parse_where


def hidden_column(index: int) -> str:
    """The name of the hidden column holding the catalog's value of partition key ``index``."""
    return f"__hm_part_{index}"


def exact_filter(where: str | None, partition_keys: Sequence[str]) -> str | None:
    """``where`` in Spark SQL, partition columns replaced by their hidden columns; ``None`` when empty.

    Raises:
        InvalidFilterError: the clause is not SQL.
    """
    tree = parse_where(where)
    if tree is None:
        return None
    index = {key.lower(): i for i, key in enumerate(partition_keys)}

    def rewrite(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column):
            return node
        position = index.get(node.name.lower())
        return exp.column(node.name if position is None else hidden_column(position), quoted=True)

    return tree.transform(rewrite).sql(dialect="spark")
