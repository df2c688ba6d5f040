"""QA sets generated from an ingested corpus: every question carries its reference, the ids of the
chunks that hold it (the relevance labels of recall@k, MRR, nDCG) and its source sentences.

- :mod:`~rageval.testsets.template`: the offline generator (no key): a question, its question word
  at the front, per sentence that surely states a number, a date, a name, a definition or an
  object (:mod:`~rageval.testsets.slots`, :mod:`~rageval.testsets.questions`), the sentence as the
  reference. A smoke test, not a substitute for a set written by an LLM or a person.
- :mod:`~rageval.testsets.llm`: the LLM generator (kinds in :data:`~rageval.testsets.items.KINDS`)
  through the project's LLM layer (cache, concurrency, retries, cost estimate).
- :mod:`~rageval.testsets.critic`: what every candidate must pass before it is kept: it stands
  alone, has content and does not answer itself, its reference is not empty, garbled or
  boilerplate (:mod:`~rageval.testsets.content`) and is supported by its chunks, it is not a near
  duplicate of a kept one.
- :mod:`~rageval.testsets.generate`: the one entry point (CLI, app, bench): plan, generate,
  check, store.
"""
