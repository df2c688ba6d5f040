"""Run settings: one frozen ``RunConfig`` passed explicitly, and its hash; the defaults of the
other commands (``RayOptions``, ``CorrelateConfig``, ``CompareConfig``, ``GateConfig``). These
classes are the one place a default lives: the CLI's flags and the library's keyword defaults
read them.

Only what changes results enters the hash (corpus, QA set, chunking, embedder, top-k,
generator, temperature, judge, metrics). Concurrency, caching and keys do not: they change how
fast a run goes, not what it produces. Secrets never enter a config.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from rageval.errors import ConfigError
from rageval.types import Spec
from rageval.prompts.rubric import Rubric
from rageval.util import stable_hash

#: the ways to chunk a document (rageval.ingest.chunking implements them)
METHODS = ("recursive", "chars")


@dataclass(frozen=True)
class ChunkingConfig:
    """How to chunk: ``method`` ("recursive" or "chars"), ``size`` and ``overlap`` in characters."""

    method: str = "recursive"
    size: int = 1024
    overlap: int = 128

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ConfigError(
                f"chunking method={self.method!r} is not one of {', '.join(METHODS)}"
            )
        for name, value in (("chunk_size", self.size), ("chunk_overlap", self.overlap)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{name}={value!r} must be a whole number of characters")
        if self.size < 1:
            raise ConfigError(f"chunk_size={self.size} must be at least 1")
        if self.overlap < 0:
            raise ConfigError(f"chunk_overlap={self.overlap} must not be negative")
        if self.overlap >= self.size:
            raise ConfigError(
                f"chunk_overlap={self.overlap} must be smaller than chunk_size={self.size}"
            )

    def signature(self) -> str:
        """``method-size-overlap``, e.g. ``recursive-1024-128``; part of every chunk id."""
        return f"{self.method}-{self.size}-{self.overlap}"

    @classmethod
    def from_signature(cls, signature: str) -> "ChunkingConfig":
        """The config whose :meth:`signature` is ``signature`` (``method-size-overlap``)."""
        method, _, rest = signature.partition("-")
        size, _, overlap = rest.partition("-")
        if not (size.isdigit() and overlap.isdigit()):
            raise ConfigError(f"chunking {signature!r} is not method-size-overlap (e.g. recursive-1024-128)")
        return cls(method=method, size=int(size), overlap=int(overlap))



#: the metrics a run computes when none are named: cheap, offline, and enough to read a run
DEFAULT_METRICS = (
    "exact_match",
    "token_f1",
    "rougeL",
    "bleu",
    "answer_similarity",
    "answer_correctness_offline",
    "recall@5",
    "ndcg@10",
    "mrr",
    "faithfulness",
    "contradicted_share",
    "not_mentioned_share",
    "context_relevance",
    "hedging",
)


def index_signature(corpus: str, chunking: ChunkingConfig, embedder: str) -> str:
    """What makes a vector collection: corpus, chunking and embedder (one collection each)."""
    return f"{corpus}|{chunking.signature()}|{embedder}"


@dataclass(frozen=True)
class RunConfig:
    corpus: str
    qa_set: str
    chunking: ChunkingConfig = field(default_factory=ChunkingConfig)
    embedder: str = "local"
    top_k: int = 10
    generator: str = "extractive"
    temperature: float = 0.0
    judge: str = "heuristic"
    metrics: tuple[str, ...] = DEFAULT_METRICS
    language: str = "en"
    # AlignCheck's options (they reach only the aligncheck_* metrics)
    aligncheck_source: str = "reference"
    aligncheck_types: str = "all"
    # the rubrics the metrics name as rubric:NAME, in full (a resumed run judges with the same text)
    rubrics: tuple[Rubric, ...] = ()
    # not part of the hash:
    concurrency: int = 16
    use_cache: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.top_k <= 100:
            raise ConfigError(f"top_k={self.top_k} must be between 1 and 100")
        if not 0.0 <= self.temperature <= 2.0:
            raise ConfigError(f"temperature={self.temperature} must be between 0 and 2")
        if not 1 <= self.concurrency <= 256:
            raise ConfigError(f"concurrency={self.concurrency} must be between 1 and 256")
        for role in ("embedder", "generator", "judge"):  # one canonical text: "openai:gpt-4o", "heuristic"
            object.__setattr__(self, role, str(Spec.parse(role, getattr(self, role))))

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["metrics"] = list(self.metrics)
        data["rubrics"] = [r.to_dict() for r in self.rubrics]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunConfig":
        data = dict(data)
        data["chunking"] = ChunkingConfig(**data.get("chunking", {}))
        data["metrics"] = tuple(data.get("metrics", DEFAULT_METRICS))
        data["rubrics"] = tuple(Rubric.from_dict(r, "the run's rubric") for r in data.get("rubrics") or ())
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def result_fields(self) -> dict[str, Any]:
        data = self.to_dict()
        data.pop("concurrency")
        data.pop("use_cache")
        # at their defaults AlignCheck's options stay out, so runs made before they existed keep their hash
        for name, default in (("aligncheck_source", RunConfig.aligncheck_source),
                              ("aligncheck_types", RunConfig.aligncheck_types), ("rubrics", [])):
            if data.get(name) == default:
                data.pop(name)
        return data

    def config_hash(self) -> str:
        """16 hex characters of sha256 over the canonical JSON of the result-changing fields."""
        return stable_hash(self.result_fields())

    def roles(self) -> dict[str, str]:
        """The run's model roles, ``{role: spec}`` (generator, judge, embedder), for its model session."""
        return {"generator": self.generator, "judge": self.judge, "embedder": self.embedder}

    def metric_options(self) -> dict[str, Any]:
        """The options every metric that has such a field takes from the run (its judge as a Spec,
        language, embedder, aligncheck_*), and the rubrics by name for the rubric:NAME metrics."""
        return {"judge": Spec.parse("judge", self.judge), "language": self.language, "embedder": self.embedder,
                "aligncheck_source": self.aligncheck_source, "aligncheck_types": self.aligncheck_types,
                "rubrics": {r.name: r for r in self.rubrics}}

    def index_signature(self) -> str:
        """The run's vector collection: :func:`index_signature` of its corpus, chunking, embedder."""
        return index_signature(self.corpus, self.chunking, self.embedder)


