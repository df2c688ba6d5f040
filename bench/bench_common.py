"""What every bench script prints beside its figures: the command that made them, the load
average, the cores and the CPU-seconds, so a figure is never read without the load it was taken
under (docs/benchmarks.md takes its figures from idle runs only).

    announce()      at the start: the command line (with the variables that change speed) on stderr
    run_facts()     at the end: {"command", "load_avg", "cpus", "cpu_s", "utc"} to merge into the JSON
"""
from __future__ import annotations

import datetime
import os
import resource
import shlex
import sys

#: environment variables that change a run (its speed, or what it imports), echoed in front of the command
SPEED_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "RAGEVAL_WORKERS", "PYTHONPATH")


def command() -> str:
    """The command line as typed, with the speed-relevant variables that were set in front."""
    env = " ".join(f"{k}={shlex.quote(os.environ[k])}" for k in SPEED_VARIABLES if os.environ.get(k))
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    start = ["-m", spec.name] if spec is not None else [os.path.relpath(sys.argv[0])]  # python -m bench.x, or a path
    argv = " ".join(shlex.quote(a) for a in start + sys.argv[1:])
    return f"{env} python {argv}".strip()


def cpu_seconds() -> float:
    """User + system CPU-seconds of this process and of its reaped children."""
    use = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(u.ru_utime + u.ru_stime for u in use)


def announce() -> None:
    """Print the command and the load average at the start on stderr (stdout stays JSON)."""
    print(f"$ {command()}    # load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"{os.cpu_count()} cpus", file=sys.stderr, flush=True)


def run_facts() -> dict:
    """The command, the load average (1, 5, 15 min) at the end, the cores, and the CPU-seconds so far."""
    return {
        "command": command(),
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "cpus": os.cpu_count(),
        "cpu_s": round(cpu_seconds(), 2),
        "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
    }


def framed(main) -> object:
    """Run a bench's ``main()`` between :func:`announce` and a last stdout line
    ``{"run": run_facts()}`` (its CPU-seconds count the reaped worker processes too)."""
    import json

    announce()
    result = main()
    print(json.dumps({"run": run_facts()}), flush=True)
    return result
