"""Tools shared by the tests and the benchmarks: a scriptable OpenAI-compatible server
(:mod:`devtools.llm_server`, standard library only) and the scripted judge that answers through it
(:mod:`devtools.judge_responder`), and the scripted test-set generator (:mod:`devtools.testset_responder`). Not part of
the installed package."""
