"""The relational store of the catalog: schema, engine and one query module per entity."""
