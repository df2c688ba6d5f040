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
same scale. A rubric is sent with every judge call, so it has limits: at most
:data:`MAX_CRITERIA` criteria, :data:`MAX_FIELD_CHARS` characters per text,
:data:`MAX_TEXT_CHARS` characters of text in all, and a file (or the app's text box) of at most
:data:`MAX_SOURCE_CHARS` characters, checked before the TOML is parsed. Every mistake is a
ConfigError naming the field (``needs = 5``: "needs must be ..."; a key the format does not have,
a value nested deeper than TOML's reader goes). A file is UTF-8, with or without a byte-order
mark; another encoding is named in the error (:func:`read_rubric_text`).

The LLM judge rates the answer 1-5 on the rubric (a JSON integer, read strictly:
:class:`rageval.prompts.schemas.RubricRating`); the stored value is ``(rating - 1) / 4`` in
[0, 1] (the rating is kept in the details). A rubric's
:meth:`Rubric.digest` (sha256 over its canonical JSON) goes into the metric's signature, so an
edited rubric never compares with values of the old one. Rubrics of a project are stored in its
database (:func:`rageval.runs.rubrics.add_rubric`), where the app and the CLI both find them; the
judged metric is :class:`rageval.metrics.rubric.RubricMetric`.
"""
from __future__ import annotations

import re
import reprlib
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from rageval.errors import ConfigError
from rageval.util import canonical_json, sha256_hex

PREFIX = "rubric:"
#: inputs a rubric may add to the question and answer the judge always sees
OPTIONAL_NEEDS = ("reference", "contexts")
FIELDS = ("name", "description", "criteria", "needs", "anchors")
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_FIELD_CHARS = 2000   # characters per text: a rubric is read by a person and sent with every call
MAX_CRITERIA = 20
MAX_TEXT_CHARS = 10_000  # description, criteria and anchors together (about 2,500 tokens per call)
MAX_SOURCE_CHARS = 50_000  # the TOML as written, comments included; checked before it is parsed
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict = 2, 40, 40, 3, 3


def shown(value: Any) -> str:
    """A short, bounded text of any parsed value for a message (a 50,000-deep array is ``[[[...]]]``)."""
    return _SHORT.repr(value)


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
    def from_dict(cls, data: Any, source: str = "rubric") -> "Rubric":
        """A validated rubric from parsed TOML (or a stored dict); messages name the field and the fix."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{source}: a rubric is a table of name, description, criteria and anchors")
        unknown = [str(k) for k in data if k not in FIELDS]
        if unknown:
            raise ConfigError(f"{source}: unknown field(s) {', '.join(map(shown, unknown))}; a rubric has "
                              f"{', '.join(FIELDS)}")
        raw_name = data.get("name", "")
        name = raw_name.strip().lower() if isinstance(raw_name, str) else ""
        if not _NAME.match(name):
            raise ConfigError(f"{source}: name = {shown(raw_name)} must be 1-40 lower-case letters, digits or _, "
                              "starting with a letter (e.g. name = \"politeness\")")
        description = _text(data.get("description"), f"{source}: description")
        criteria = _criteria(data.get("criteria", ()), source)
        anchors = _anchors(data.get("anchors"), source)
        needs = _needs(data.get("needs", ()), source)
        total = len(description) + sum(map(len, criteria)) + sum(map(len, anchors))
        if total > MAX_TEXT_CHARS:
            raise ConfigError(f"{source}: the rubric has {total:,} characters of text (description, criteria and "
                              f"anchors); keep it under {MAX_TEXT_CHARS:,}: it is sent with every judge call")
        return cls(name, description, criteria, anchors, needs)


def _criteria(raw: Any, source: str) -> tuple[str, ...]:
    criteria = (raw,) if isinstance(raw, str) else raw
    if not isinstance(criteria, (list, tuple)) or not criteria:
        raise ConfigError(f"{source}: criteria = {shown(raw)} must be a string or a list of strings, "
                          "e.g. criteria = [\"...\"]")
    if len(criteria) > MAX_CRITERIA:
        raise ConfigError(f"{source}: criteria has {len(criteria):,} entries; keep it to {MAX_CRITERIA} or fewer "
                          "(each one is read by the judge on every call)")
    return tuple(_text(c, f"{source}: criteria") for c in criteria)


def _anchors(raw: Any, source: str) -> tuple[str, str, str, str, str]:
    anchors = {str(i): a for i, a in enumerate(raw, 1)} if isinstance(raw, (list, tuple)) else raw
    if not isinstance(anchors, Mapping) or sorted(map(str, anchors)) != ["1", "2", "3", "4", "5"]:
        got = sorted(map(str, anchors))[:8] if isinstance(anchors, Mapping) else raw
        raise ConfigError(f"{source}: [anchors] must describe each score 1, 2, 3, 4 and 5 (got {shown(got)})")
    by = {str(k): v for k, v in anchors.items()}
    return tuple(_text(by[str(i)], f"{source}: anchor {i}") for i in range(1, 6))  # type: ignore[return-value]


def _needs(raw: Any, source: str) -> tuple[str, ...]:
    needs = (raw,) if isinstance(raw, str) else raw
    if not isinstance(needs, (list, tuple)) or not all(isinstance(n, str) for n in needs):
        raise ConfigError(f"{source}: needs = {shown(raw)} must be a list of {' or '.join(OPTIONAL_NEEDS)}, "
                          "e.g. needs = [\"reference\"]")
    bad = [n for n in needs if n not in OPTIONAL_NEEDS]
    if bad:
        raise ConfigError(f"{source}: needs {shown(bad)} unknown; a rubric may need {', '.join(OPTIONAL_NEEDS)}")
    return tuple(sorted(set(needs)))


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where} must be a non-empty string (got {shown(value)})")
    if len(value) > MAX_FIELD_CHARS:
        raise ConfigError(f"{where} has {len(value):,} characters; keep it under {MAX_FIELD_CHARS:,}")
    return " ".join(value.split())


