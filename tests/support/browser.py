"""A headless Chromium for the tests of the web console: ``Browser`` runs ``browser_driver.mjs`` (playwright-core
driving Debian's Chromium, both installed by ``benchmarks/browser.py``) in a node process of its own and talks
to it one JSON line at a time. ``browser_or_skip()`` installs what is missing and gives a ``Browser`` to start,
or skips the test (fails it in CI) when this machine cannot run one.

    with browser_or_skip() as browser:
        browser.goto(url)
        assert browser.text("h1") == ["Databases"]
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from tests.support.servers import BENCHMARKS  # noqa: F401  (puts benchmarks/ on the path)

DRIVER = Path(__file__).with_name("browser_driver.mjs")
ANSWER_SECONDS = 120.0
"""How long one answer may take (a launch, a navigation, a screenshot) before the browser is taken for hung: a
ceiling, not a budget (the driver gives up on an element or a response after 60 s and answers the error)."""


class BrowserError(RuntimeError):
    """The driver answered a command with an error, stopped, or did not answer in time."""


class Browser:
    """One headless Chromium with one context (viewport 1280x800), started on ``__enter__`` and quit on
    ``__exit__``. Each method sends one command and returns its answer (``send`` for any command)."""

    def __init__(self, *, chromium: str | None = None, timeout: float = ANSWER_SECONDS) -> None:
        import browser as installer  # benchmarks/browser.py

        self.chromium = chromium or str(installer.CHROMIUM)
        self.chromium_args = installer.CHROMIUM_ARGS
        self.node_path = installer.driver_path()
        self.timeout = timeout
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._work: tempfile.TemporaryDirectory[str] | None = None
        self._next_id = 0
        self.version = ""

    # the process

    def start(self) -> Browser:
        node = shutil.which("node")
        if node is None:
            raise BrowserError("node is not on this machine")
        # the driver's temporary files (Chromium's profile folder) go in a folder removed with the browser
        self._work = tempfile.TemporaryDirectory(prefix="browser-")
        work = Path(self._work.name)
        self._stderr = (work / "driver.log").open("w")
        env = {**os.environ, "NODE_PATH": str(self.node_path), "TMPDIR": str(work)}
        self._process = subprocess.Popen(
            [node, str(DRIVER), self.chromium, json.dumps(self.chromium_args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            env=env,
            cwd=work,
        )
        threading.Thread(target=self._read, args=(self._process.stdout,), daemon=True).start()
        try:
            ready = self._answer("the launch")
        except BrowserError:
            self.close()
            raise
        self.version = ready.get("version", "")
        return self

    def _read(self, stdout) -> None:
        for line in stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _log(self) -> str:
        if self._work is None:
            return ""
        try:
            return (Path(self._work.name) / "driver.log").read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def _answer(self, what: str) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise BrowserError(f"no answer to {what} within {self.timeout:g} s; driver log:\n{self._log()}") from None
        if line is None:
            raise BrowserError(f"the driver exited before answering {what}; driver log:\n{self._log()}")
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            raise BrowserError(f"not a JSON answer to {what}: {line!r}") from None
        if "error" in answer:
            raise BrowserError(f"{what}: {answer['error']}")
        return answer

    def send(self, command: str, **arguments: Any) -> dict[str, Any]:
        """Send ``command`` with its ``arguments``; its answer, or ``BrowserError`` when it failed."""
        if self._process is None or self._process.stdin is None:
            raise BrowserError("the browser is not started")
        self._next_id += 1
        request = {"command": command, "id": self._next_id, **arguments}
        try:
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
        except OSError as error:
            raise BrowserError(f"the driver does not take commands: {error}; driver log:\n{self._log()}") from None
        answer = self._answer(f"{command} {json.dumps(arguments)}")
        if answer.pop("id", None) != self._next_id:
            raise BrowserError(f"an answer out of turn to {command}: {answer}")
        return answer

    def close(self) -> None:
        """Quit the browser (killed when it does not exit within a minute) and remove its temporary files."""
        process, self._process = self._process, None
        if process is not None:
            try:
                if process.poll() is None and process.stdin is not None:
                    process.stdin.write(json.dumps({"command": "quit"}) + "\n")
                    process.stdin.close()
                process.wait(60)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait(30)
            self._stderr.close()
        if self._work is not None:
            self._work.cleanup()
            self._work = None

    def __enter__(self) -> Browser:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # the commands

    def goto(self, url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
        """Open ``url`` (with extra request ``headers``): ``{status, url, title}``."""
        return self.send("goto", url=url, **({"headers": headers} if headers else {}))

    def text(self, selector: str) -> list[str]:
        """The text (innerText) of each element ``selector`` matches, in document order."""
        return self.send("text", selector=selector)["texts"]

    def click(self, selector: str) -> dict[str, Any]:
        """Click the element, wait for the page it may open to load: ``{url, title, status?}``."""
        return self.send("click", selector=selector)

    def fill(self, selector: str, value: str) -> None:
        self.send("fill", selector=selector, value=value)

    def submit(self, selector: str) -> dict[str, Any]:
        """Submit the form (Enter in another element), wait for the page it opens: ``{url, title, status}``."""
        return self.send("submit", selector=selector)

    def attr(self, selector: str, name: str) -> str | None:
        return self.send("attr", selector=selector, name=name)["value"]

    def count(self, selector: str) -> int:
        return self.send("count", selector=selector)["count"]

    def screenshot(self, path: str | os.PathLike[str], full_page: bool = False) -> Path:
        self.send("screenshot", path=str(Path(path).resolve()), fullPage=full_page)
        return Path(path)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (None for undefined); evaluated even when the
        context runs no JavaScript of the page's own."""
        return self.send("evaluate", expression=expression)["value"]

    def new_context(self, http_credentials: tuple[str, str] | None = None, java_script_enabled: bool = True) -> None:
        """Start over in a new context (no cookies, a blank page): with HTTP Basic ``http_credentials`` (user,
        password) answered to the servers that ask, and without JavaScript when ``java_script_enabled`` is
        false. Without credentials, a page that asks for them is not shown: ``goto`` raises a ``BrowserError``
        naming ``net::ERR_INVALID_AUTH_CREDENTIALS`` (wrong credentials give the server's 401 page)."""
        arguments: dict[str, Any] = {"javaScriptEnabled": java_script_enabled}
        if http_credentials is not None:
            arguments["httpCredentials"] = {"username": http_credentials[0], "password": http_credentials[1]}
        self.send("new_context", **arguments)


def browser_or_skip() -> Browser:
    """A ``Browser`` to start (``with browser_or_skip() as browser``), Chromium and playwright-core installed
    first when missing; skips the test, or fails it in CI (``CI=true``), with the reason this machine cannot
    run one."""
    import browser as installer  # benchmarks/browser.py

    from tests.conftest import skip_or_fail

    problem = installer.ensure_browser()
    if problem is None and shutil.which("node") is None:
        problem = "node is not on this machine"
    if problem is not None:
        skip_or_fail(f"no headless browser here: {problem}")
    return Browser()
