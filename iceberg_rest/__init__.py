"""The Iceberg REST catalog front end: the REST protocol over the same ``Catalog`` the Hive Metastore front
end serves (``serve --iceberg-rest-port``)."""
