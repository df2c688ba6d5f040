"""Offline template questions in English: the question word moved to the front, a slot only where
it is sure (the wh-word matches the answer's type; no piece of a hyphenated or dotted token; no
code identifier, format acronym or keyword taken for a name), nothing from boilerplate, and the
document's title where the question would name nothing."""
import re

import pytest

from rageval.aligncheck.entities import parse
from rageval.testsets.boilerplate import boilerplate_reason
from rageval.testsets.template import _readable, document_titles, options, template_pool
from devtools.projects import DOCS

QUESTION_WORD = re.compile(r"^(?:What|Which|Who|Whom|When|Where|How many|How much|By whom|By which|Under which|"
                           r"In which|To which|For which|With which|From which|On which)\b")


def _options(sentence, title=None):
    return options(sentence, "en", parse([sentence])[sentence], title)


@pytest.mark.parametrize(
    "sentence, expected",
    [
        (
            "The first line opened in 1964 between Tokyo and Osaka.",
            ("date", "When did the first line open between Tokyo and Osaka?"),
        ),
        (
            "In 1964, the first line opened between Tokyo and Osaka.",
            ("date", "When did the first line open between Tokyo and Osaka?"),
        ),
        ("The base package contains 700 files.", ("number", "How many files does the base package contain?")),
        (
            "The server keeps 12 worker processes in memory.",
            ("number", "How many worker processes does the server keep in memory?"),
        ),
        (
            "The museum was founded by Marie Curie in a small house.",
            ("name", "By whom was the museum founded in a small house?"),
        ),
        ("Streamlit is released under the Apache License.", ("name", "Under which licence is Streamlit released?")),
        (
            "The zstd port in vcpkg is kept up to date by the Microsoft Corporation.",
            ("name", "By which organisation is the zstd port in vcpkg kept up to date?"),
        ),
        ("Mount Etna is an active stratovolcano on the east coast of Sicily.", ("definition", "What is Mount Etna?")),
        ("The word size is used for byte-swapping.", ("object", "What is the word size used for?")),
        ("In particular, Nettle doesn't do algorithm selection.", ("object", "What doesn't Nettle do?")),
    ],
)
def test_the_question_word_opens_the_question(sentence, expected):
    assert expected in _options(sentence)


@pytest.mark.parametrize("sentence", [
    "The file is in the UTF-8 encoding.",                                    # "UTF- how many"
    "You may not use any uids in the 60000-64999 range without first requesting an allocation.",
    "Supports HTTP 1.1 Keep-Alive, keeping the socket open.",               # "HTTP how many"
    "The compiler runs on a Core i7-9700K CPU at 4.9GHz in the lab.",
    "An application MUST NOT trust a file based simply on its MIME type.",  # MIME is no organisation
    "Each application provides only a single XML source file.",
    "The class WriteStream writes the buffer to the socket.",
    "Support for CGI scripts was added by Perl developers in the past.",
])
def test_no_number_or_name_question_from_a_code_a_format_or_a_split_token(sentence):
    for what, question in _options(sentence):
        assert what not in ("number", "name") or not re.search(r"organisation|who|how many", question, re.I), question
        assert QUESTION_WORD.match(question), question
        assert not re.search(r"\w-\s*(?:how|what|when|which)|(?:the|a|an)\s+(?:which|what|how many)\b", question,
                             re.I), question


@pytest.mark.parametrize("sentence", [
    "You should have received a copy of the GNU General Public License along with this program.",
    "Write to the Free Software Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301, USA.",
    "Copyright 2000-2023 Free Software Foundation, Inc. and its many contributors.",
    "This program is distributed WITHOUT ANY WARRANTY; without even the implied warranty of merchantability.",
    "Installation ............................................ 12",
    "See the [installation guide](https://example.org/install) for the details of each step.",
])
def test_boilerplate_and_markup_give_no_question(sentence):
    assert boilerplate_reason(sentence) is not None
    assert not _readable(sentence)


def test_a_question_that_names_nothing_gets_the_document_title():
    assert ("number", "How many files does the base package contain in Shared MIME-info Database?") in _options(
        "The base package contains 700 files.", "Shared MIME-info Database")
    assert ("definition", "What is Mount Etna?") in _options(
        "Mount Etna is an active stratovolcano on the east coast of Sicily.", "Volcanoes")  # it names its subject
    chunks = [
        {"id": "1", "doc_id": "d1", "doc_name": "spec.pdf", "ordinal": 0, "text": "Shared MIME-info Database\n\nText."},
        {
            "id": "2",
            "doc_id": "d2",
            "doc_name": "python3-httplib2-README.md",
            "ordinal": 0,
            "text": "Introduction\n============\n\nhttplib2 is a library.",
        },
        {"id": "3", "doc_id": "d3", "doc_name": "x.md", "ordinal": 0, "text": "defusedxml -- defusing XML bombs\n"},
    ]
    assert document_titles(chunks) == {"d1": "Shared MIME-info Database", "d2": "python3 httplib2", "d3": "defusedxml"}


def test_every_template_question_is_well_formed_and_counts_what_offered_nothing():
    chunks = [{"id": name, "text": text} for name, text in DOCS.items()]
    pool = template_pool(chunks, want=20, seed=0)
    assert pool.candidates and pool.sentences_read == len(pool.candidates) + pool.offered_nothing
    for c in pool.candidates:
        assert QUESTION_WORD.match(c.question) and c.question.endswith("?") and len(c.question.split()) <= 40, (
            c.question
        )
