-- 002: what the LLM layer records beyond 001: the kind of call and how many attempts it took.
ALTER TABLE llm_calls ADD COLUMN kind VARCHAR;       -- chat | json | embed
ALTER TABLE llm_calls ADD COLUMN attempts INTEGER;   -- network attempts (0 for a cache hit)
