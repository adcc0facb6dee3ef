"""The web console (``serve --console-port``): read-only pages over the ``Catalog`` facade, rendered on the
server, for people who run the metastore ([docs/console.md](../docs/console.md))."""