@dataclass(frozen=True)
class ImportConfig:
    """The settings of an import run: answers scored from a file (``score``, the app's upload, the
    parts of ``score --engine ray``). ``source`` is the file's display name, ``options`` the metric
    options the scoring was given (``aligncheck_source``, ...), ``rubrics`` the rubric texts the values
    were judged with. Stored flat (:meth:`to_dict`), as import runs always were."""

    source: str = "answers"
    metrics: tuple[str, ...] = ()
    judge: str = "heuristic"
    language: str = "en"
    embedder: str = "local"
    options: tuple[tuple[str, Any], ...] = ()
    rubrics: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = {"source": self.source, "metrics": list(self.metrics), "judge": self.judge,
                "language": self.language, "embedder": self.embedder, **dict(self.options)}
        if self.rubrics:
            data["rubrics"] = [dict(r) for r in self.rubrics]
        return data

    @property
    def input(self) -> str | None:
        """The path of the file ``score`` read (stored among the options), None for an upload (no path)."""
        value = dict(self.options).get("input")
        return None if value is None else str(value)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ImportConfig":
        named = {"source", "metrics", "judge", "language", "embedder", "rubrics"}
        return cls(source=str(data.get("source") or cls.source), metrics=tuple(data.get("metrics") or ()),
                   judge=str(data.get("judge") or cls.judge), language=str(data.get("language") or cls.language),
                   embedder=str(data.get("embedder") or cls.embedder),
                   options=tuple(sorted((k, v) for k, v in data.items() if k not in named)),
                   rubrics=tuple(data.get("rubrics") or ()))


def stored_config(kind: str, data: dict[str, Any] | None, *, corpus: str | None = None,
                  qa_set: str | None = None) -> RunConfig | ImportConfig:
    """The typed config of a stored run from its ``kind`` and stored JSON ``data``: a RunConfig for a
    pipeline run (``corpus`` and ``qa_set`` are its columns), an ImportConfig for imported scores.
    The store reads every stored config here (:class:`rageval.store.record.Run`).

    >>> stored_config("import", {"source": "a.csv", "aligncheck_source": "contexts"}).options
    (('aligncheck_source', 'contexts'),)
    >>> stored_config("pipeline", {"top_k": 3}, corpus="c", qa_set="q").generator
    'extractive'
    """
    data = data or {}
    if kind == "pipeline":
        return RunConfig.from_dict({"corpus": corpus or "", "qa_set": qa_set or "", **data})
    return ImportConfig.from_dict(data)


