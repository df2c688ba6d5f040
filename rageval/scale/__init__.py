"""Scoring beyond one process: engines that run :mod:`rageval.scoring`'s unit of work elsewhere.

- :mod:`rageval.scale.ray_engine`: ``score --engine ray`` over Ray Data (Ray is imported only there);
- :mod:`rageval.scale.ray_cleanup`: what a local Ray cluster leaves when its driver is killed, and its removal.
"""
