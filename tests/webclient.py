"""A scripted participant for the study web page: a cookie jar, the forms' hidden fields
read from each page, posts that follow the server's redirects."""

from __future__ import annotations

import contextlib
import html as htmllib
import re
from dataclasses import dataclass

import aiohttp


@dataclass
class Page:
    status: int
    path: str
    html: str

    def field(self, name: str, action: str | None = None) -> str:
        """A hidden field's value (of the form posting to ``action``, if given)."""
        text = self.html
        if action is not None:
            start = text.index(f'action="{action}"')
            text = text[start : text.index("</form>", start)]
        m = re.search(f'name="{name}" value="([^"]*)"', text)
        assert m is not None, f"no field {name} on {self.path}"
        return htmllib.unescape(m.group(1))

    @property
    def h1(self) -> str:
        m = re.search(r"<h1>(.*?)</h1>", self.html, re.S)
        return "" if m is None else htmllib.unescape(m.group(1).strip())

    @property
    def text(self) -> str:
        """The main content's words, tags removed."""
        main = self.html.split("<main", 1)[-1].split("</main>", 1)[0]
        return htmllib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", main))).strip()


class Participant:
    """One browser: ``await p.get("")``, ``await p.submit(page, "answer", choice="left")``."""

    def __init__(
        self,
        base: str,
        language: str | None = None,
        connector: aiohttp.BaseConnector | None = None,
    ) -> None:
        self.base = base if base.endswith("/") else base + "/"
        headers = {"Accept-Language": language} if language else {}
        self.session = aiohttp.ClientSession(
            cookie_jar=aiohttp.CookieJar(unsafe=True), headers=headers, connector=connector
        )

    async def close(self) -> None:
        await self.session.close()

    async def _page(self, response: aiohttp.ClientResponse) -> Page:
        async with response:
            return Page(response.status, response.url.path, await response.text())

    async def get(self, path: str, at: str | None = None) -> Page:
        return await self._page(await self.session.get((at or self.base) + path))

    async def post(self, path: str, data: dict[str, str], at: str | None = None) -> Page:
        return await self._page(await self.session.post((at or self.base) + path, data=data))

    async def submit(self, page: Page, action: str, at: str | None = None, **fields: str) -> Page:
        """Post the form of ``page`` that goes to ``action`` (to another server's address
        ``at``, if given), its hidden fields kept."""
        data = {"csrf": page.field("csrf", action)}
        for hidden in ("answered", "shown", "step"):
            with contextlib.suppress(AssertionError):
                data[hidden] = page.field(hidden, action)
        data.update(fields)
        return await self.post(action, data, at)

    async def enter(self, code: str) -> Page:
        start = await self.get("")
        return await self.submit(start, "code", code=code)

    @property
    def cookies(self) -> dict[str, str]:
        return {c.key: c.value for c in self.session.cookie_jar}
