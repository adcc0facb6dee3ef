"""SASL DIGEST-MD5 (RFC 2831) with delegation tokens, as Hive Metastore accepts a token from a client that has
no Kerberos ticket (a Spark executor, a YARN task).

The server challenges with realm ``default``, a fresh nonce, the qualities of protection it allows and
``algorithm=md5-sess``. The client answers with the token's identifier (base64) as user name and a response
hashed from the token's password (base64 of its HMAC), the nonce, its own cnonce and the digest URI; the
server recomputes it from the password it derives from the identifier, and proves it knows the password
too (``rspauth``). A nonce serves one response on one connection: a response replayed on another connection
meets another nonce and fails. With ``auth-int`` every frame carries an HMAC-MD5 and a sequence number;
with ``auth-conf`` frame and HMAC are also encrypted, with RC4 (the one DIGEST-MD5 cipher every Hadoop client
speaks that ``cryptography`` still has; prefer Kerberos or TLS where the cipher matters).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import logging
import re
import secrets
import struct
from collections.abc import Callable

from hudi_catalog.delegation_tokens import TokenIdentifier
from hudi_catalog.errors import DelegationTokenError

from .sasl import Qop, SaslRefused

log = logging.getLogger(__name__)

REALM = "default"
"""Hadoop's SASL realm for token authentication (``SaslRpcServer.SASL_DEFAULT_REALM``)."""
MAX_BUFFER = 65536
CIPHER = "rc4"
_CLIENT_SIGNING = b"Digest session key to client-to-server signing key magic constant"
_SERVER_SIGNING = b"Digest session key to server-to-client signing key magic constant"
_CLIENT_SEALING = b"Digest H(A1) to client-to-server sealing key magic constant"
_SERVER_SEALING = b"Digest H(A1) to server-to-client sealing key magic constant"
_MESSAGE_TYPE = b"\x00\x01"
_DIRECTIVE = re.compile(r'\s*([A-Za-z0-9-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^,]*)\s*(?:,|$)')

TokenVerifier = Callable[[bytes], tuple[TokenIdentifier, bytes]]
"""The identifier and password of a live token, from its identifier's bytes (``DelegationTokenError`` else)."""


def _md5(data: bytes) -> bytes:
    return hashlib.md5(data).digest()


def parse_directives(text: bytes) -> dict[str, str]:
    """``key=value`` and ``key="quoted value"`` pairs of a DIGEST-MD5 message; ``SaslRefused`` when malformed
    or a directive repeats."""
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        raise SaslRefused("DIGEST-MD5: response is not UTF-8") from None
    directives: dict[str, str] = {}
    position = 0
    while position < len(decoded):
        match = _DIRECTIVE.match(decoded, position)
        if match is None or match.end() == position:
            raise SaslRefused("DIGEST-MD5: malformed response")
        key, value = match.group(1).lower(), match.group(2)
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        if key in directives:
            raise SaslRefused(f"DIGEST-MD5: directive {key} repeated")
        directives[key] = value
        position = match.end()
    return directives


class DigestIntegrityLayer:
    """``auth-int``: each frame is followed by a 10-byte HMAC-MD5 of sequence number and frame, the message
    type 1 and the 4-byte sequence number; each direction counts from 0."""

    def __init__(self, ha1: bytes) -> None:
        self._receive_key, self._send_key = _md5(ha1 + _CLIENT_SIGNING), _md5(ha1 + _SERVER_SIGNING)
        self._received = self._sent = 0

    @staticmethod
    def _mac(key: bytes, sequence: int, data: bytes) -> bytes:
        return hmac.new(key, struct.pack(">I", sequence) + data, hashlib.md5).digest()[:10]

    def wrap(self, data: bytes) -> bytes:
        sequence = struct.pack(">I", self._sent)
        wrapped = data + self._mac(self._send_key, self._sent, data) + _MESSAGE_TYPE + sequence
        self._sent += 1
        return wrapped

    def unwrap(self, data: bytes) -> bytes:
        if len(data) < 16:
            raise ConnectionError("a signed frame is too short")
        message, mac, kind, sequence = data[:-16], data[-16:-6], data[-6:-4], data[-4:]
        if kind != _MESSAGE_TYPE or struct.unpack(">I", sequence)[0] != self._received:
            raise ConnectionError("a signed frame is out of sequence")
        if not hmac.compare_digest(mac, self._mac(self._receive_key, self._received, message)):
            raise ConnectionError("a frame failed its integrity check")
        self._received += 1
        return message


class DigestPrivacyLayer(DigestIntegrityLayer):
    """``auth-conf`` with ``rc4``: frame and HMAC encrypted by a stream per direction, keyed from H(A1);
    message type and sequence number follow in clear."""

    def __init__(self, ha1: bytes) -> None:
        super().__init__(ha1)
        from cryptography.hazmat.decrepit.ciphers.algorithms import ARC4
        from cryptography.hazmat.primitives.ciphers import Cipher

        self._decrypt = Cipher(ARC4(_md5(ha1 + _CLIENT_SEALING)), mode=None).decryptor()
        self._encrypt = Cipher(ARC4(_md5(ha1 + _SERVER_SEALING)), mode=None).encryptor()

    def wrap(self, data: bytes) -> bytes:
        sequence = struct.pack(">I", self._sent)
        sealed = self._encrypt.update(data + self._mac(self._send_key, self._sent, data))
        self._sent += 1
        return sealed + _MESSAGE_TYPE + sequence

    def unwrap(self, data: bytes) -> bytes:
        if len(data) < 16:
            raise ConnectionError("an encrypted frame is too short")
        opened = self._decrypt.update(data[:-6])
        return super().unwrap(opened + data[-6:])


