"""``hudi-metastore copy``: one Hive Metastore copied into another through their Thrift APIs.

``endpoint`` (a side, its connection and what it serves), ``copier`` (the run: catalogs, databases, tables),
``partitions`` (partitions and column statistics in batches), ``constraints``, ``grants`` (roles, role
grants, privileges), ``forms`` (what is compared), ``verify`` (``--verify``), ``report`` (outcomes, summary,
exit codes), ``progress``, ``selection`` (patterns, refusals). See docs/migration.md.
"""
