"""Served as a real study would be: behind an nginx reverse proxy with TLS (a certificate
made here), and on an address other than 127.0.0.1, driven in headless Chromium."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tradeoff.record.log import read_session

from .conftest import CHROMIUM_ARGS, small_scenario_file
from .test_browser import CHROMIUM, free_port, sync_playwright, wait_until

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
OPENSSL = shutil.which("openssl")

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None or sync_playwright is None,
        reason="Chromium and playwright are needed (.ci/run installs Debian's chromium)",
    ),
]


def listening(host: str, port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex((host, port)) == 0


def serve(cwd: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tradeoff", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=cwd,
    )


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
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
            proxy_set_header Host $host:$server_port;
            proxy_set_header X-Forwarded-Proto https;
            proxy_set_header X-Forwarded-Host $host:$server_port;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_read_timeout 3600s;
        }}
    }}
}}
"""


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """nginx with TLS on a free port in front of a free app port: (tls port, app port)."""
    if NGINX is None or OPENSSL is None:
        pytest.skip("nginx and openssl are needed (.ci/run installs Debian's nginx-light)")
    root = tmp_path / "nginx"
    root.mkdir()
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=study.localhost", "-addext", "subjectAltName=DNS:study.localhost",
         "-keyout", str(root / "key.pem"), "-out", str(root / "cert.pem")],
        check=True, capture_output=True,
    )
    tls_port, app_port = free_port(), free_port()
    (root / "nginx.conf").write_text(
        NGINX_CONF.format(root=root, tls_port=tls_port, app_port=app_port)
    )
    proc = subprocess.Popen(
        [NGINX, "-c", str(root / "nginx.conf"), "-p", str(root), "-g", "daemon off;"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    try:
        wait_until(lambda: listening("127.0.0.1", tls_port), 20)
        yield tls_port, app_port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def drive(url: str, sessions: Path, *, resolve: str | None = None) -> list[str]:
    """Open ``url`` in headless Chromium, start as participant web-test, answer once; the
    page's own requests (none may leave for another host) are returned."""
    args = [*CHROMIUM_ARGS, "--ignore-certificate-errors"]
    if resolve:
        args.append(f"--host-resolver-rules={resolve}")
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=args)
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.on("request", lambda r: requests.append(r.url))
        page.on("websocket", lambda w: requests.append(w.url))
        page.goto(url)

        def started() -> list[Path]:
            return sorted(sessions.glob("*/*.jsonl"))

        for _ in range(4):
            page.wait_for_timeout(3000)
            page.mouse.click(200, 8)
            page.keyboard.press("End")
            for _ in range(12):
                page.keyboard.press("Backspace")
            page.keyboard.type("web-test")
            page.keyboard.press("Enter")
            try:
                wait_until(lambda: bool(started()), 20)
                break
            except AssertionError:
                continue
        wait_until(lambda: bool(started()), 5)
        page.wait_for_timeout(2000)
        page.keyboard.press("a")
        path = started()[0]
        wait_until(lambda: any(e.type == "answer" for e in read_session(path).events), 30)
        browser.close()
    return requests


def test_a_participant_through_a_tls_reverse_proxy(
    tmp_path: Path, nginx: tuple[int, int]
) -> None:
    """https://study.localhost:PORT/ through nginx: the page's script, styles and websocket
    all go through the proxy (wss), nothing to another host, and the answer is saved."""
    tls_port, app_port = nginx
    scenario = small_scenario_file(tmp_path)
    sessions = tmp_path / "sessions"
    server = serve(tmp_path, str(scenario), "--port", str(app_port), "--sessions-dir",
                   str(sessions), "--trust-proxy")
    try:
        wait_until(lambda: listening("127.0.0.1", app_port), 30)
        public = f"https://study.localhost:{tls_port}/"
        requests = drive(public, sessions, resolve="MAP study.localhost 127.0.0.1")
    finally:
        server.terminate()
        out = server.communicate(timeout=10)[0].decode(errors="replace")
    assert any(r.startswith(f"wss://study.localhost:{tls_port}/ws") for r in requests), requests
    assert all(r.startswith((public, f"wss://study.localhost:{tls_port}/")) for r in requests), (
        requests
    )
    assert "Traceback" not in out


def second_loopback_address() -> str | None:
    """An address of this machine other than 127.0.0.1 (127.0.0.2 is on lo on Linux)."""
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.2", 0))
    except OSError:
        return None
    return "127.0.0.2"


def test_a_participant_on_another_address_of_this_machine(tmp_path: Path) -> None:
    """Bound to 0.0.0.0 for a study, reached as http://127.0.0.2:PORT/ (not the bind
    address, not 127.0.0.1): the page points its websocket at that address and the origin
    check accepts it, since it is this machine's."""
    from tradeoff.study.folder import create_study

    address = second_loopback_address()
    if address is None:
        pytest.skip("this machine holds no second loopback address (127.0.0.2)")
    scenario = small_scenario_file(tmp_path, **{"budget = 30": "budget = 6"})
    study, codes = create_study(scenario, ["p01"], tmp_path / "study")
    port = free_port()
    server = serve(tmp_path, "--study", str(study.path), "--host", "0.0.0.0", "--port",
                   str(port))
    requests: list[str] = []
    try:
        wait_until(lambda: listening(address, port), 30)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.on("request", lambda r: requests.append(r.url))
            page.on("websocket", lambda w: requests.append(w.url))
            page.goto(f"http://{address}:{port}/")
            sessions = study.sessions_dir

            def started() -> list[Path]:
                return sorted(sessions.glob("*/*.jsonl"))

            for _ in range(5):  # the first keys may arrive before the app is ready
                page.wait_for_timeout(3000)
                page.mouse.click(200, 8)  # the title: gives the page focus
                page.keyboard.press("End")
                for _ in range(24):
                    page.keyboard.press("Backspace")
                page.keyboard.type(codes["p01"])
                page.keyboard.press("Enter")
                try:
                    wait_until(lambda: bool(started()), 15)
                    break
                except AssertionError:
                    continue
            wait_until(lambda: bool(started()), 5)
            browser.close()
    finally:
        server.terminate()
        out = server.communicate(timeout=10)[0].decode(errors="replace")
    assert any(r.startswith(f"ws://{address}:{port}/ws") for r in requests), requests
    assert "Traceback" not in out, out[-2000:]
