"""Permanent functions."""

from __future__ import annotations

from dataclasses import replace

from ..errors import AlreadyExistsError, InvalidObjectError, NoSuchDatabaseError, NoSuchFunctionError
from ..events import CatalogEvent, EventType
from ..model import Function
from ..names import filter_names, is_valid_name, normalize
from ..store import databases as db_store
from ..store import functions as function_store
from .context import ServiceContext


class FunctionService:
    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def create(self, function: Function) -> None:
        if not is_valid_name(function.name):
            raise InvalidObjectError(f"{function.name} is not a valid object name")
        if not function.class_name:
            raise InvalidObjectError("Function class name cannot be empty")
        function = replace(
            function,
            database=normalize(function.database),
            name=normalize(function.name),
            create_time=function.create_time or self.ctx.now(),
        )
        with self.ctx.store.write() as conn:
            try:
                db_row = db_store.get_row(conn, function.database, lock=True)  # queues concurrent creates
            except NoSuchDatabaseError as e:
                raise NoSuchDatabaseError(f"The database {function.database} does not exist") from e
            if function_store.find_row(conn, function.database, function.name) is not None:
                raise AlreadyExistsError(f"Function {function.name} already exists")
            function_store.insert_function(conn, db_row.db_id, function)
            self.ctx.events.emit(conn, CatalogEvent(EventType.CREATE_FUNCTION, function=function), self.ctx.now())

    def get(self, database: str, name: str) -> Function:
        with self.ctx.store.read() as conn:
            return function_store.to_model(function_store.get_row(conn, normalize(database), normalize(name)))

    def names(self, database: str, pattern: str | None) -> list[str]:
        with self.ctx.store.read() as conn:
            return filter_names([r.name for r in function_store.rows(conn, normalize(database))], pattern)

    def all(self) -> list[Function]:
        with self.ctx.store.read() as conn:
            return [function_store.to_model(r) for r in function_store.rows(conn)]

    def alter(self, database: str, name: str, function: Function) -> None:
        if not is_valid_name(function.name):
            raise InvalidObjectError(f"{function.name} is not a valid object name")
        with self.ctx.store.write() as conn:
            row = function_store.find_row(conn, normalize(database), normalize(name))
            if row is None:
                raise NoSuchFunctionError(f"function {name} doesn't exist")
            target_db = db_store.get_row(conn, normalize(function.database or database))
            function_store.update_function(
                conn, row.func_id, target_db.db_id, replace(function, name=normalize(function.name))
            )

    def drop(self, database: str, name: str) -> None:
        with self.ctx.store.write() as conn:
            row = function_store.get_row(conn, normalize(database), normalize(name))
            function_store.delete_function(conn, row.func_id)
            self.ctx.events.emit(
                conn, CatalogEvent(EventType.DROP_FUNCTION, function=function_store.to_model(row)), self.ctx.now()
            )
