"""Property test: the SQL answer of a partition filter equals an independent evaluation in Python.

Hypothesis draws a table of 1 to 4 partition keys (string, int, bigint, date, decimal), partitions with
random values (the default partition included) and a filter tree. The tree is rendered as Hive filter
text for the catalog, and evaluated here directly on the values with SQL's three-valued logic, where a
typed key of the default partition is NULL.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_catalog.partition_names import DEFAULT_PARTITION_NAME
from tests.support.partition_filters import (
    TYPES,
    create_random_table,
    evaluate,
    filter_strategy,
    render,
    value_strategy,
)


@st.composite
def cases(draw):
    types = draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=4))
    rows = draw(
        st.lists(
            st.tuples(*[st.one_of(value_strategy(t), st.just(DEFAULT_PARTITION_NAME)) for t in types]),
            min_size=1,
            max_size=12,
            unique=True,
        )
    )
    return types, rows, draw(filter_strategy(types))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(case=cases())
def test_sql_pruning_equals_python_evaluation(catalog, case):
    types, rows, tree = case
    table, names = create_random_table(catalog, "prop", types, rows)

    text = render(tree, names, types)
    got = sorted(tuple(p.values) for p in catalog.partitions.by_filter("prop", table, text))
    expected = sorted(r for r in rows if evaluate(tree, r, types) is True)
    assert got == expected, text
    catalog.tables.drop("prop", table, delete_data=True)
