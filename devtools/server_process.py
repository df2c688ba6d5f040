"""The fake OpenAI-compatible server (:mod:`devtools.llm_server`) in another process, for the LLM
benchmarks (``bench/bench_llm.py``, ``bench/bench_judged.py``, ``bench/bench_transport.py``): its
threads do not share the benchmark's GIL.

    start_server(latency, *flags)   start it; (process, base URL ending in /v1)
    server_stats(url)               its GET /_stats: request counts, peak in flight, CPU-seconds
    posts(url)                      the API requests it answered (/v1/models left out)
    make_llm_client(...)            rageval's LLM client from whichever rageval is first on the path
"""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def start_server(latency: float, *extra: str) -> tuple[subprocess.Popen, str]:
    """Start ``python -m devtools.llm_server --latency <latency> <extra>`` and read its URL."""
    proc = subprocess.Popen([sys.executable, "-m", "devtools.llm_server", "--latency", str(latency), *extra],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    url = proc.stdout.readline().strip()
    if not url.startswith("http"):
        proc.kill()
        raise SystemExit(f"the fake server did not start (got {url!r})")
    return proc, url


def server_stats(url: str) -> dict:
    with urllib.request.urlopen(url.removesuffix("/v1") + "/_stats") as resp:
        return json.load(resp)


def posts(url: str) -> int:
    counts = server_stats(url)["counts"]
    return sum(n for path, n in counts.items() if path.startswith("/v1/") and path != "/v1/models")


def make_llm_client(*args: Any, **kwargs: Any) -> Any:
    """``rageval.llm.client.make_llm_client(*args, **kwargs)``.

    An older rageval is measured with the same benchmark, server and judge (a before/after comparison
    under the same machine load) by putting its package first on the path: `git archive COMMIT rageval
    | tar -x -C DIR` then `PYTHONPATH=DIR:. python -P -m bench.bench_llm` (-P: the working directory
    is not put first). Versions before the llm package kept the client in rageval/llm.py.
    """
    try:
        from rageval.llm.client import make_llm_client as make
    except ImportError:
        from rageval.llm import make_llm_client as make
    return make(*args, **kwargs)
