"""Speed of the correlation matrix (rageval.stats.correlation_matrix).

Target: the full Spearman matrix of 20 metrics x 100,000 items in under 2 s on 2 cores.

    python -m bench.bench_stats [--metrics 20] [--items 100000] [--missing 0.0] [--method spearman]
                                [--n-boot 1000] [--repeats 3]

Scores are seeded synthetic values (a shared latent plus noise, rounded to 2 decimals so there
are ties); ``--missing`` blanks that share of one metric's values so its pairs go through the
pairwise path. Prints one JSON line: wall seconds (best of ``--repeats``), CPU seconds, and how
the CIs were made (a bootstrap below the budget, the Fisher z interval above).
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from rageval.stats import correlation_matrix

def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--metrics", type=int, default=20)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--missing", type=float, default=0.0)
    ap.add_argument("--method", default="spearman")
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    latent = rng.normal(size=(a.items, 1))
    x = np.round(latent + rng.normal(0, 1.0, (a.items, a.metrics)), 2)
    if a.missing:
        x[rng.random(a.items) < a.missing, 0] = np.nan
    walls, cpus = [], []
    for _ in range(a.repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        mat = correlation_matrix(x, method=a.method, n_boot=a.n_boot, seed=0)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    how = sorted({c.ci_method for c in mat.cells.values() if c.ci_method})
    print(json.dumps({"metrics": a.metrics, "items": a.items, "missing": a.missing, "method": a.method,
                      "n_boot": a.n_boot, "ci": how, "wall_s": round(min(walls), 3), "cpu_s": round(min(cpus), 3),
                      "load_avg": round(os.getloadavg()[0], 2), "cores": os.cpu_count()}))


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