def parse_rubric(text: str, source: str = "rubric.toml") -> Rubric:
    """A :class:`Rubric` from TOML text (module docstring); a ConfigError says what is wrong.

    >>> r = parse_rubric('name = "tone"\\ndescription = "Polite?"\\ncriteria = "no slang"\\n'
    ...                  'anchors = ["rude", "curt", "neutral", "polite", "warm"]')
    >>> r.metric, r.anchors[4], len(r.digest())
    ('rubric:tone', 'warm', 8)
    """
    if not isinstance(text, str):
        raise ConfigError(f"{source}: a rubric is TOML text, not {type(text).__name__}")
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_SOURCE_CHARS:
        raise ConfigError(f"{source} has {len(text):,} characters; a rubric file may have at most "
                          f"{MAX_SOURCE_CHARS:,} (it is sent with every judge call: keep it short)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML ({exc})") from exc
    except RecursionError:
        raise ConfigError(f"{source}: a value is nested too deeply for TOML's reader; a rubric's values are "
                          "strings or lists of strings") from None
    return Rubric.from_dict(data, source)


def decode_rubric(data: bytes, source: str = "rubric.toml") -> str:
    """The text of a rubric file: UTF-8 with or without a byte-order mark; another encoding is named.

    >>> decode_rubric(b"\\xef\\xbb\\xbfname = 1")
    'name = 1'
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(f"{source} is UTF-16 text; save it as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        byte = data[exc.start:exc.start + 1].hex()
        raise ConfigError(f"{source} is not UTF-8 text (byte 0x{byte} at position {exc.start:,}; perhaps "
                          "Latin-1 or Windows-1252); save it as UTF-8") from None


def read_rubric_text(path: str | Path) -> str:
    """The text of the rubric file ``path``: its size checked before it is read, then decoded
    (:func:`decode_rubric`)."""
    path = Path(path)
    size = path.stat().st_size
    if size > 4 * MAX_SOURCE_CHARS:  # a UTF-8 character is at most 4 bytes
        raise ConfigError(f"{path.name} is {size:,} bytes; a rubric file may have at most {MAX_SOURCE_CHARS:,} "
                          "characters (it is sent with every judge call: keep it short)")
    return decode_rubric(path.read_bytes(), path.name)

