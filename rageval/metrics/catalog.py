"""Imports every metric module so that their ``@register`` decorators fill ``METRICS``.

One import per line; a new metric module adds its own line.
"""
from rageval.metrics import retrieval  # noqa: F401
from rageval.metrics import lexical  # noqa: F401
from rageval.metrics import semantic  # noqa: F401
from rageval.metrics import correctness  # noqa: F401
from rageval.metrics import claims, hedging, judged, triad  # noqa: F401
from rageval.metrics import aligncheck  # noqa: F401
