"""The HMS catalog calls of ``MetastoreHandler`` (Hive 3's namespaces of databases) over ``Catalog.catalogs``."""

from __future__ import annotations

from hudi_catalog import Catalog
from hudi_catalog.authorization import ObjectType, Operation
from hudi_catalog.errors import NoSuchObjectError
from hudi_catalog.model import DatabaseCatalog

from .access_rules import access
from .idl import hive


def _from_thrift(catalog) -> DatabaseCatalog:
    return DatabaseCatalog(
        catalog.name or "", catalog.description, catalog.locationUri or None, catalog.createTime or 0
    )


def _to_thrift(catalog: DatabaseCatalog):
    return hive.Catalog(
        name=catalog.name, description=catalog.description, locationUri=catalog.location, createTime=catalog.create_time
    )


class CatalogCalls:
    """Mixed into ``MetastoreHandler``."""

    catalog: Catalog

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def create_catalog(self, catalog):
        if catalog is None or catalog.catalog is None:
            raise hive.InvalidObjectException(message="Catalog cannot be null")
        self.catalog.catalogs.create(_from_thrift(catalog.catalog))

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_catalog(self, catName):
        return hive.GetCatalogResponse(catalog=_to_thrift(self.catalog.catalogs.get(catName.name if catName else "")))

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_catalogs(self):
        return hive.GetCatalogsResponse(names=self.catalog.catalogs.names())

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def alter_catalog(self, rqst):
        if rqst.newCat is None:
            raise hive.InvalidOperationException(message="New catalog cannot be null")
        self.catalog.catalogs.alter(rqst.name, _from_thrift(rqst.newCat))

    @access(Operation.ADMIN, ObjectType.GLOBAL)
    def drop_catalog(self, catName):
        try:
            self.catalog.catalogs.drop(catName.name)
        except NoSuchObjectError:
            if not catName.ifExists:
                raise
