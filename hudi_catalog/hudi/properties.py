r"""A Hudi table's own configuration: ``.hoodie/hoodie.properties``, a Java ``.properties`` file.

Example:
    >>> parse_properties("#saved\nhoodie.table.name = trips\nhoodie.table.create.schema={\"a\"\\:1}")
    {'hoodie.table.name': 'trips', 'hoodie.table.create.schema': '{"a":1}'}
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import javaproperties
from pyarrow import fs as pafs

from ..errors import HudiMetadataError, StorageError
from .storage import open_path

log = logging.getLogger(__name__)

META_DIR = ".hoodie"
PROPERTIES_FILE = "hoodie.properties"
# Hudi rewrites hoodie.properties through a backup copy; a reader that finds no main file falls back to it.
PROPERTIES_BACKUP_FILE = "hoodie.properties.backup"

TABLE_NAME = "hoodie.table.name"
TABLE_TYPE = "hoodie.table.type"
TABLE_VERSION = "hoodie.table.version"
PARTITION_FIELDS = "hoodie.table.partition.fields"
RECORD_KEY_FIELDS = "hoodie.table.recordkey.fields"
PRECOMBINE_FIELD = "hoodie.table.precombine.field"
ORDERING_FIELDS = "hoodie.table.ordering.fields"
HIVE_STYLE_PARTITIONING = "hoodie.datasource.write.hive_style_partitioning"
URL_ENCODED_PARTITIONS = "hoodie.datasource.write.partitionpath.urlencode"
KEY_GENERATOR_CLASS = "hoodie.table.keygenerator.class"
KEY_GENERATOR_TYPE = "hoodie.table.keygenerator.type"
BASE_FILE_FORMAT = "hoodie.table.base.file.format"
TIMELINE_PATH = "hoodie.timeline.path"
TIMELINE_HISTORY_PATH = "hoodie.timeline.history.path"
ARCHIVE_FOLDER = "hoodie.archivelog.folder"
DATABASE_NAME = "hoodie.database.name"
POPULATE_META_FIELDS = "hoodie.populate.meta.fields"
TIMELINE_TIMEZONE = "hoodie.table.timeline.timezone"
CREATE_SCHEMA = "hoodie.table.create.schema"
"""The table's schema (Avro JSON) as created; writers record later schemas in commit metadata."""
QUERY_AS_RO_TABLE = "hoodie.query.as.ro.table"
"""Not in ``hoodie.properties``: the table parameter Hudi's hive sync sets on the ``_ro`` (``true``) and ``_rt``
(``false``) tables of a MERGE_ON_READ table."""

COPY_ON_WRITE = "COPY_ON_WRITE"
MERGE_ON_READ = "MERGE_ON_READ"

TABLE_TYPE_DEFAULT = COPY_ON_WRITE
BASE_FILE_FORMAT_DEFAULT = "PARQUET"
TIMELINE_PATH_DEFAULT = "timeline"
TIMELINE_HISTORY_PATH_DEFAULT = "history"
ARCHIVE_FOLDER_DEFAULT = "archived"
TIMELINE_TIMEZONE_DEFAULT = "LOCAL"

# From table version 8 (Hudi 1.0) the timeline lives in its own folder and names completed instants
# <requested>_<completed>.<action>.
FIRST_LAYOUT_2_VERSION = 8
DEFAULT_TABLE_VERSION = 8
"""The version of a table whose version neither the catalog nor its storage records."""


@dataclass(frozen=True)
class TableConfig:
    """What a reader needs from ``hoodie.properties``; ``raw`` keeps every property.

    Paths (``timeline_dir``, ``history_dir``, ``archive_dir``) are relative to the table's base path.
    """

    name: str
    table_type: str
    version: int
    partition_fields: list[str]
    record_key_fields: list[str]
    precombine_field: str | None
    hive_style_partitioning: bool
    url_encoded_partitions: bool
    key_generator: str | None
    base_file_format: str
    timeline_dir: str
    database: str | None
    raw: dict[str, str] = field(repr=False)

    @property
    def is_merge_on_read(self) -> bool:
        return self.table_type == MERGE_ON_READ

    @property
    def populate_meta_fields(self) -> bool:
        """Whether data files carry the ``_hoodie_*`` columns (``hoodie.populate.meta.fields``)."""
        return _flag(self.raw, POPULATE_META_FIELDS, True)

    @property
    def history_dir(self) -> str:
        """The LSM timeline (``<timeline>/history``) of table versions 8 and later."""
        return f"{self.timeline_dir}/{self.raw.get(TIMELINE_HISTORY_PATH) or TIMELINE_HISTORY_PATH_DEFAULT}"

    @property
    def archive_dir(self) -> str:
        """The archived timeline (``.hoodie/archived``) of table versions before 8."""
        return f"{META_DIR}/{self.raw.get(ARCHIVE_FOLDER) or ARCHIVE_FOLDER_DEFAULT}"

    @property
    def timeline_timezone(self) -> str:
        """``UTC`` or ``LOCAL``: the zone the table's instant times are written in."""
        return (self.raw.get(TIMELINE_TIMEZONE) or TIMELINE_TIMEZONE_DEFAULT).upper()


