"""Rubrics a user writes without code, and the project's stored rubrics.

A rubric is a small TOML file::

    name = "politeness"                      # letters, digits, _ (the metric is rubric:politeness)
    description = "Is the answer polite and professional towards a customer?"
    criteria = ["greets or thanks where natural", "no blame on the customer", "no slang"]
    needs = ["reference"]                    # optional: also show the judge the reference / contexts

    [anchors]                                # what each score 1-5 looks like
    1 = "rude or dismissive"
    2 = "curt, or blames the customer"
    3 = "neutral, neither polite nor rude"
    4 = "polite with a small lapse"
    5 = "polite, warm and professional throughout"

``criteria`` may also be one string. All five anchors are required, so every judge reads the
same scale. The LLM judge rates the answer 1-5 on the rubric; the stored value is
``(rating - 1) / 4`` in [0, 1] (the rating is kept in the details). A rubric's
:meth:`Rubric.digest` (sha256 over its canonical JSON) goes into the metric's signature, so an
edited rubric never compares with values of the old one. Rubrics of a project are stored in its
database (:func:`rageval.metrics.rubric.add_rubric`), where the app and the CLI both find them; the
judged metric is :class:`rageval.metrics.rubric.RubricMetric`.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from rageval.errors import ConfigError
from rageval.util import canonical_json, sha256_hex

PREFIX = "rubric:"
#: inputs a rubric may add to the question and answer the judge always sees
OPTIONAL_NEEDS = ("reference", "contexts")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_LIMIT = 2000  # characters per text field: a rubric is read by a person and sent with every call


@dataclass(frozen=True)
class Rubric:
    name: str
    description: str
    criteria: tuple[str, ...]
    anchors: tuple[str, str, str, str, str]  # what a 1, 2, 3, 4 and 5 look like
    needs: tuple[str, ...] = ()

    @property
    def metric(self) -> str:
        return PREFIX + self.name

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    def digest(self) -> str:
        """8 hex digits of sha256 over the rubric's canonical JSON (its signature part)."""
        return sha256_hex(canonical_json(self.to_dict()))[:8]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "rubric") -> "Rubric":
        """A validated rubric from parsed TOML (or a stored dict); messages name the field and the fix."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{source}: a rubric is a table of name, description, criteria and anchors")
        name = str(data.get("name", "")).strip().lower()
        if not _NAME.match(name):
            raise ConfigError(f"{source}: name={data.get('name')!r} must be 1-40 lower-case letters, digits or _, "
                              "starting with a letter (e.g. name = \"politeness\")")
        description = _text(data.get("description"), f"{source}: description")
        raw = data.get("criteria", ())
        criteria = (raw,) if isinstance(raw, str) else raw
        if not isinstance(criteria, (list, tuple)) or not criteria:
            raise ConfigError(f"{source}: criteria must be a string or a list of strings, e.g. criteria = [\"...\"]")
        criteria = tuple(_text(c, f"{source}: criteria") for c in criteria)
        anchors = data.get("anchors")
        if isinstance(anchors, (list, tuple)):
            anchors = {str(i): a for i, a in enumerate(anchors, 1)}
        if not isinstance(anchors, Mapping) or sorted(map(str, anchors)) != ["1", "2", "3", "4", "5"]:
            got = sorted(map(str, anchors)) if isinstance(anchors, Mapping) else anchors
            raise ConfigError(f"{source}: [anchors] must describe each score 1, 2, 3, 4 and 5 (got {got!r})")
        by = {str(k): v for k, v in anchors.items()}
        needs = data.get("needs", ())
        needs = (needs,) if isinstance(needs, str) else tuple(needs)
        bad = [n for n in needs if n not in OPTIONAL_NEEDS]
        if bad:
            raise ConfigError(f"{source}: needs {bad!r} unknown; a rubric may need {', '.join(OPTIONAL_NEEDS)}")
        return cls(name, description, criteria, tuple(_text(by[str(i)], f"{source}: anchor {i}") for i in range(1, 6)),
                   tuple(sorted(set(needs))))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where} must be a non-empty string")
    if len(value) > _LIMIT:
        raise ConfigError(f"{where} has {len(value)} characters; keep it under {_LIMIT}")
    return " ".join(value.split())


def parse_rubric(text: str, source: str = "rubric.toml") -> Rubric:
    """A :class:`Rubric` from TOML text (module docstring); a ConfigError says what is wrong.

    >>> r = parse_rubric('name = "tone"\\ndescription = "Polite?"\\ncriteria = "no slang"\\n'
    ...                  'anchors = ["rude", "curt", "neutral", "polite", "warm"]')
    >>> r.metric, r.anchors[4], len(r.digest())
    ('rubric:tone', 'warm', 8)
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML ({exc})") from exc
    return Rubric.from_dict(data, source)
