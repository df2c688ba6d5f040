"""Generate a QA set from an ingested corpus, check it with the critic and store it.

One entry point, :func:`generate_set`, for the CLI (``rageval qa generate``), the QA sets page
and the bench. What it does:

1. reads the corpus's chunks under the chunking it was ingested with (or the config's, when it
   names one: chunking stored documents anew), so the relevant ids it stores are the ids a run
   with that chunking retrieves;
2. makes candidates: templates (offline) from up to ``TEMPLATE_POOL`` x n sentences, or LLM
   slots in rounds: the first round asks n slots, each later round asks twice the number still
   missing, until n are kept or ``MAX_ASKED`` x n slots have been asked;
3. runs the critic (:func:`rageval.testsets.critic.review`) in plan order until n are kept;
4. stores the kept questions as QA set ``name`` (status ``new``), with the generator, the model,
   the prompts' signature, the judge and the counts of dropped questions by reason, and the
   dropped questions themselves (question, kind, reason), in the set's ``generation`` record.

Resuming: every LLM call goes through the project's LLM cache, and the plan depends only on the
seed, so re-running an interrupted (or finished) generation replays the answered calls from the
cache and asks only the rest. ``dry_run`` makes no call and returns the estimate.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from rageval.config import TestsetConfig
from rageval.errors import InputError
from rageval.project import Project
from rageval.runs.estimate import RoleEstimate, RunEstimate
from rageval.llm.cost import cost_usd, load_prices
from rageval.store import runs as run_store
from rageval.testsets import critic
from rageval.testsets.items import Candidate, qa_item
from rageval.testsets.llm import REPLY_TOKENS, Planner, ask_slot, multi_hop_partners, prompt_tokens, prompts_signature
from rageval.testsets.template import template_pool
from rageval.types import Spec

TEMPLATE_POOL = 3
MAX_ASKED = 2
VERSION = "v1"
#: tokens of one claim_verify call beyond its passages (prompt text and reply), for the estimate
JUDGE_PROMPT_TOKENS, JUDGE_REPLY_TOKENS = 450, 150

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Generated:
    """What a generation made: the kept candidates, the dropped ones (with reasons), the counts."""

    name: str
    signature: str
    kept: list[Candidate]
    dropped: list[Candidate]
    asked: int
    estimate: RunEstimate | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    #: the chunking signature whose chunk ids the relevant ids are
    chunking: str = ""
    #: the questions asked for (``--n``)
    wanted: int = 0
    #: templates: prose sentences read (6-60 words), and how many of them offered no question;
    #: None for the LLM generator
    sentences_read: int | None = None
    offered_nothing: int | None = None
    #: why the generator stopped asking (said when fewer than wanted were kept): the LLM's slot
    #: limit, or for templates the corpus running out, the reading limit or the pool checked
    stopped: str = ""

    @property
    def drops(self) -> dict[str, int]:
        return dict(Counter(c.dropped for c in self.dropped).most_common())


def outcome(result: Generated) -> str:
    """What a generation kept and, when fewer than wanted, the real causes, e.g. ``"8 question(s)
    kept of 40 asked, fewer than the 20 wanted: 28 dropped as unsupported, 4 as near duplicates;
    the 2 x n = 40 slots allowed were all asked."``; with none kept it opens "No question could be
    kept" and says nothing was stored."""
    from rageval.testsets.items import DROP_LABELS

    n, online = result.wanted, result.sentences_read is None
    drops = ", ".join(f"{count} {'dropped as ' if i == 0 else 'as '}{DROP_LABELS.get(reason, reason)}"
                      for i, (reason, count) in enumerate(result.drops.items()))
    causes = [drops] if drops else []
    if not online:
        causes.append(f"{result.offered_nothing} of {result.sentences_read} prose sentences read offered no question"
                      if result.sentences_read else "the corpus has no prose sentence of 6-60 words to ask about")
    if len(result.kept) < n and result.sentences_read != 0:
        causes.append(result.stopped or f"the {MAX_ASKED} x n = {MAX_ASKED * n} slots allowed were all asked")
    why = "; ".join(causes)
    if not result.kept:
        return f"No question could be kept of {result.asked} asked: {why}. Nothing was stored."
    head = f"{len(result.kept)} question(s) kept of {result.asked} asked"
    if len(result.kept) < n:
        return f"{head}, fewer than the {n} wanted: {why}."
    return f"{head}; {drops}." if drops else f"{head}."


def signature(config: TestsetConfig) -> str:
    """``testset|gen:G|kinds:..|prompt:HASH|judge:J|dup:0.9|seed:S|chunking:..|v1`` (templates: no
    kinds or prompt): what a generated set records of what made it."""
    parts = ["testset", f"gen:{config.generator}"]
    if config.online:
        parts += [f"kinds:{','.join(config.kinds)}", f"prompt:{prompts_signature(config.kinds)}"]
    parts += [f"judge:{config.judge_spec()}", f"dup:{critic.DUPLICATE_COSINE:g}", f"seed:{config.seed}",
              f"chunking:{config.chunking.signature()}", VERSION]
    return "|".join(parts)


