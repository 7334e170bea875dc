"""No client can stall a study: the study web page under clients that send slowly, send
nothing, send what is not HTTP or not UTF-8, forge their response time or reuse a cookie
they were told is gone; and a ``--workers`` server whose parent is killed.

Each case is checked on a real aiohttp server (in this process, with short timeouts, or
``tradeoff study serve`` in a subprocess where the terminal's output or the processes are
what is checked)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from tradeoff.cli import main
from tradeoff.record.log import read_session
from tradeoff.study.folder import Study
from tradeoff.web.connection import Timeouts
from tradeoff.web.flow import make_web_app
from tradeoff.web.limiter import REQUESTS_AT_ONCE
from tradeoff.web.site import SECRET_FILE, SESSION_COOKIE

from ..webclient import Page, Participant
from .test_web import make_study, sessions
from .test_web_processes import free_port, launch, start

pytestmark = pytest.mark.e2e

FORM = "application/x-www-form-urlencoded"


@asynccontextmanager
async def serving(study: Study, timeouts: Timeouts | None = None) -> AsyncIterator[int]:
    """The study's page on 127.0.0.1 in this process; yields its port."""
    server = TestServer(make_web_app(study, timeouts=timeouts), host="127.0.0.1")
    await server.start_server()
    try:
        assert server.port is not None
        yield server.port
    finally:
        await server.close()


async def exchange(port: int, data: bytes, timeout: float = 10) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def post(path: str, body: bytes, *headers: str, content_type: str = FORM) -> bytes:
    head = [
        f"POST /{path} HTTP/1.1",
        "Host: study",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *headers,
    ]
    return "\r\n".join(head).encode() + b"\r\n\r\n" + body


SLOW_HEAD = (
    b"POST /code HTTP/1.1\r\nHost: study\r\nContent-Type: " + FORM.encode() + b"\r\n"
    b"Content-Length: 200\r\n\r\ncsrf=abcd"
)


# -- slow clients -----------------------------------------------------------------------


async def test_slow_bodies_from_the_participants_address_do_not_lock_them_out(
    tmp_path: Path,
) -> None:
    """More requests than one address may have in flight announce a body and send 9 bytes
    of it, from the address a participant shares with them (a proxy without
    ``--trust-proxy``, a ward): the participant still gets in."""
    study, codes = make_study(tmp_path)
    async with serving(study, Timeouts(body_seconds=60)) as port:
        slow = []
        for _ in range(REQUESTS_AT_ONCE[0] + 6):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(SLOW_HEAD)
            slow.append((reader, writer))
        await asyncio.gather(*(w.drain() for _, w in slow))
        await asyncio.sleep(0.5)  # every one of them is at the server, waiting for its body
        p = Participant(f"http://127.0.0.1:{port}/")
        try:
            start = await p.get("")
            assert start.status == 200, start.text
            consent = await p.submit(start, "code", code=codes["p01"])
            assert consent.status == 200 and consent.path.endswith("/consent")
        finally:
            await p.close()
            for _, writer in slow:
                writer.close()


async def test_a_body_that_does_not_arrive_in_time_is_answered_408_and_closed(
    tmp_path: Path,
) -> None:
    study, _ = make_study(tmp_path)
    async with serving(study, Timeouts(body_seconds=0.5)) as port:
        started = time.monotonic()
        answer = await exchange(port, SLOW_HEAD, timeout=8)
        assert status_of(answer) == 408
        assert time.monotonic() - started < 8


async def test_idle_connections_and_slow_headers_are_closed(tmp_path: Path) -> None:
    study, _ = make_study(tmp_path)
    async with serving(study, Timeouts(header_seconds=0.5)) as port:
        # a connection that sends nothing
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert await asyncio.wait_for(reader.read(), 8) == b""
        writer.close()
        # a connection that sends a header a byte at a time, never ending it
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: study\r\nX-Slow: ")
        closed = False
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and not closed:
            try:
                writer.write(b"a")
                await writer.drain()
                closed = await asyncio.wait_for(reader.read(1), 0.1) == b""
            except TimeoutError:
                continue
            except ConnectionError:
                closed = True
        writer.close()
        assert closed, "a connection sending its headers a byte at a time was kept open"
        # a kept-alive connection that goes idle after an answer is closed too
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /static/style.css HTTP/1.1\r\nHost: study\r\n\r\n")
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 8)
        assert data.startswith(b"HTTP/1.1 200")
        writer.close()


# -- malformed requests: a 4xx page, never a 500 -------------------------------------------


