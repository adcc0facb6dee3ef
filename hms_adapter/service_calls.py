"""The fb303 service calls of ``MetastoreHandler`` (name, version, status, counters, options), the session
calls (``set_ugi``, ``getMetaConf``/``setMetaConf``) and ``get_config_value``."""

from __future__ import annotations

import logging

from hudi_catalog.authorization import ObjectType, Operation

from . import connection
from .access_rules import access
from .idl import hive
from .meta_conf import ConnectionMetaConf

log = logging.getLogger("hms_adapter.handler")  # the handler's log lines keep their logger name

SERVICE_NAME = "hudi-metastore"
HIVE_VERSION = "2.3.10"
CONFIG_KEY_PATTERN = ("hive", "hdfs", "mapred", "metastore")


class ServiceCalls:
    """Mixed into ``MetastoreHandler``."""

    started: int
    """When the handler was made (seconds since the epoch)."""
    meta_conf: ConnectionMetaConf
    config: dict[str, str]
    """The values ``get_config_value`` answers."""

    # -- fb303 ------------------------------------------------------------------------------------

    @access(Operation.READ, ObjectType.GLOBAL)
    def getName(self):
        return SERVICE_NAME

    @access(Operation.READ, ObjectType.GLOBAL)
    def getVersion(self):
        return HIVE_VERSION

    @access(Operation.READ, ObjectType.GLOBAL)
    def getStatus(self):
        return hive.fb303.fb_status.ALIVE

    @access(Operation.READ, ObjectType.GLOBAL)
    def getStatusDetails(self):
        return "ALIVE"

    @access(Operation.READ, ObjectType.GLOBAL)
    def aliveSince(self):
        return self.started

    @access(Operation.READ, ObjectType.GLOBAL)
    def getCounters(self):
        return {}

    @access(Operation.READ, ObjectType.GLOBAL)
    def getCounter(self, key):
        return 0

    @access(Operation.READ, ObjectType.GLOBAL)
    def getOption(self, key):
        return ""

    @access(Operation.READ, ObjectType.GLOBAL)
    def getOptions(self):
        return {}

    @access(Operation.READ, ObjectType.GLOBAL)
    def setOption(self, key, value):
        return None

    @access(Operation.READ, ObjectType.GLOBAL)
    def getCpuProfile(self, profileDurationInSec):
        return ""

    @access(Operation.READ, ObjectType.GLOBAL)
    def reinitialize(self):
        return None

    @access(Operation.READ, ObjectType.GLOBAL)
    def flushCache(self):
        """Nothing to flush: the read caches check the catalog database's revisions on every read."""
        return None

    @access(Operation.READ, ObjectType.GLOBAL)
    def shutdown(self):
        """A client may not stop the server: accepted and ignored (the server stops on SIGTERM)."""
        log.info("ignored a client's shutdown request")

    # -- session and configuration ----------------------------------------------------------------

    @access(Operation.READ, ObjectType.GLOBAL)
    def set_ugi(self, user_name, group_names):
        """The user a client claims: recorded for the audit log, trusted for nothing."""
        connection.claim_user(user_name)
        return list(group_names or [])

    @access(Operation.READ, ObjectType.GLOBAL)
    def getMetaConf(self, key):
        return self.meta_conf.get(key)

    @access(Operation.READ, ObjectType.GLOBAL)
    def setMetaConf(self, key, value):
        self.meta_conf.set(key, value)

    # HiveServer2 4 asks this as it starts; none are kept here, and answering so keeps errors out of its log

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_runtime_stats(self, rqst):
        """Query runtime statistics kept for re-execution (``hive.query.reexecution.stats.persist.scope`` =
        ``metastore``): none are kept (``add_runtime_stats`` is not served)."""
        return []

    @access(Operation.READ, ObjectType.GLOBAL)
    def get_config_value(self, name, defaultValue):
        if name is None:
            return defaultValue
        if not name.startswith(CONFIG_KEY_PATTERN):
            raise hive.ConfigValSecurityException(
                message=f"For security reasons, the config key {name} cannot be accessed"
            )
        return self.config.get(name, defaultValue)
