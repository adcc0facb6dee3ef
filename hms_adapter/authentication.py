"""How the Hive Metastore port authenticates its connections (``serve --auth``): the SASL mechanisms its
options call for, checked before the server listens.

- ``none``: no SASL; a client's ``set_ugi`` is a claim nothing checks.
- ``password``: SASL PLAIN against ``--password-file`` (over TLS unless ``--allow-plaintext-passwords``).
- ``kerberos``: SASL GSSAPI with ``--kerberos-principal``'s key from ``--kerberos-keytab``, and DIGEST-MD5
  with the delegation tokens this metastore issued, as Hive Metastore with ``hive.metastore.sasl.enabled``.
"""

from __future__ import annotations

import argparse
import functools
import ipaddress
import socket
from collections.abc import Callable

from .digest import DigestMechanism, TokenVerifier
from .kerberos import KerberosAcceptor, server_principal, short_name
from .passwords import PasswordFile, PlainMechanism
from .sasl import MechanismFactories, Qop

AUTH_MODES = ("none", "password", "kerberos")


def check_options(args: argparse.Namespace) -> None:
    """``SystemExit`` with a message when the authentication and authorization options do not go together."""
    if args.auth == "none":
        if args.authorization != "none":
            raise SystemExit(
                f"hudi-metastore: --authorization {args.authorization} needs authenticated callers: add "
                "--auth password or --auth kerberos (without them a client names itself with set_ugi)"
            )
        return
    if args.auth == "password":
        if not args.password_file:
            raise SystemExit("hudi-metastore: --auth password needs --password-file")
        if not (args.tls_cert or args.allow_plaintext_passwords):
            raise SystemExit(
                "hudi-metastore: --auth password sends passwords in clear without TLS: add --tls-cert "
                "and --tls-key, or --allow-plaintext-passwords"
            )
    if args.auth == "kerberos" and not (args.kerberos_principal and args.kerberos_keytab):
        raise SystemExit("hudi-metastore: --auth kerberos needs --kerberos-principal and --kerberos-keytab")
    try:
        Qop.parse(args.sasl_qop)
    except ValueError as error:
        raise SystemExit(f"hudi-metastore: --sasl-qop: {error}") from None
    if not args.no_metaserver:
        raise SystemExit(
            f"hudi-metastore: Hudi's metaserver protocol has no authentication: with --auth {args.auth}, "
            "add --no-metaserver"
        )


def _loopback_only(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address (a wildcard is not)."""
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(host or None, None, proto=socket.IPPROTO_TCP)}
    except OSError:
        return False
    return all(ipaddress.ip_address(address.split("%")[0]).is_loopback for address in addresses)


def exposure_warning(args: argparse.Namespace) -> str | None:
    """What to warn about at start when a server without authentication listens beyond loopback."""
    if args.auth != "none" or _loopback_only(args.host):
        return None
    return (
        f"listening on {args.host or '*'} without authentication: anyone who can reach the port can read, "
        "change and drop every object, and set_ugi lets a client claim any user; use --auth kerberos or "
        "--auth password (docs/security.md), or --host 127.0.0.1"
    )


def user_names(args: argparse.Namespace) -> Callable[[str], str]:
    """A principal's user name: with Kerberos, ``auth_to_local``'s default rule in the server's realm;
    otherwise the name itself."""
    if args.auth == "kerberos":
        realm = server_principal(args.kerberos_principal, args.host).rpartition("@")[2]
        return functools.partial(short_name, realm=realm)
    return str


def password_file(args: argparse.Namespace) -> PasswordFile | None:
    """The password file of ``--auth password`` (None in the other modes); ``SystemExit`` when unreadable."""
    if args.auth != "password":
        return None
    try:
        return PasswordFile(args.password_file)
    except OSError as error:
        raise SystemExit(f"hudi-metastore: cannot read the password file: {error}") from None


def sasl_mechanisms(
    args: argparse.Namespace, tokens: TokenVerifier, passwords: PasswordFile | None
) -> MechanismFactories | None:
    """The mechanisms of the options (checked by ``check_options``), with ``tokens`` checking delegation
    tokens and ``passwords`` the ``--auth password`` users (``password_file``); None for ``--auth none``.
    ``SystemExit`` when a file they name cannot be used."""
    if passwords is not None:
        return {b"PLAIN": lambda: PlainMechanism(passwords)}
    if args.auth == "kerberos":
        qop = Qop.parse(args.sasl_qop)
        try:
            acceptor = KerberosAcceptor(server_principal(args.kerberos_principal, args.host), args.kerberos_keytab, qop)
        except RuntimeError as error:
            raise SystemExit(f"hudi-metastore: {error}") from None
        return {b"GSSAPI": acceptor.mechanism, b"DIGEST-MD5": lambda: DigestMechanism(tokens, qop)}
    return None