def run_model(config: RunConfig | ImportConfig) -> str:
    """What produced a run's answers, from its typed config: the generator of a pipeline run
    (``extractive``, ``openai:gpt-4o``), ``imported <source>`` for answers scored from a file
    (``imported answers`` when the import named no source). The one label of a run's model: the
    run list, the leaderboard and the human-rating groups all use it.

    >>> run_model(RunConfig("c", "q")), run_model(ImportConfig(source="a.csv"))
    ('extractive', 'imported a.csv')
    """
    return f"imported {config.source}" if isinstance(config, ImportConfig) else config.generator


@dataclass(frozen=True)
class RayOptions:
    """How ``score --engine ray`` runs: where (``address``), how wide (``workers`` x
    ``cpus_per_worker``), how fine (:mod:`rageval.scale.ray_engine`)."""

    address: str | None = None      # None: a local cluster; "auto" or "ray://host:10001": join one
    workers: int = 2
    cpus_per_worker: float = 0.5    # fractional, so the pool never starves Ray's own tasks of CPUs
    num_cpus: int | None = None     # CPUs of a local cluster (default: this machine's)
    batch_size: int = 64            # rows scored at once by an actor
    part_rows: int = 1000           # rows per part file
    retries: int = 2
    concurrency: int = RunConfig.concurrency  # model calls in flight, all actors together
    use_cache: bool = True
    llm_cache: str | None = None    # a DuckDB file every worker can open; None: no persistent cache
    # a local cluster's session folder (a short path); default rg-XXXX in the system temp folder
    temp_dir: str | None = None
    # rageval.ingest.limits.RowLimits: the largest field and deepest row (default: from the environment)
    limits: Any = None


@dataclass(frozen=True)
class CorrelateConfig:
    """Defaults of the metric-human correlation analysis (``correlate``, :func:`rageval.human.correlate_runs`)."""

    group_by: str = "none"
    method: str = "spearman"
    consensus: str = "median"
    n_boot: int = 1000
    seed: int = 0


@dataclass(frozen=True)
class CompareConfig:
    """Defaults of a run comparison (``compare``, :func:`rageval.human.compare_runs`): bootstrap
    resamples and seed of the difference CI, questions listed as worse / better."""

    n_boot: int = 2000
    seed: int = 0
    limit: int = 10


@dataclass(frozen=True)
class GateConfig:
    """Defaults of the CI gate (``check``, :func:`rageval.gate.run_gate`): the smallest mean drop
    that can fail the regression check and the Wilcoxon significance level."""

    min_effect: float = 0.0
    alpha: float = 0.05


#: question kinds of the LLM test-set generator (rageval.testsets; one prompt file each)
TESTSET_KINDS = ("single_fact", "multi_hop", "numeric", "unanswerable", "paraphrase")


@dataclass(frozen=True)
class TestsetConfig:
    """Generating a QA set from a corpus (``rageval qa generate``, the QA sets page).

    ``generator`` is ``template`` (offline) or ``openai:MODEL``; ``judge`` checks that a reference
    is supported by its chunks: ``None`` uses the generator's model for an LLM generator and the
    offline containment check for templates; ``heuristic`` forces the offline check. ``language``
    ``None`` reads each chunk's language. The seed fixes which chunks and sentences are used.
    """

    __test__ = False  # not a pytest test class, whatever its name

    corpus: str
    name: str
    n: int = 50
    kinds: tuple[str, ...] = TESTSET_KINDS
    generator: str = "template"
    judge: str | None = None
    language: str | None = None
    seed: int = 0
    #: None: the corpus's own (:func:`rageval.ingest.corpus.corpus_chunking`), so the relevant ids
    #: are the ids of the chunks its runs retrieve
    chunking: ChunkingConfig | None = None
    embedder: str = "local"
    concurrency: int = 8
    use_cache: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.n <= 5000:
            raise ConfigError(f"n={self.n} must be between 1 and 5000")
        unknown = [k for k in self.kinds if k not in TESTSET_KINDS]
        if unknown or not self.kinds:
            raise ConfigError(f"unknown question kind(s) {', '.join(unknown) or '(none given)'}; "
                              f"choose from {', '.join(TESTSET_KINDS)}")
        if self.generator != "template":
            Spec.parse("generator", self.generator)
        if self.judge is not None:
            Spec.parse("judge", self.judge)
        if self.language is not None and self.language not in ("en", "it"):
            raise ConfigError(f"language={self.language!r}: the generator writes en or it")
        if not self.name.strip():
            raise ConfigError("a generated QA set needs a name (--name)")

    @property
    def online(self) -> bool:
        return self.generator != "template"

    def judge_spec(self) -> str:
        """The judge that checks support: the given one, else the generator's model, else heuristic."""
        if self.judge is not None:
            return self.judge
        return self.generator if self.online else "heuristic"