async def test_non_ascii_tokens_and_undecodable_forms_get_a_4xx(tmp_path: Path) -> None:
    study, _ = make_study(tmp_path)
    async with serving(study) as port:
        cookie = "Cookie: tradeoff_session=\u00e9:1:n:\u00e9"
        answer = await exchange(
            port,
            b"GET / HTTP/1.1\r\nHost: study\r\nConnection: close\r\n"
            + cookie.encode()
            + b"\r\n\r\n",
        )
        assert status_of(answer) == 200 and b"access code" in answer  # as a stranger
        cases = {
            "a non-ASCII CSRF token": post("code", b"csrf=%C3%A9&code=x"),
            "a non-ASCII session cookie": post("answer", b"csrf=x", cookie),
            "a body that is not UTF-8": post("code", b"csrf=\xff\xfe&code=\xff"),
            "an unknown charset": post("code", b"csrf=x", content_type=FORM + "; charset=x-none"),
            "a multipart body cut short": post(
                "code",
                b'--b\r\nContent-Disposition: form-data; name="c',
                content_type="multipart/form-data; boundary=b",
            ),
        }
        for name, request in cases.items():
            answer = await exchange(port, request)
            assert 200 <= status_of(answer) < 500, (name, answer[:200])
            assert b"Traceback" not in answer, name


def serve_process(study: Study, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    server, base = start(study, *extra)
    return server, int(base.rstrip("/").rsplit(":", 1)[1])


async def test_malformed_requests_are_one_line_each_in_the_log_and_rate_limited(
    tmp_path: Path,
) -> None:
    study, _ = make_study(tmp_path)
    server, port = serve_process(study)
    try:
        bad = [
            b"NOT HTTP AT ALL\r\n\r\n",
            b"GET / HTTP/1.1\r\nHost: study\r\nNo colon here\r\n\r\n",
            b"GET /" + b"x" * 10_000 + b" HTTP/1.1\r\nHost: study\r\n\r\n",
            post("answer", b"csrf=x", "Cookie: tradeoff_session=\u00e9:1:n:\u00e9"),
            post("code", b"csrf=\xff\xfe&code=\xff"),
            post("code", b"csrf=x", content_type=FORM + "; charset=x-none"),
        ]
        for _ in range(10):
            answers = await asyncio.gather(*(exchange(port, b) for b in bad))
            assert all(a == b"" or status_of(a) < 500 for a in answers), answers
    finally:
        server.send_signal(signal.SIGTERM)
        err = server.communicate(timeout=30)[1].decode(errors="replace")
    assert server.returncode == 0, err
    assert "Traceback" not in err, err[-3000:]
    lines = [line for line in err.splitlines() if line.strip()]
    # 60 malformed requests in about a second or two: a few lines a second, then a count
    assert len(lines) <= 25, err
    assert "not shown" in err, err


# -- the site's key ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda p: p.mkdir(), id="a folder"),
        pytest.param(lambda p: p.write_bytes(bytes(range(256))), id="binary"),
        pytest.param(lambda p: p.write_text("z" * 64 + "\n"), id="not hex"),
        pytest.param(lambda p: p.write_text("ab"), id="too short"),
    ],
)
def test_a_bad_web_secret_is_named_with_its_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object
) -> None:
    study, _ = make_study(tmp_path, consent=False)
    assert callable(make)
    make(study.path / SECRET_FILE)
    code = main(["study", "serve", str(study.path), "--port", str(free_port())])
    err = capsys.readouterr().err
    assert code == 2, err
    assert SECRET_FILE in err and "Fix: delete" in err, err
    assert "listen" not in err and "Traceback" not in err, err


# -- response times on the server's clock -------------------------------------------------


async def first_question(port: int, code: str) -> tuple[Participant, Page]:
    p = Participant(f"http://127.0.0.1:{port}/")
    consent = await p.enter(code)
    return p, await p.submit(consent, "consent", choice="agree")


async def test_the_response_time_is_the_servers_not_the_clients(tmp_path: Path) -> None:
    study, codes = make_study(tmp_path)
    async with serving(study) as port:
        p, q1 = await first_question(port, codes["p01"])
        try:
            q2 = await p.submit(q1, "answer", choice="left")  # as the page sent it
            shown = q2.field("shown", "answer")
            forged = str(int(time.time() * 1000) - 86_000_000)
            q3 = await p.submit(q2, "answer", choice="left", shown=forged)
            ms, _, sig = q3.field("shown", "answer").partition(".")
            moved = f"{int(ms) - 86_000_000}.{sig}"  # the signed time moved back a day
            q4 = await p.submit(q3, "answer", choice="right", shown=moved)
            await p.submit(q4, "answer", choice="right", shown=shown)  # an older page's
        finally:
            await p.close()
    [path] = sessions(study, "p01")
    times = [e.response_ms for e in read_session(path).events if e.type == "answer"]
    assert len(times) == 4
    assert times[0] is not None and 0 <= times[0] < 60_000
    assert times[1:] == [None, None, None]


# -- cookies revoked on leave and decline --------------------------------------------------


async def get_with_cookie(port: int, path: str, value: str) -> Page:
    async with (
        aiohttp.ClientSession() as http,
        http.get(
            f"http://127.0.0.1:{port}/{path}", headers={"Cookie": f"{SESSION_COOKIE}={value}"}
        ) as r,
    ):
        return Page(r.status, r.url.path, await r.text())


