"""Answer generation: the ``Generator`` protocol, the extractive (offline) generator and the LLM one."""
