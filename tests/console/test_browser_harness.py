"""The headless browser harness the web console's tests use (``tests/support/browser.py``): Chromium driven
through playwright-core, against a tiny site served here with ``http.server``: a table, a link, a form, a
script, a page behind HTTP Basic authentication."""

from __future__ import annotations

import base64
import html
import http.server
import threading
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.browser import BrowserError, browser_or_skip

INDEX = """<!doctype html>
<html><head><title>Harness</title></head><body>
<h1>Databases</h1>
<table id="databases">
  <tr><th>Name</th><th>Tables</th></tr>
  <tr><td>default</td><td>3</td></tr>
  <tr><td>sales</td><td>12</td></tr>
</table>
<a id="sales" href="/tables?db=sales">Tables of sales</a>
<form id="search" action="/search" method="get">
  <input id="query" name="q"><button type="submit">Search</button>
</form>
<p id="scripted">as served</p>
<script>document.getElementById("scripted").textContent = "changed by script";</script>
</body></html>
"""
CREDENTIALS = ("admin", "s3cret")


class Site(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/":
            self._page(INDEX)
        elif url.path == "/tables":
            db = html.escape(query.get("db", ""))
            self._page(f"<title>Tables of {db}</title><h1>{db}</h1><ul><li>orders</li><li>customers</li></ul>")
        elif url.path == "/search":
            self._page(f"<title>Search</title><p id='searched'>{html.escape(query.get('q', ''))}</p>")
        elif url.path == "/headers":
            self._page(f"<title>Headers</title><p id='asked'>{html.escape(self.headers.get('X-Asked', ''))}</p>")
        elif url.path == "/private":
            expected = "Basic " + base64.b64encode(":".join(CREDENTIALS).encode()).decode()
            if self.headers.get("Authorization") == expected:
                self._page("<title>Private</title><p id='who'>admin</p>")
            else:
                self._page("<title>Who?</title>", 401, {"WWW-Authenticate": 'Basic realm="console"'})
        else:
            self._page("<title>Not found</title>", 404)

    def _page(self, text: str, status: int = 200, headers: dict[str, str] | None = None) -> None:
        body = text.encode()
        self.send_response(status)
        for name, value in {"Content-Type": "text/html; charset=utf-8", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args) -> None:
        pass


@pytest.fixture(scope="module")
def site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture(scope="module")
def browser():
    with browser_or_skip() as browser:
        yield browser


@pytest.fixture
def fresh(browser):
    """The module's browser in a new context: JavaScript on, no credentials."""
    browser.new_context()
    return browser


def test_reads_a_page_and_follows_a_link(fresh, site):
    page = fresh.goto(site + "/")
    assert page == {"status": 200, "url": site + "/", "title": "Harness"}
    assert fresh.text("h1") == ["Databases"]
    assert fresh.text("#databases td:first-child") == ["default", "sales"]
    assert fresh.count("#databases tr") == 3
    assert fresh.attr("#sales", "href") == "/tables?db=sales"
    assert fresh.attr("#sales", "title") is None
    assert fresh.text("#scripted") == ["changed by script"]

    landing = fresh.click("#sales")
    assert landing == {"url": site + "/tables?db=sales", "title": "Tables of sales", "status": 200}
    assert fresh.text("li") == ["orders", "customers"]


def test_fills_and_submits_a_form(fresh, site):
    fresh.goto(site + "/")
    fresh.fill("#query", "orders & <customers>")
    landing = fresh.submit("#search")
    assert landing["status"] == 200
    assert landing["title"] == "Search"
    assert fresh.text("#searched") == ["orders & <customers>"]

    fresh.goto(site + "/")
    fresh.fill("#query", "by Enter")
    assert fresh.submit("#query")["url"] == site + "/search?q=by+Enter"
    assert fresh.text("#searched") == ["by Enter"]


def test_a_click_that_does_not_navigate(fresh, site):
    fresh.goto(site + "/")
    assert fresh.click("h1") == {"url": site + "/", "title": "Harness"}


def test_takes_a_screenshot(fresh, site, tmp_path):
    fresh.goto(site + "/")
    shot = fresh.screenshot(tmp_path / "page.png", full_page=True)
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert shot.stat().st_size > 1000


def test_without_javascript_a_script_does_not_run(browser, site):
    browser.new_context(java_script_enabled=False)
    browser.goto(site + "/")
    assert browser.text("#scripted") == ["as served"]
    # the form still works without it
    browser.fill("#query", "plain")
    assert browser.submit("#search")["status"] == 200
    assert browser.text("#searched") == ["plain"]


def test_headers_and_basic_credentials(browser, site):
    browser.new_context()
    browser.goto(site + "/headers", headers={"X-Asked": "by the test"})
    assert browser.text("#asked") == ["by the test"]
    # no credentials to answer the challenge with: Chromium shows no page
    with pytest.raises(BrowserError, match="ERR_INVALID_AUTH_CREDENTIALS"):
        browser.goto(site + "/private")

    browser.new_context(http_credentials=("admin", "wrong"))
    assert browser.goto(site + "/private") == {"status": 401, "url": site + "/private", "title": "Who?"}

    browser.new_context(http_credentials=CREDENTIALS)
    assert browser.goto(site + "/private")["status"] == 200
    assert browser.text("#who") == ["admin"]


def test_a_failed_command_is_an_error_and_the_browser_goes_on(fresh, site):
    fresh.goto(site + "/")
    with pytest.raises(BrowserError, match="strict mode violation"):
        fresh.click("td")  # four cells: a click needs one element
    with pytest.raises(BrowserError, match="unknown command"):
        fresh.send("hover", selector="h1")
    assert fresh.evaluate("document.title") == "Harness"
    assert fresh.evaluate("6 * 7") == 42
    assert fresh.evaluate("undefined") is None