async def test_a_cookie_from_before_save_and_come_back_later_no_longer_opens_the_session(
    tmp_path: Path,
) -> None:
    study, codes = make_study(tmp_path)
    async with serving(study) as port:
        p, q1 = await first_question(port, codes["p01"])
        try:
            value = p.cookies[SESSION_COOKIE]
            assert (await get_with_cookie(port, "question", value)).h1 == "Question 1"
            saved = await p.submit(q1, "pause")
            assert saved.h1 == "Saved" and not p.cookies.get(SESSION_COOKIE)
            again = await get_with_cookie(port, "question", value)
            assert again.path == "/" and "access code" in again.text, again.text
            # the access code opens it again, where it was left
            back = await p.enter(codes["p01"])
            assert back.h1 == "Question 1"
        finally:
            await p.close()


async def test_a_cookie_from_before_declining_no_longer_opens_the_consent(
    tmp_path: Path,
) -> None:
    study, codes = make_study(tmp_path)
    async with serving(study) as port:
        p = Participant(f"http://127.0.0.1:{port}/")
        try:
            consent = await p.enter(codes["p02"])
            value = p.cookies[SESSION_COOKIE]
            declined = await p.submit(consent, "consent", choice="decline")
            assert "no answer was recorded" in declined.text
            again = await get_with_cookie(port, "consent", value)
            assert again.path == "/" and "access code" in again.text, again.text
        finally:
            await p.close()


# -- workers end with their parent --------------------------------------------------------


def children_of(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(c) for c in text.split()]


def gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return "\nState:\tZ" in status  # ended, not yet reaped


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's prctl")
def test_workers_end_when_their_parent_is_killed(tmp_path: Path) -> None:
    study, _ = make_study(tmp_path, consent=False)
    parent, _ = launch(study, "--workers", "2")
    children: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(children) < 2:
            children = children_of(parent.pid)
            time.sleep(0.1)
        assert len(children) == 2, children
        parent.kill()
        parent.wait(10)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(gone(c) for c in children):
            time.sleep(0.1)
        assert all(gone(c) for c in children), "a worker outlived its killed parent"
        # (Nothing of the server is left to hold the port. Connecting to it proves nothing
        # while other tests run: another test's server may have been given the same port.)
        assert all(
            not Path(f"/proc/{c}/fd").exists() or not os.listdir(f"/proc/{c}/fd")
            for c in children
            if Path(f"/proc/{c}").exists()
        )
    finally:
        for child in children:
            if not gone(child):
                os.kill(child, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()


def test_revoked_cookies_cost_a_request_what_was_appended_since_not_the_history(
    tmp_path: Path,
) -> None:
    """The revocation file is asked on every request: a process reads only the lines
    appended since it last looked, forgets what expired, and the file is rewritten with only
    the live entries once long; a junk line or a link never stops it."""
    from tradeoff.web import revoked as web_revoked
    from tradeoff.web.revoked import REVOKED_FILE, Revoked
    from tradeoff.web.site import SESSION_SECONDS

    def nonce(name: str) -> str:  # a session cookie's nonce is 16 characters
        return name.ljust(16, "_")

    path = tmp_path / REVOKED_FILE
    old = int(time.time()) - SESSION_SECONDS - 10
    path.write_bytes(b"".join(f"{old} gone{i:06d}______\n".encode() for i in range(200_000)))
    reader, writer = Revoked(path, SESSION_SECONDS), Revoked(path, SESSION_SECONDS)
    assert not reader.has(nonce("gone000001"))  # expired: the cookie could not be used anyway
    writer.add(nonce("fresh"))
    writer.add("x" * 16)
    read: list[int] = []
    real = os.pread

    def counting(fd: int, n: int, offset: int) -> bytes:
        data = real(fd, n, offset)
        read.append(len(data))
        return data

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(web_revoked.os, "pread", counting)
        for _ in range(200):  # catching up reads the history once, then nothing
            reader.has(nonce("fresh"))
        caught_up = sum(read)
        read.clear()
        for _ in range(1000):
            assert reader.has(nonce("fresh")) and not reader.has(nonce("other"))
        assert sum(read) == 0
        writer.add(nonce("later"))
        assert reader.has(nonce("later")) and sum(read) < 100
    assert caught_up <= path.stat().st_size + web_revoked.REVOKED_READ
    # the file was compacted past REVOKED_KEEP: only the live entries are left
    lines = path.read_text().splitlines()
    assert len(lines) < 10
    assert {line.split()[1] for line in lines} >= {nonce("fresh"), nonce("later")}
    with path.open("ab") as fh:
        fh.write(b"\xff" * (web_revoked.REVOKED_READ + 5) + b"\n")
    writer.add(nonce("after-junk"))
    again = Revoked(path, SESSION_SECONDS)
    assert all(again.has(nonce(n)) for n in ("fresh", "later", "after-junk"))
    path.unlink()
    path.symlink_to(tmp_path / "elsewhere")
    assert not Revoked(path, SESSION_SECONDS).has(nonce("fresh"))
