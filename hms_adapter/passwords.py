"""The password file of ``serve --auth password``: one ``user:pbkdf2_sha256$iterations$salt$hash:groups`` line
per user (salt and hash base64; ``groups`` comma-separated, the user's groups for ``GROUP`` grants), made by
``hudi-metastore passwd``. A line without the groups column (the format before it) is a user in no group.
Checked in constant time; re-read when the file changes, so users and groups change without a restart."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Entry:
    """A user's line: its stored password and its groups."""

    stored: str
    groups: tuple[str, ...] = ()


def _parse(line: str) -> tuple[str, Entry] | None:
    """A line's user and entry; None for a blank line, a comment or a line without a colon."""
    user, sep, rest = line.strip().partition(":")
    if not sep or not user or user.startswith("#"):
        return None
    stored, _, groups = rest.partition(":")
    return user, Entry(stored, tuple(g.strip() for g in groups.split(",") if g.strip()))


def _valid_name(name: str) -> bool:
    return bool(name) and not any(ch in ":," or ch.isspace() for ch in name)


def set_password(path: str, user: str, password: str | None, groups: Sequence[str] | None = None) -> None:
    """Add ``user`` to the file, or replace its password (``password`` None: keep it) and, when ``groups`` is
    given, its groups (otherwise the groups it had stay). The file is replaced whole, mode 0600."""
    if not _valid_name(user):
        raise ValueError("a user name has no colon, no comma and no blank")
    if groups is not None and not all(_valid_name(g) for g in groups):
        raise ValueError("a group name has no colon, no comma and no blank")
    lines, old = [], None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as existing:
            for line in existing:
                parsed = _parse(line)
                if parsed is not None and parsed[0] == user:
                    old = parsed[1]
                elif line.strip():
                    lines.append(line.rstrip("\n"))
    if password is not None:
        stored = hash_password(password)
    elif old is not None:
        stored = old.stored
    else:
        raise ValueError(f"{user} is not in {path}: give a password")
    kept = tuple(groups) if groups is not None else (old.groups if old is not None else ())
    lines.append(f"{user}:{stored}:{','.join(kept)}" if kept else f"{user}:{stored}")
    partial = f"{path}.tmp"
    with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    os.replace(partial, path)


class PasswordFile:
    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._mtime: int | None = None
        self._users: dict[str, Entry] = {}
        # what an unknown user's password is checked against, so that it takes as long as a known one's (made
        # here, not at import: 200,000 rounds cost every process of the command 0.12 s)
        self._unknown_user = hash_password(secrets.token_hex(16))
        self._load()  # an unreadable file fails the start

    def _load(self) -> None:
        mtime = os.stat(self.path).st_mtime_ns
        if mtime == self._mtime:
            return
        users = {}
        with open(self.path, encoding="utf-8") as lines:
            for line in lines:
                parsed = _parse(line)
                if parsed is not None:
                    users[parsed[0]] = parsed[1]
        self._users, self._mtime = users, mtime
        log.info("read %d users from %s", len(users), self.path)

    def check(self, user: str, password: str) -> tuple[str, ...] | None:
        """``user``'s groups when ``password`` is its password, else None (an unknown user costs as much as a
        wrong password)."""
        with self._lock:
            try:
                self._load()
            except OSError as error:
                log.error("could not re-read %s (%s); keeping the users read before", self.path, error)
            entry = self._users.get(user)
        if not _matches(password, entry.stored if entry is not None else self._unknown_user) or entry is None:
            return None
        return entry.groups

    def groups_of(self, user: str) -> tuple[str, ...]:
        """The groups the file gives ``user`` (none for a user it does not name)."""
        with self._lock:
            entry = self._users.get(user)
        return entry.groups if entry is not None else ()


class PlainMechanism:
    """SASL PLAIN (``authzid NUL user NUL password`` in one response) against a password file."""

    method = "PASSWORD"

    def __init__(self, passwords: PasswordFile) -> None:
        self._passwords = passwords
        self.complete = False
        self.principal: str | None = None
        self.user: str | None = None
        self.groups: tuple[str, ...] = ()
        self.security_layer = None  # PLAIN protects nothing: TLS does, under it

    def evaluate(self, response: bytes) -> bytes | None:
        parts = response.split(b"\0")
        if len(parts) != 3:
            raise SaslRefused("malformed PLAIN response")
        authzid, user, password = (part.decode("utf-8", "replace") for part in parts)
        groups = self._passwords.check(user, password)
        if (authzid and authzid != user) or groups is None:
            raise SaslRefused("authentication failed")  # the same answer for a wrong user and a wrong password
        self.complete, self.principal, self.user, self.groups = True, user, user, groups
        return None
