"""AlignCheck (seed paper 003): schema-free fact-level consistency of a target text with a source.

``entities`` (spaCy NER and parses, language check), ``granularity`` (TF-IDF over entity types),
``triples`` (subject-predicate-object facts from the dependency parse, entity normalisation),
``score`` (Algorithm 1: soft TP from predicate similarity, FP, FN, then P, R, F1).
The metrics that use them live in :mod:`rageval.metrics.aligncheck`.
"""
