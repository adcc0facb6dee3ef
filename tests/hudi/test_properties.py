"""A table's ``hoodie.properties`` (``hudi_catalog.hudi.properties``): the 42 real tables' against their
README and hudi-rs (the ``hudi`` package), and the Java properties syntax, settings and backup file beyond them.
"""

from __future__ import annotations

import pytest

from hudi_catalog.errors import HudiMetadataError
from hudi_catalog.hudi import read_table_config
from hudi_catalog.hudi.properties import parse_properties, table_config_from_properties
from tests.hudi.tables import all_tables
from tests.support.hudi_metadata import FS
from tests.support.hudi_oracles import _hudi_rs, readme_rows


@pytest.mark.parametrize("name", all_tables())
def test_table_config_matches_readme(table, name):
    base, config = table(name)
    expected = readme_rows()[name]
    assert config.version == expected["version"]
    assert config.table_type == expected["type"]
    assert config.partition_fields == expected["partition_fields"]
    assert config.hive_style_partitioning is expected["hive_style"]
    assert config.timeline_dir == (".hoodie" if config.version < 8 else ".hoodie/timeline")
    rs = _hudi_rs(base)
    assert (config.name, config.table_type) == (rs.table_name, rs.table_type)
    assert config.record_key_fields and config.database == "default"
    assert config.base_file_format in ("PARQUET", "LANCE")


def test_properties_syntax():
    text = (
        "# comment\n! other comment\n"
        "a=1\n"
        "b : two words \n"
        "c three\n"
        "d=line\\\n    continued\n"
        "e=tab\\there\\u00e9\\:\\=\n"
        "key\\ with\\ spaces=x\n"
        "empty=\n"
        "a=overridden\n"
    )
    assert parse_properties(text) == {
        "a": "overridden",
        "b": "two words ",
        "c": "three",
        "d": "linecontinued",
        "e": "tab\there\u00e9:=",
        "key with spaces": "x",
        "empty": "",
    }
    with pytest.raises(HudiMetadataError, match=r"hoodie.properties: .*\\u00zz"):
        parse_properties("a=\\u00zz\n")


def test_table_config_details():
    config = table_config_from_properties(
        {
            "hoodie.table.name": "t",
            "hoodie.table.version": "9",
            "hoodie.table.type": "MERGE_ON_READ",
            "hoodie.table.partition.fields": "ts:TIMESTAMP,city:SIMPLE",
            "hoodie.timeline.path": "tl",
            "hoodie.table.ordering.fields": "ts,seq",
            "hoodie.table.keygenerator.type": "CUSTOM",
            "hoodie.populate.meta.fields": "false",
        }
    )
    assert config.partition_fields == ["ts", "city"]
    assert config.timeline_dir == ".hoodie/tl" and config.history_dir == ".hoodie/tl/history"
    assert config.precombine_field == "ts" and config.key_generator == "CUSTOM"
    assert config.is_merge_on_read and not config.populate_meta_fields and config.database is None
    v6 = table_config_from_properties({"hoodie.table.name": "t", "hoodie.table.version": "6"})
    assert v6.timeline_dir == ".hoodie" and v6.archive_dir == ".hoodie/archived"
    with pytest.raises(HudiMetadataError, match="hoodie.table.name"):
        table_config_from_properties({"hoodie.table.version": "6"})
    with pytest.raises(HudiMetadataError, match="hoodie.table.version"):
        table_config_from_properties({"hoodie.table.name": "t", "hoodie.table.version": "six"})


def test_missing_properties_and_backup(tmp_path):
    with pytest.raises(HudiMetadataError, match=str(tmp_path)):
        read_table_config(FS, str(tmp_path))
    (tmp_path / ".hoodie").mkdir()
    (tmp_path / ".hoodie" / "hoodie.properties.backup").write_text("hoodie.table.name=from_backup\n")
    assert read_table_config(FS, str(tmp_path)).name == "from_backup"
