"""The LLM layer (every request through the openai client, loaded when a role goes online). Import from
the modules themselves:

- :mod:`rageval.llm.client`: ``LLMClient`` and ``make_llm_client`` (pooled, limited, retried, cached calls);
- :mod:`rageval.llm.roles`: roles, model specs, where servers and keys come from, error texts;
- :mod:`rageval.llm.pool`: the concurrency limiter, per-role rate caps, backoff and the bounded pool;
- :mod:`rageval.llm.replies`: cache keys, tolerant JSON parsing, reply validation and re-asks;
- :mod:`rageval.llm.cost`: prices and the usage summary after a run;
- :mod:`rageval.runs.estimate`: the upper-bound estimate before a run;
- :mod:`rageval.llm.chat`: the chat roles' calls (one completion; a JSON reply in the server's mode);
- :mod:`rageval.llm.embeddings`: the embedder role's calls;
- :mod:`rageval.llm.wire`: the raw chat request and reading its reply;
- :mod:`rageval.llm.connection`: one role's openai client, its requests as plain JSON, what a failed one raises;
- :mod:`rageval.llm.bounded`: the deadline and the largest reply of one request, enforced at the socket;
- :mod:`rageval.llm.formats`: the structured-output mode of each (server, model);
- :mod:`rageval.llm.preflight`: the reachability check of a role's server;
- :mod:`rageval.llm.session`: the model session, the one place the library opens clients (and binds the embedder).
"""
