"""Actors for tests/test_scale_ray.py, in a module of their own so Ray's workers import them by name."""
from __future__ import annotations

import os
from pathlib import Path

from rageval.scale.ray_engine import ScoreActor


class DiesOnce(ScoreActor):
    """Kills its own process on its first part, once per marker file (``<out_dir>/../died``):
    a worker lost mid-part, as when a machine goes away."""

    def __call__(self, batch):
        marker = self.out_dir.parent / "died"
        if not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)
        return super().__call__(batch)


class AlwaysDies(ScoreActor):
    """Kills its own process on every call: every retry of its parts fails."""

    def __call__(self, batch):
        Path(self.out_dir.parent / "deaths").open("a").write(f"{os.getpid()}\n")
        os._exit(1)
