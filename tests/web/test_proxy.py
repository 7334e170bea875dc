"""The study page served as a real study would be: behind an nginx reverse proxy with TLS
(a certificate made here), ``study serve --trust-proxy``: participants answer through it,
the session cookie is a secure one, and the per-source limits see each participant's own
address (the proxy's ``X-Forwarded-For``), not the proxy's."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from tradeoff.record.log import read_session
from tradeoff.study.attempts import ATTEMPTS_FILE

from ..webclient import Page, Participant
from .test_web import make_study, sessions
from .test_web_processes import free_port, start

pytestmark = pytest.mark.e2e

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
OPENSSL = shutil.which("openssl")

NGINX_CONF = """
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log {root}/access.log;
    client_body_temp_path {root}/body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
    server {{
        listen 127.0.0.1:{tls_port} ssl;
        server_name study.localhost;
        ssl_certificate {root}/cert.pem;
        ssl_certificate_key {root}/key.pem;
        location / {{
            proxy_pass http://127.0.0.1:{app_port};
            proxy_set_header Host $host:$server_port;
            proxy_set_header X-Forwarded-Proto https;
            proxy_set_header X-Forwarded-For $remote_addr;
        }}
    }}
}}
"""


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_until(ready: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(ready) and ready():
            return
        time.sleep(0.1)
    raise AssertionError("not ready in time")


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """nginx with TLS on a free port in front of a free app port: (tls port, app port)."""
    if NGINX is None or OPENSSL is None:
        pytest.skip("nginx and openssl are needed (.ci/run installs Debian's nginx-light)")
    root = tmp_path / "nginx"
    root.mkdir()
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=study.localhost", "-keyout", str(root / "key.pem"),
         "-out", str(root / "cert.pem")],
        check=True, capture_output=True,
    )  # fmt: skip
    tls_port, app_port = free_port(), free_port()
    (root / "nginx.conf").write_text(
        NGINX_CONF.format(root=root, tls_port=tls_port, app_port=app_port)
    )
    proc = subprocess.Popen(
        [NGINX, "-c", str(root / "nginx.conf"), "-p", str(root), "-g", "daemon off;"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until(lambda: listening(tls_port), 20)
        yield tls_port, app_port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def through(base: str, source: str) -> Participant:
    """A browser on loopback address ``source`` reaching the page through the proxy."""
    return Participant(base, connector=aiohttp.TCPConnector(ssl=False, local_addr=(source, 0)))


def test_behind_a_proxy_participants_answer_and_limits_see_their_own_address(
    tmp_path: Path, nginx: tuple[int, int]
) -> None:
    tls_port, app_port = nginx
    study, codes = make_study(tmp_path, consent=False)
    server, _ = start(study, "--trust-proxy", port=app_port)
    try:
        base = f"https://127.0.0.1:{tls_port}/"

        async def visit() -> tuple[Page, list[str]]:
            secure: list[str] = []
            for source in ("127.0.0.2", "127.0.0.3"):  # two people give a wrong code
                guesser = through(base, source)
                try:
                    await guesser.enter("WRONG-CODE-0000")
                finally:
                    await guesser.close()
            p = through(base, "127.0.0.4")
            try:
                first = await p.enter(codes["p01"])
                assert first.h1 == "Question 1", first.text
                secure = [str(c) for c in p.session.cookie_jar]
                answered = await p.submit(first, "answer", choice="left")
                return answered, secure
            finally:
                await p.close()

        answered, secure = asyncio.run(visit())
        assert answered.h1 == "Question 2", answered.text
        assert secure and all("Secure" in c for c in secure), secure
        log = (study.path / ATTEMPTS_FILE).read_text().splitlines()
        sources = {line.split()[1] for line in log if line}
        assert sources == {"127.0.0.2", "127.0.0.3"}, sources  # not the proxy's 127.0.0.1
        [path] = sessions(study, "p01")
        assert len([e for e in read_session(path).events if e.type == "answer"]) == 1
    finally:
        server.terminate()
        server.communicate(timeout=20)
