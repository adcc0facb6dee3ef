"""The password file of ``serve --auth password``: one ``user:pbkdf2_sha256$iterations$salt$hash`` line per
user (salt and hash base64), made by ``hudi-metastore passwd``. Checked in constant time; re-read when the
file changes, so users can be added without a restart."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import secrets
import threading

from .sasl import SaslRefused

log = logging.getLogger(__name__)

SCHEME = "pbkdf2_sha256"
ITERATIONS = 200_000


def hash_password(password: str, iterations: int = ITERATIONS) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    return f"{SCHEME}${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def _matches(password: str, stored: str) -> bool:
    try:
        scheme, iterations, salt, digest = stored.split("$")
        if scheme != SCHEME:
            return False
        actual = hashlib.pbkdf2_hmac("sha256", password.encode(), base64.b64decode(salt), int(iterations))
        return hmac.compare_digest(actual, base64.b64decode(digest))
    except (ValueError, TypeError):
        return False


def set_password(path: str, user: str, password: str) -> None:
    """Add ``user`` to the file, or replace its password (the file is replaced whole, mode 0600)."""
    if not user or ":" in user or any(ch.isspace() for ch in user):
        raise ValueError("a user name has no colon and no blank")
    lines = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as existing:
            lines = [line.rstrip("\n") for line in existing if line.strip() and not line.startswith(f"{user}:")]
    lines.append(f"{user}:{hash_password(password)}")
    partial = f"{path}.tmp"
    with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    os.replace(partial, path)


_UNKNOWN_USER = hash_password(secrets.token_hex(16))
"""What an unknown user's password is checked against, so that it takes as long as a known one's."""


class PasswordFile:
    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._mtime: int | None = None
        self._users: dict[str, str] = {}
        self._load()  # an unreadable file fails the start

    def _load(self) -> None:
        mtime = os.stat(self.path).st_mtime_ns
        if mtime == self._mtime:
            return
        users = {}
        with open(self.path, encoding="utf-8") as lines:
            for line in lines:
                user, sep, stored = line.strip().partition(":")
                if sep and user and not user.startswith("#"):
                    users[user] = stored
        self._users, self._mtime = users, mtime
        log.info("read %d users from %s", len(users), self.path)

    def check(self, user: str, password: str) -> bool:
        """Whether ``password`` is ``user``'s (an unknown user costs as much as a wrong password)."""
        with self._lock:
            try:
                self._load()
            except OSError as error:
                log.error("could not re-read %s (%s); keeping the users read before", self.path, error)
            stored = self._users.get(user)
        return _matches(password, stored if stored is not None else _UNKNOWN_USER) and stored is not None


class PlainMechanism:
    """SASL PLAIN (``authzid NUL user NUL password`` in one response) against a password file."""

    method = "PASSWORD"

    def __init__(self, passwords: PasswordFile) -> None:
        self._passwords = passwords
        self.complete = False
        self.principal: str | None = None
        self.user: str | None = None
        self.security_layer = None  # PLAIN protects nothing: TLS does, under it

    def evaluate(self, response: bytes) -> bytes | None:
        parts = response.split(b"\0")
        if len(parts) != 3:
            raise SaslRefused("malformed PLAIN response")
        authzid, user, password = (part.decode("utf-8", "replace") for part in parts)
        if (authzid and authzid != user) or not self._passwords.check(user, password):
            raise SaslRefused("authentication failed")  # the same answer for a wrong user and a wrong password
        self.complete, self.principal, self.user = True, user, user
        return None
