"""The Docker image and compose file call the CLI as it is: every hudi-metastore subcommand and flag in
docker/Dockerfile's ENTRYPOINT/CMD and compose.yaml's entrypoints and commands exists (checked against the real
``--help``), and every HUDI_METASTORE_* variable they set is one the CLI reads. Docker itself is not needed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hudi_catalog import config

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "docker" / "Dockerfile"
COMPOSE = ROOT / "docker" / "compose.yaml"
PROGRAM = "hudi-metastore"


def _exec_form(instruction: str) -> list[str] | None:
    """The JSON array of the Dockerfile's ``instruction`` (exec form), or None when it has none."""
    found = re.findall(rf"^{instruction}\s+(\[.*\])\s*$", DOCKERFILE.read_text(), re.MULTILINE)
    return json.loads(found[-1]) if found else None


def _image_env() -> set[str]:
    """Names the Dockerfile's ENV instructions set."""
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    return {
        name
        for line in re.findall(r"^ENV\s+(.*)$", text, re.MULTILINE)
        for name in re.findall(r"([A-Z_][A-Z0-9_]*)=", line)
    }


def _compose_services() -> dict:
    return yaml.safe_load(COMPOSE.read_text())["services"]


def _runs_the_image(service: dict) -> bool:
    build = service.get("build")
    return isinstance(build, dict) and build.get("dockerfile") == "docker/Dockerfile"


def invocations() -> list[tuple[str, list[str]]]:
    """Every hudi-metastore command line the image and compose file run: (where, argv after the program)."""
    entrypoint, cmd = _exec_form("ENTRYPOINT"), _exec_form("CMD") or []
    found = [("Dockerfile", [*entrypoint, *cmd])]
    for name, service in _compose_services().items():
        if _runs_the_image(service):
            argv = [*service.get("entrypoint", entrypoint), *service.get("command", cmd)]
        else:
            argv = [*(service.get("entrypoint") or []), *(service.get("command") or [])]
        if isinstance(argv, list) and argv and argv[0] == PROGRAM:
            found.append((f"compose service {name}", argv))
    return [(where, argv[1:]) for where, argv in found]


def _help(subcommand: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hms_adapter.cli", *subcommand, "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _split(argv: list[str]) -> tuple[list[str], list[str]]:
    """The subcommand words (before the first flag) and the flags given."""
    words = []
    for arg in argv:
        if arg.startswith("-"):
            break
        words.append(arg)
    flags = [a.split("=", 1)[0] for a in argv if a.startswith("--")]
    return words, flags


def test_the_image_and_compose_run_the_cli():
    found = invocations()
    assert [where for where, _ in found] == [
        "Dockerfile",
        "compose service hudi-metastore",
        "compose service schema-upgrade",
        "compose service hudi-metastore-postgres",
    ]
    assert found[0][1][0] == "serve"


def unknown_flags(argv: list[str]) -> list[str]:
    """The flags of ``argv`` that its subcommand's ``--help`` does not list."""
    words, flags = _split(argv)
    assert words, f"no subcommand in {argv}"
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", _help(words)))
    assert "--db-url" in options  # the help was read
    return [f for f in flags if f not in options]


@pytest.mark.parametrize("where,argv", invocations(), ids=[w for w, _ in invocations()])
def test_each_flag_is_one_the_subcommand_has(where, argv):
    assert unknown_flags(argv) == [], f"{where}: {argv}"


def test_a_flag_the_subcommand_lacks_is_found():
    assert unknown_flags(["serve", "--port", "9083", "--upgrade-schemas"]) == ["--upgrade-schemas"]
    assert unknown_flags(["schema", "upgrade", "--dialect", "mysql"]) == ["--dialect"]


def cli_environment() -> set[str]:
    """The HUDI_METASTORE_* variables the CLI reads: the configuration's *_ENV names, and the ones hms_adapter
    names itself (read in place, or named by an ``*_ENV`` constant)."""
    names = {value for key, value in vars(config).items() if key.endswith("_ENV") and isinstance(value, str)}
    for module in (ROOT / "hms_adapter").glob("*.py"):
        text = module.read_text()
        names |= set(re.findall(r"os\.environ\.get\(\"(HUDI_METASTORE_[A-Z0-9_]+)\"", text))
        names |= set(re.findall(r"^[A-Z_]+_ENV = \"(HUDI_METASTORE_[A-Z0-9_]+)\"", text, re.MULTILINE))
    return names


def test_the_environment_they_set_is_read_by_the_cli():
    read = cli_environment()
    assert {"HUDI_METASTORE_DB_URL", "HUDI_METASTORE_LOG_LEVEL", "HUDI_METASTORE_UPGRADE_SCHEMA"} <= read
    named = {("Dockerfile", n) for n in _image_env() if n.startswith("HUDI_METASTORE_")}
    for name, service in _compose_services().items():
        environment = service.get("environment") or {}
        names = environment if isinstance(environment, dict) else [e.split("=", 1)[0] for e in environment]
        named |= {(f"compose service {name}", n) for n in names if n.startswith("HUDI_METASTORE_")}
    assert {n for _, n in named} >= {"HUDI_METASTORE_DB_URL", "HUDI_METASTORE_WAREHOUSE"}
    assert sorted(entry for entry in named if entry[1] not in read) == []


def test_the_documented_variables_in_the_help_are_read():
    """The ``(env NAME)`` of every serve option names a variable the CLI reads."""
    mentioned = set(re.findall(r"HUDI_METASTORE_[A-Z0-9_]+", _help(["serve"])))
    assert mentioned and mentioned <= cli_environment()
