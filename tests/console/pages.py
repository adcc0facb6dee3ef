"""Reading the console as a script would: one HTTP request at a time over a real socket (redirects not
followed), and the rows of a page's table by its id."""

from __future__ import annotations

import http.client
from dataclasses import dataclass
from html.parser import HTMLParser


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: str

    def header(self, name: str) -> str:
        return self.headers.get(name, "")

    def cookies(self) -> list[str]:
        return self.headers.get_all("set-cookie") or []


def get(port: int, path: str, headers: dict[str, str] | None = None) -> Answer:
    return request(port, "GET", path, headers=headers)


def request(
    port: int, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return Answer(response.status, response.headers, response.read().decode())
    finally:
        connection.close()


def rows(page: str, table_id: str) -> list[list[str]]:
    """The text of each body cell (``td`` or ``th``) of ``<table id=table_id>``, row by row (a "none" row is no
    row)."""
    parser = _Rows(table_id)
    parser.feed(page)
    return [r for r in parser.rows if not (len(r) == 1 and r[0].startswith("no "))]


def links(page: str) -> list[str]:
    parser = _Links()
    parser.feed(page)
    return parser.found


class _Rows(HTMLParser):
    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.depth = 0  # tables open inside the wanted one, itself included
        self.in_body = False
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.cell is not None:  # elements inside a cell (a line break between file names) separate words
            self.cell.append(" ")
        if tag == "table" and (self.depth or dict(attrs).get("id") == self.table_id):
            self.depth += 1
        elif self.depth and tag == "tbody":
            self.in_body = True
        elif self.depth and self.in_body and tag == "tr":
            self.rows.append([])
        elif self.depth and self.in_body and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.depth:
            self.depth -= 1
        elif tag == "tbody":
            self.in_body = False
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.found.append(href)