def with_chunking(project: Project, config: TestsetConfig) -> TestsetConfig:
    """``config`` with its chunking resolved: the corpus's own when it names none."""
    from rageval.ingest.corpus import corpus_chunking

    return config if config.chunking is not None else replace(config, chunking=corpus_chunking(project, config.corpus))


def _chunks(project: Project, config: TestsetConfig) -> list[dict[str, Any]]:
    from rageval.ingest.corpus import ensure_chunks

    chunks = [c for c in ensure_chunks(project, config.corpus, config.chunking) if c["text"].strip()]
    if not chunks:
        raise InputError(f"corpus {config.corpus!r} has no documents in project {project.slug}; "
                         "ingest some first (rageval ingest PATH --corpus NAME)")
    return chunks


def estimate(config: TestsetConfig, chunks: list[dict[str, Any]], planner: Planner | None = None, *,
             prices: dict | None = None) -> RunEstimate | None:
    """The most calls, tokens and cost an LLM generation can take: ``MAX_ASKED`` x n generator
    calls and as many judge calls (one claim_verify call per question whose reference is not copied
    from its chunks), tokens ``ceil(characters / 4)`` of the planned prompts; None for templates."""
    if not config.online:
        return None
    prices = load_prices() if prices is None else prices
    planner = planner or Planner(chunks, config.kinds, seed=config.seed)
    slots = planner.slots(0, MAX_ASKED * config.n)
    gen_in = sum(prompt_tokens(s, chunks) for s in slots)
    roles = [
        ("generator", Spec.parse("generator", config.generator).model, len(slots), gen_in, REPLY_TOKENS * len(slots))
    ]
    judge = Spec.parse("judge", config.judge_spec()).model
    if judge:
        judged = [s for s in slots if s.kind != "unanswerable"]
        passages = sum(math.ceil(sum(len(chunks[i]["text"]) for i in s.chunks) / 4) for s in judged)
        roles.append(("judge", judge, len(judged), JUDGE_PROMPT_TOKENS * len(judged) + passages,
                      JUDGE_REPLY_TOKENS * len(judged)))
    estimates, unpriced, total = [], [], None
    for role, model, calls, t_in, t_out in roles:
        cost = cost_usd(model, t_in, t_out, prices)
        if cost is None:
            unpriced.append(model)
        else:
            total = (total or 0.0) + cost
        estimates.append(RoleEstimate(role, model, calls, t_in, t_out, cost))
    return RunEstimate(calls=sum(e.calls for e in estimates), tokens_in=sum(e.tokens_in for e in estimates),
                       tokens_out=sum(e.tokens_out for e in estimates), cost_usd=total, roles=tuple(estimates),
                       unpriced=tuple(sorted(set(unpriced))),
                       note=f"upper bound: {MAX_ASKED} x n generator calls and as many judge calls, before "
                            "retries and re-asks; tokens ~ characters/4; cache hits not subtracted")


def _llm_candidates(project: Project, config: TestsetConfig, chunks: list[dict[str, Any]], llm: Any,
                    embedder: Any, judge: Any, text: dict[str, str], progress: Progress | None) -> tuple[list, list]:
    neighbours = None
    if "multi_hop" in config.kinds:
        from rageval.embed.sentences import sentence_vectors

        neighbours = multi_hop_partners(sentence_vectors(embedder, [c["text"] for c in chunks]),
                                        [c["text"] for c in chunks])
    planner = Planner(chunks, config.kinds, seed=config.seed, neighbours=neighbours)
    kept: list[Candidate] = []
    seen: list[Candidate] = []
    limit = MAX_ASKED * config.n
    while len(kept) < config.n and len(seen) < limit:
        count = min(limit - len(seen), config.n if not seen else 2 * (config.n - len(kept)))
        slots = planner.slots(len(seen), count)
        done = [0]

        def one(slot: Any) -> Candidate:
            got = ask_slot(llm, slot, chunks, config.language)
            done[0] += 1
            if progress is not None:
                progress("questions", len(seen) + done[0], len(seen) + count)
            return got

        asked = llm.map(one, slots)
        if progress is not None:
            progress("check", 0, len(asked))
        reviewed = critic.review(asked, text, embedder, want=config.n, llm=judge, kept=kept)
        seen += reviewed
        kept += [c for c in reviewed if not c.dropped]
        if len(reviewed) < len(asked):
            break
    return kept, [c for c in seen if c.dropped]


