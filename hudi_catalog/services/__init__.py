"""Use cases of the catalog, one class per entity; ``hudi_catalog.catalog.Catalog`` composes them."""
