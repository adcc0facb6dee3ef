"""The Thrift processor: dispatches a call to the handler and answers it the way Hive Metastore does.

- A method the handler does not serve (or that the IDL does not know) answers ``UNKNOWN_METHOD``.
- A catalog error goes into the method's declared exception slot (``hms_adapter.errors``).
- An unexpected error is logged and answered, never allowed to close the connection.
- A partition list answered from cached encodings is spliced into binary-protocol replies as bytes.
One line is logged per call at debug level; a failed call with its method name at the level of its error
(``errors.log_level``: info for routine outcomes such as a missing object, warning for other client
errors, error with the traceback for the unexpected).
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from contextlib import nullcontext

from thriftpy2.thrift import TApplicationException, TMessageType, TType

from hudi_catalog.errors import InvalidInputError

from .audit import AuditLog
from .call_target import target_of_call
from .convert.dynamic_partitions_wire import read_add_dynamic_partitions_args
from .convert.wire import EncodedAnswer, speaks_binary
from .errors import HMS_PREFERENCES, ErrorPreferences, declared_exceptions, log_level, to_thrift_error

log = logging.getLogger(__name__)


def _malformed(values: list) -> bool:
    """Whether a call's arguments, or the fields of a request struct among them, include a missing value or
    a string that was not UTF-8 (thriftpy2 hands those over as bytes): then a handler's
    ``AttributeError``/``TypeError`` is the client's bad request, not a defect."""
    for value in values:
        if value is None or isinstance(value, bytes):
            return True
        spec = getattr(value, "thrift_spec", None)
        if spec and any(
            getattr(value, field[1], None) is None or isinstance(getattr(value, field[1], None), bytes)
            for field in spec.values()
        ):
            return True
    return False


ARGUMENT_READERS: dict[str, Callable] = {"add_dynamic_partitions": read_add_dynamic_partitions_args}
"""The calls whose arguments are read by a function of the protocol (a request struct of two clashing
layouts) rather than by their ``<method>_args`` struct."""

CallRecorder = Callable[[str, float, str | None], None]
"""Hears of each call: its method, seconds taken and the class name of its error (None: answered)."""


class MetastoreProcessor:
    def __init__(
        self,
        service,
        handler,
        error_preferences: ErrorPreferences = HMS_PREFERENCES,
        audit: AuditLog | None = None,
        on_call: CallRecorder | None = None,
    ) -> None:
        """The object each call names is read from its arguments once (``call_target``) and handed to all
        that need it: ``handler.call_scope(target, api)``, when the handler has it, is entered around each call,
        and in it ``handler.authorize(method, args, target)`` checks the call before it runs, both inside
        ``handler.run_call(method, action)`` (which tries a call again through transient database errors);
        ``audit`` gets a line per call; ``on_call(method, seconds, error class name or None)`` hears of each
        call (metrics)."""
        self._service = service
        self._handler = handler
        self._audit = audit
        self._on_call = on_call
        self._error_preferences = error_preferences
        self._call_scope = getattr(handler, "call_scope", lambda target, api: nullcontext())
        self._authorize = getattr(handler, "authorize", lambda api, args, target: None)
        self._run_call = getattr(handler, "run_call", lambda api, action: action())
        self._declared: dict[str, dict[type, str]] = {}

    def serves(self, api: str) -> bool:
        return api in self._service.thrift_services and callable(getattr(self._handler, api, None))

    def process(self, iprot, oprot) -> bool:
        """Read one call, run it and answer it; False when it was a one-way call (nothing answered)."""
        api, _message_type, seqid = iprot.read_message_begin()
        if not self.serves(api):
            iprot.skip(TType.STRUCT)
            iprot.read_message_end()
            log.warning("%s: unknown method", api)
            error = TApplicationException(TApplicationException.UNKNOWN_METHOD, f"Invalid method name: '{api}'")
            self._send(oprot, api, TMessageType.EXCEPTION, error, seqid)
            return True
        read_arguments = ARGUMENT_READERS.get(api)
        if read_arguments is not None:
            args = read_arguments(iprot)
        else:
            args = getattr(self._service, api + "_args")()
            args.read(iprot)
        iprot.read_message_end()
        result = getattr(self._service, api + "_result")()
        names = [spec[1] for spec in args.thrift_spec.values()]
        values = [getattr(args, name) for name in names]
        target = target_of_call(values, names)
        started = time.perf_counter()
        outcome = "ok"
        log.debug("%s started", api)
        try:
            method = getattr(self._handler, api)

            def call():
                self._authorize(api, values, target)
                return method(*values)

            with self._call_scope(target, api):
                result.success = self._run_call(api, call)
        except Exception as error:  # every error is answered: a bad call must not end the connection
            if isinstance(error, (AttributeError, TypeError)) and _malformed(values):
                error = InvalidInputError(
                    f"Invalid arguments to {api}: a value is missing or a string is not UTF-8 ({error})"
                )
            outcome = type(error).__name__
            slot, thrift_error = to_thrift_error(error, self._declared_of(api, result), self._error_preferences)
            level = log_level(error)
            log.log(level, "%s failed: %s: %s", api, type(error).__name__, error, exc_info=level == logging.ERROR)
            release_frames(error)
            if slot is None:
                self._send(oprot, api, TMessageType.EXCEPTION, thrift_error, seqid)
                return True
            setattr(result, slot, thrift_error)
        finally:
            elapsed = time.perf_counter() - started
            log.debug("%s %.1f ms", api, elapsed * 1000)
            if self._audit is not None:
                self._audit.record(api, values, target, outcome, elapsed * 1000)
            if self._on_call is not None:
                self._on_call(api, elapsed, None if outcome == "ok" else outcome)
        answer = getattr(result, "success", None)
        if isinstance(answer, EncodedAnswer):
            if speaks_binary(oprot):
                self._send_bytes(oprot, api, seqid, answer.result_struct())
                return True
            result.success = answer.to_thrift()
        if getattr(result, "oneway", False):
            return False
        self._send(oprot, api, TMessageType.REPLY, result, seqid)
        return True

    def _declared_of(self, api, result):
        if api not in self._declared:
            self._declared[api] = declared_exceptions(result)
        return self._declared[api]

    @staticmethod
    def _send_bytes(oprot, api, seqid, result_struct: bytes) -> None:
        oprot.write_message_begin(api, TMessageType.REPLY, seqid)
        oprot.trans.write(result_struct)
        oprot.write_message_end()
        oprot.trans.flush()

    @staticmethod
    def _send(oprot, api, message_type, payload, seqid) -> None:
        oprot.write_message_begin(api, message_type, seqid)
        payload.write(oprot)
        oprot.write_message_end()
        oprot.trans.flush()


def release_frames(error: BaseException) -> None:
    """Drop the tracebacks of ``error`` and the errors it chains, clearing the local variables of the frames
    they went through (once logged, nothing reads them). An error answered to the client is kept in the call's
    result, a local of ``process``, whose frame its traceback holds: that cycle kept a refused request's
    arguments (a 5 MB filter, the request's bytes) alive until the cyclic collector next ran, tens of
    megabytes a request. Without it they are freed as the call ends."""
    pending: list[BaseException | None] = [error]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        traceback.clear_frames(current.__traceback__)
        current.__traceback__ = None
        pending += [current.__cause__, current.__context__]