def generate_set(project: Project, config: TestsetConfig, *, progress: Progress | None = None,
                 dry_run: bool = False, store: bool = True) -> Generated:
    """Generate, check and (unless ``dry_run`` or not ``store``) store QA set ``config.name``; a
    generation that kept no question stores nothing (:func:`outcome` says why).

    The models come from one model session (:mod:`rageval.llm.session`): the generator role when
    the generator is online, the judge (the critic's) and the embedder."""
    from rageval.access import require
    from rageval.llm.session import model_session

    if not dry_run:
        require(project, "upload")
    config = with_chunking(project, config)
    chunks = _chunks(project, config)
    sig = signature(config)
    if dry_run:
        return Generated(config.name, sig, [], [], 0, estimate=estimate(config, chunks),
                         chunking=config.chunking.signature())
    text = {c["id"]: c["text"] for c in chunks}
    roles = {"judge": config.judge_spec(), "embedder": config.embedder,
             **({"generator": config.generator} if config.online else {})}
    with model_session(roles, project=project, concurrency=config.concurrency, use_cache=config.use_cache) as session:
        client, embedder, judge = session.llm, session.embedder, session.judge.llm
        if progress is not None:
            progress("questions", 0, config.n)
        counts: dict[str, Any] = {}
        if config.online:
            kept, dropped = _llm_candidates(project, config, chunks, client, embedder, judge, text, progress)
        else:
            pool = template_pool(chunks, want=TEMPLATE_POOL * config.n, seed=config.seed, language=config.language)
            reviewed = critic.review(pool.candidates, text, embedder, want=config.n, llm=judge)
            kept, dropped = [c for c in reviewed if not c.dropped], [c for c in reviewed if c.dropped]
            counts = dict(sentences_read=pool.sentences_read, offered_nothing=pool.offered_nothing,
                          stopped=_template_stop(pool, config.n))
        usage = _usage(client.usage()) if client is not None else {}
    result = Generated(config.name, sig, kept, dropped, len(kept) + len(dropped), usage=usage,
                       chunking=config.chunking.signature(), wanted=config.n, **counts)
    if progress is not None:
        progress("questions", len(kept), config.n)
    if store and kept:
        save(project, config, result)
    return result


def _template_stop(pool: Any, n: int) -> str:
    """Why the template generator offered no more candidates (said in a shortfall)."""
    from rageval.testsets.template import SENTENCES_PER_CANDIDATE

    if len(pool.candidates) >= TEMPLATE_POOL * n:
        return f"the {TEMPLATE_POOL} x n = {TEMPLATE_POOL * n} candidates drawn were all checked"
    if pool.exhausted:
        return "the corpus offered no more"
    return (f"reading stopped at {SENTENCES_PER_CANDIDATE} sentences per candidate wanted "
            f"({SENTENCES_PER_CANDIDATE} x {TEMPLATE_POOL} x n = {SENTENCES_PER_CANDIDATE * TEMPLATE_POOL * n})")


def _usage(summary: Any) -> dict[str, Any]:
    return {"calls": summary.calls, "cached": summary.cached, "network_calls": summary.network_calls,
            "failed": summary.failed, "tokens_in": summary.tokens_in, "tokens_out": summary.tokens_out,
            "cost_usd": summary.cost_usd}


def generation_record(config: TestsetConfig, result: Generated) -> dict[str, Any]:
    """What a stored set records of its making (the ``generation`` column)."""
    return {"corpus": config.corpus, "chunking": config.chunking.signature(), "generator": config.generator,
            "model": Spec.parse("generator", config.generator).model if config.online else None,
            "kinds": list(config.kinds) if config.online else ["template"],
            "prompt": prompts_signature(config.kinds) if config.online else None,
            "judge": config.judge_spec(), "seed": config.seed, "language": config.language,
            "duplicate_cosine": critic.DUPLICATE_COSINE, "signature": result.signature,
            "asked": result.asked, "kept": len(result.kept), "drops": result.drops,
            "sentences_read": result.sentences_read, "offered_nothing": result.offered_nothing,
            "dropped": [{"question": c.question, "kind": c.kind, "reason": c.dropped, "detail": c.detail,
                         "chunks": list(c.source_chunks)} for c in result.dropped]}


def save(project: Project, config: TestsetConfig, result: Generated, items: list[dict[str, Any]] | None = None) -> None:
    """Store ``result`` (or reviewed ``items``, in :func:`rageval.testsets.items.qa_item`'s shape) as set
    ``config.name``."""
    from rageval.access import acting

    config = with_chunking(project, config)
    rows = items if items is not None else [qa_item(c) for c in result.kept]
    if not rows:
        raise InputError(outcome(result))
    with acting(project, "upload", "qa_generate", config.name, corpus=config.corpus, items=len(rows)):
        run_store.save_qa_set(project.db_path, config.name, f"generated from corpus {config.corpus}", rows,
                              generator=config.generator, generation=generation_record(config, result))
