"""Argument helpers every call group of ``MetastoreHandler`` shares."""

from __future__ import annotations

from .convert.names import strip_catalog


def bare_db(name: str | None) -> str:
    """A call's database name without its ``@<catalog>#`` prefix ("" for none)."""
    return strip_catalog(name) or ""


def env_properties(environment_context) -> dict[str, str]:
    """The properties of a call's ``EnvironmentContext`` (none without one)."""
    return dict(environment_context.properties or {}) if environment_context is not None else {}