class DigestMechanism:
    """DIGEST-MD5 for one connection (see the module's docstring)."""

    method = "TOKEN"

    def __init__(self, verify: TokenVerifier, qop: Qop) -> None:
        self._verify = verify
        self._qop = qop
        self._nonce: str | None = None
        self.complete = False
        self.principal: str | None = None
        self.user: str | None = None
        self.groups: tuple[str, ...] = ()  # a Kerberos principal or a token names no groups
        self.security_layer: DigestIntegrityLayer | None = None

    def evaluate(self, response: bytes) -> bytes | None:
        if self._nonce is None:  # the client's empty initial response: challenge it
            self._nonce = base64.b64encode(secrets.token_bytes(24)).decode()
            qops = ",".join(self._qop.names())
            cipher = f',cipher="{CIPHER}"' if self._qop & Qop.AUTH_CONF else ""
            return (
                f'realm="{REALM}",nonce="{self._nonce}",qop="{qops}",charset=utf-8,'
                f"maxbuf={MAX_BUFFER}{cipher},algorithm=md5-sess"
            ).encode()
        return self._check(parse_directives(response), self._nonce)

    def _check(self, d: dict[str, str], nonce: str) -> bytes:
        for key in ("username", "nonce", "cnonce", "nc", "digest-uri", "response"):
            if not d.get(key):
                raise SaslRefused(f"DIGEST-MD5: the response lacks {key}")
        if not hmac.compare_digest(d["nonce"], nonce) or d["nc"] != "00000001":
            raise SaslRefused("DIGEST-MD5: stale or replayed response")
        if d.get("realm", REALM) != REALM or d["digest-uri"].split("/")[1:2] != [REALM]:
            raise SaslRefused("DIGEST-MD5: wrong realm or digest-uri")
        qop = d.get("qop", "auth")
        if qop not in self._qop.names():
            raise SaslRefused(f"DIGEST-MD5: quality of protection {qop[:16]!r} not offered")
        if qop == "auth-conf" and d.get("cipher") != CIPHER:
            raise SaslRefused(f"DIGEST-MD5: cipher {d.get('cipher', '')[:16]!r} not offered ({CIPHER})")
        if d.get("authzid") and d["authzid"] != d["username"]:
            raise SaslRefused("DIGEST-MD5: a token may not act as another user")
        try:
            identifier, token_password = self._verify(base64.b64decode(d["username"], validate=True))
        except (binascii.Error, ValueError):
            raise SaslRefused("DIGEST-MD5: the user name is not a delegation token identifier") from None
        except DelegationTokenError as error:
            log.warning("delegation token refused: %s", error)
            raise SaslRefused("DIGEST-MD5: invalid or expired delegation token") from None
        ha1 = self._ha1(d, base64.b64encode(token_password))
        if not hmac.compare_digest(d["response"].lower(), self._digest(ha1, d, qop, b"AUTHENTICATE")):
            raise SaslRefused("DIGEST-MD5: wrong response (not this token's password)")
        self.complete, self.principal, self.user = True, identifier.owner, identifier.owner
        if qop == "auth-int":
            self.security_layer = DigestIntegrityLayer(ha1)
        elif qop == "auth-conf":
            self.security_layer = DigestPrivacyLayer(ha1)
        log.debug("delegation token %d of %s authenticated with %s", identifier.sequence_number, identifier.owner, qop)
        return f"rspauth={self._digest(ha1, d, qop, b'')}".encode()

    @staticmethod
    def _ha1(d: dict[str, str], token_password: bytes) -> bytes:
        """H(A1) of md5-sess: MD5 of (MD5 of user:realm:password), nonce, cnonce and any authzid."""
        secret = _md5(d["username"].encode() + b":" + d.get("realm", REALM).encode() + b":" + token_password)
        a1 = secret + f":{d['nonce']}:{d['cnonce']}".encode()
        if d.get("authzid"):
            a1 += b":" + d["authzid"].encode()
        return _md5(a1)

    @staticmethod
    def _digest(ha1: bytes, d: dict[str, str], qop: str, method: bytes) -> str:
        """The response (``method`` AUTHENTICATE) or ``rspauth`` (empty method) value."""
        a2 = method + b":" + d["digest-uri"].encode()
        if qop != "auth":
            a2 += b":" + b"0" * 32
        text = f"{ha1.hex()}:{d['nonce']}:{d['nc']}:{d['cnonce']}:{qop}:{_md5(a2).hex()}"
        return hashlib.md5(text.encode()).hexdigest()
