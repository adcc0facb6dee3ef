"""Serving a Starlette application on a port of the ``serve`` process: what the Iceberg REST port and the web
console share (``AppServer``)."""
