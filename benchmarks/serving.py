"""The real servers ``./dev bench`` measures through, all on loopback: gunicorn serving an
app with a given number of worker processes, a client that keeps it busy, and an SMTP server
(aiosmtpd, in its own process) that accepts and drops mail."""
from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
WORKERS = 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped at once (exit code {process.returncode})")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


@dataclass
class Server:
    port: int
    pid: int

    def cpu(self) -> float:
        """Seconds of CPU the server's processes (gunicorn's master and workers) used."""
        total = 0.0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # a process that just ended
            if int(fields[1]) == self.pid or stat.parent.name == str(self.pid):
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return total


@contextlib.contextmanager
def gunicorn(app: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """``app`` (e.g. ``pbem:create_app()``) under gunicorn's sync workers, ``WORKERS`` of
    them, without an access log. Run from an empty folder, so that no gunicorn.conf.py
    applies."""
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [str(BIN / "gunicorn"), "--workers", str(WORKERS), "--bind", f"127.0.0.1:{port}",
             "--pythonpath", str(HERE), "--log-level", "warning", app],
            cwd=folder, env={**os.environ, **(env or {})})
        try:
            wait_for(port, process)
            yield Server(port, process.pid)
        finally:
            process.terminate()
            process.wait()


@contextlib.contextmanager
def job_process(env: dict[str, str]) -> Iterator[subprocess.Popen]:
    """The job process as production runs it (``flask --app pbem run-scheduler``), from the
    project folder: the code the benchmark measures."""
    process = subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "pbem", "run-scheduler"], cwd=HERE.parent,
        env={**os.environ, **env}, stdout=subprocess.DEVNULL)
    try:
        yield process
    finally:
        process.terminate()
        process.wait()


@contextlib.contextmanager
def smtp_sink() -> Iterator[int]:
    """An SMTP server that accepts every message and keeps none; yields its port."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "aiosmtpd", "-n", "-c",
                                "aiosmtpd.handlers.Sink", "-l", f"127.0.0.1:{port}"])
    try:
        wait_for(port, process)
        yield port
    finally:
        process.terminate()
        process.wait()


# method, path, JSON body (b"" for none), and optionally more headers
Request = tuple[str, str, bytes] | tuple[str, str, bytes, dict[str, str]]


async def _exchange(port: int, request: Request) -> int:
    method, path, body, *more = request
    headers = "".join(f"{name}: {value}\r\n" for name, value in (more or [{}])[0].items())
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{headers}\r\n")
    writer.write(head.encode() + body)
    answer = await reader.read()
    writer.close()
    return int(answer[9:12])


@dataclass
class Load:
    rate: float       # answers with status 2xx or 3xx per second, after the warm-up
    failed: int       # other answers
    cpu_ms: float     # the server's CPU per answer, after the warm-up


def hammer(server: Server, tasks: list[Callable[[], Request | None]], seconds: float,
           warmup: float = 1.0) -> Load:
    """Send requests to ``server`` for ``seconds`` (after ``warmup``), from one client per
    entry of ``tasks``, each sending the request its callable gives next (None: that
    client is done), one at a time."""
    async def client(next_request, until: float, counts: list[int]) -> None:
        while time.monotonic() < until:
            request = next_request()
            if request is None:
                return
            status = await _exchange(server.port, request)
            counts[2] += 1
            if time.monotonic() >= until - seconds:
                counts[0 if status < 400 else 1] += 1

    async def warmed(counts: list[int]) -> tuple[float, int]:
        """The server's CPU and the answers so far, once the warm-up is over."""
        await asyncio.sleep(warmup)
        return server.cpu(), counts[2]

    async def run() -> Load:
        counts = [0, 0, 0]  # succeeded and failed after the warm-up, all answers
        start = time.monotonic()
        until = start + warmup + seconds
        warming = asyncio.create_task(warmed(counts))
        await asyncio.gather(*(client(task, until, counts) for task in tasks))
        cpu, answered = await warming
        elapsed = max(min(time.monotonic(), until) - start - warmup, 1e-9)
        return Load(counts[0] / elapsed, counts[1],
                    (server.cpu() - cpu) * 1000 / max(counts[2] - answered, 1))

    return asyncio.run(run())


def repeat(request: Request) -> Callable[[], Request]:
    return lambda: request