def table_version(recorded: int | str | None, on_storage: int | None = None) -> int:
    """The Hudi table version that names and decodes a table's instants (6, 8, 9): the one the catalog
    recorded (its ``hoodie.table.version`` parameter), else the one ``hoodie.properties`` gives, else
    ``DEFAULT_TABLE_VERSION``."""
    return int(recorded or on_storage or DEFAULT_TABLE_VERSION)


def parse_properties(text: str, source: str = PROPERTIES_FILE) -> dict[str, str]:
    """Parse Java ``.properties`` text as ``Properties.load`` does (later keys win); ``source`` names the
    text in errors.

    Raises:
        HudiMetadataError: a malformed ``\\uXXXX`` escape, which ``Properties.load`` refuses too.
    """
    try:
        return javaproperties.loads(text)
    except javaproperties.InvalidUEscapeError as e:
        raise HudiMetadataError(f"{source}: {e}") from e


def read_table_config(fs: pafs.FileSystem, base_path: str) -> TableConfig:
    """Read and interpret ``<base_path>/.hoodie/hoodie.properties`` (or its ``.backup``).

    Raises:
        HudiMetadataError: neither file exists, or a required property is missing or malformed.
        StorageError: the file system failed.
    """
    meta = f"{base_path.rstrip('/')}/{META_DIR}"
    path = f"{meta}/{PROPERTIES_FILE}"
    text = _read_text(fs, path)
    if text is None:
        path = f"{meta}/{PROPERTIES_BACKUP_FILE}"
        text = _read_text(fs, path)
        if text is None:
            raise HudiMetadataError(f"{base_path}: not a Hudi table (no {META_DIR}/{PROPERTIES_FILE})")
        log.warning("%s: reading %s, %s is missing", base_path, PROPERTIES_BACKUP_FILE, PROPERTIES_FILE)
    return table_config_from_properties(parse_properties(text, path), base_path)


def stored_table_config(location: str) -> TableConfig | None:
    """The table config in ``<location>/.hoodie`` (a path or URI), or None when there is none this process
    can read there."""
    try:
        fs, base = open_path(location)
        return read_table_config(fs, base)
    except (HudiMetadataError, StorageError, OSError, ValueError):
        return None


def table_config_from_properties(raw: dict[str, str], base_path: str = "") -> TableConfig:
    """Interpret parsed ``hoodie.properties``; ``base_path`` only names the table in errors."""
    name = raw.get(TABLE_NAME)
    if not name:
        raise HudiMetadataError(f"{base_path}/{META_DIR}/{PROPERTIES_FILE}: no {TABLE_NAME}")
    try:
        version = int(raw.get(TABLE_VERSION) or "0")
    except ValueError as e:
        raise HudiMetadataError(
            f"{base_path}/{META_DIR}/{PROPERTIES_FILE}: bad {TABLE_VERSION} {raw[TABLE_VERSION]!r}"
        ) from e
    table_type = (raw.get(TABLE_TYPE) or TABLE_TYPE_DEFAULT).upper()
    if table_type not in (COPY_ON_WRITE, MERGE_ON_READ):
        raise HudiMetadataError(f"{base_path}/{META_DIR}/{PROPERTIES_FILE}: bad {TABLE_TYPE} {table_type!r}")
    ordering = _fields(raw.get(ORDERING_FIELDS))
    if version >= FIRST_LAYOUT_2_VERSION:
        timeline_dir = f"{META_DIR}/{raw.get(TIMELINE_PATH) or TIMELINE_PATH_DEFAULT}"
    else:
        timeline_dir = META_DIR
    return TableConfig(
        name=name,
        table_type=table_type,
        version=version,
        # version 8+ may qualify a field with its key generator type: "ts:TIMESTAMP", "city:SIMPLE"
        partition_fields=[f.split(":", 1)[0] for f in _fields(raw.get(PARTITION_FIELDS))],
        record_key_fields=_fields(raw.get(RECORD_KEY_FIELDS)),
        precombine_field=raw.get(PRECOMBINE_FIELD) or (ordering[0] if ordering else None),
        hive_style_partitioning=_flag(raw, HIVE_STYLE_PARTITIONING, False),
        url_encoded_partitions=_flag(raw, URL_ENCODED_PARTITIONS, False),
        key_generator=raw.get(KEY_GENERATOR_CLASS) or raw.get(KEY_GENERATOR_TYPE) or None,
        base_file_format=(raw.get(BASE_FILE_FORMAT) or BASE_FILE_FORMAT_DEFAULT).upper(),
        timeline_dir=timeline_dir,
        database=raw.get(DATABASE_NAME) or None,
        raw=dict(raw),
    )


def _read_text(fs: pafs.FileSystem, path: str) -> str | None:
    """The file's text; None when it does not exist.

    Raises:
        StorageError: the file system failed (an unreachable store, a key it refuses).
    """
    try:
        with fs.open_input_stream(path) as stream:
            # Properties.store writes ISO-8859-1, anything beyond it as \uXXXX
            return stream.read().decode("latin-1")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise StorageError(f"cannot read {path}", detail=str(e)) from e


def _fields(value: str | None) -> list[str]:
    return [f.strip() for f in (value or "").split(",") if f.strip()]


def _flag(raw: dict[str, str], key: str, default: bool) -> bool:
    value = raw.get(key)
    return default if value is None or value == "" else value.strip().lower() == "true"
