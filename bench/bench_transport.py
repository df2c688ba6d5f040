"""CPU per chat request through rageval's connection and the clients under it, against the fake server in another
process.

    python -m bench.bench_transport [--requests 800] [--threads 16] [--latency 0.02]

Each client sends the same chat completion (JSON mode, two ~1,500-character messages) from
``--threads`` threads: rageval's :class:`rageval.llm.connection.Connection` (the openai client with
its retries off, over the bounded HTTP client of :mod:`rageval.llm.bounded`: what every rageval
request costs), the openai client's own raw ``post`` with its default HTTP client (the bounds'
share is the difference) and ``httpx2.Client.post`` (the HTTP layer alone). Reported per client:
CPU-milliseconds of this process per request (``time.process_time``; the server's CPU is not
counted) and the wall time, plus the import time of each client's package in a fresh interpreter.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from devtools.server_process import start_server

BODY = {
    "model": "bench",
    "temperature": 0,
    "seed": 0,
    "response_format": {"type": "json_object"},
    "messages": [{"role": "system", "content": "x" * 1500}, {"role": "user", "content": "reply in json " + "y" * 1500}],
}


#: what each client imports before its first request (rageval's connection loads the openai client then)
IMPORTS = {"rageval.llm.connection": "rageval.llm.connection, rageval.llm.bounded, openai"}


def per_request(make: Callable[[], Callable[[dict], Any]], requests: int, threads: int) -> dict:
    local = threading.local()

    def one(_i: int) -> Any:
        if not hasattr(local, "send"):
            local.send = make()
        return local.send(BODY)

    cpu, wall = time.process_time(), time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        replies = list(pool.map(one, range(requests)))
    assert all(r["choices"][0]["message"]["content"] for r in replies)
    return {"cpu_ms_per_request": round(1000 * (time.process_time() - cpu) / requests, 3),
            "wall_s": round(time.perf_counter() - wall, 2)}


def import_seconds(module: str) -> float:
    done = subprocess.run([sys.executable, "-c", f"import time; t = time.perf_counter(); import {module}; "
                           "print(time.perf_counter() - t)"], capture_output=True, text=True)
    return round(float(done.stdout.strip()), 3) if done.returncode == 0 else float("nan")


def clients(url: str) -> dict[str, Callable[[], Callable[[dict], Any]]]:
    import httpx2
    import openai

    from rageval.llm.connection import open_connection

    connection = open_connection(url, "k", timeout=60, connect_timeout=5, deadline=300, max_reply_bytes=8_000_000)
    oa = openai.OpenAI(api_key="k", base_url=url, max_retries=0)
    hx = httpx2.Client(timeout=httpx2.Timeout(60, connect=5),
                       limits=httpx2.Limits(max_connections=64, max_keepalive_connections=64))
    headers = {"Authorization": "Bearer k", "Content-Type": "application/json"}
    return {
        "rageval.llm.connection": lambda: (lambda body: connection.post("/chat/completions", body)),
        "openai": lambda: (lambda body: oa.post("/chat/completions", body=body, cast_to=httpx2.Response).json()),
        "httpx2": lambda: (lambda body: hx.post(url + "/chat/completions", content=json.dumps(body).encode(),
                                                headers=headers).json()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=800)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.02)
    args = parser.parse_args()
    proc, url = start_server(args.latency)
    try:
        for name, make in clients(url).items():
            make()(BODY)  # warm: the first connection, lazy imports
            print(json.dumps({"bench": "transport", "client": name, "requests": args.requests, "threads": args.threads,
                              **per_request(make, args.requests, args.threads),
                              "import_s": import_seconds(IMPORTS.get(name, name))}), flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
