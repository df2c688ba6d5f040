"""Generation: passage units, the extractive generator's choice and abstention, the prompt."""
import zlib

import numpy as np
import pytest

from rageval.generate.generators import ABSTENTION, ExtractiveGenerator, build_prompt, passage_units


class BagOfWordsEmbedder:
    """A transparent stand-in: hashed bag of lower-cased words, L2-normalised."""

    name = "bow-test"
    dim = 64

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace("?", " ").replace(".", " ").split():
                out[i, zlib.crc32(word.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


def test_passage_units_spell_out_table_rows_and_join_pdf_lines():
    text = ("# Rates\n\nCity | Lodging cap | Meals\nOslo | 190 EUR | 70 EUR\n\n"
            "Expense claims are submitted\nwithin 30 days of returning. Receipts are needed above 25 EUR.\n\n"
            "- Up to **5 unused days** may be carried over.")
    units = passage_units(text)
    assert "City: Oslo; Lodging cap: 190 EUR; Meals: 70 EUR." in units
    assert "Expense claims are submitted within 30 days of returning." in units
    assert "Up to 5 unused days may be carried over." in units
    assert "Rates" not in units and not any("City | Lodging" in u for u in units)


def test_extractive_answers_with_best_sentence_and_abstains_on_weak_evidence():
    gen = ExtractiveGenerator(BagOfWordsEmbedder())
    contexts = [["The Tokaido Shinkansen opened in 1964 between Tokyo and Osaka. Trains reach 320 km/h."]]
    out = gen.generate_batch(["When did the Tokaido Shinkansen open?"], contexts)
    assert out[0].text == "The Tokaido Shinkansen opened in 1964 between Tokyo and Osaka."
    assert out[0].details["abstained"] is False
    out = gen.generate_batch(["What colour is the Eiffel Tower painted?"], contexts)
    assert out[0].text == ABSTENTION and out[0].details["abstained"] is True
    out = gen.generate_batch(["Anything?"], [[]])
    assert out[0].text == ABSTENTION


def test_signature_changes_with_settings():
    emb = BagOfWordsEmbedder()
    assert ExtractiveGenerator(emb).signature() != ExtractiveGenerator(emb, min_score=0.3).signature()


@pytest.mark.parametrize("history", [(), (("user", "Hi"), ("assistant", "Hello"))])
def test_prompt_has_the_papers_sections_in_order(history):
    prompt = build_prompt("How tall is it?", ["ctx one", "ctx two"], history)
    positions = [prompt.index(s) for s in ("Instructions:", "Context:", "[1] ctx one", "[2] ctx two",
                                           "Chat history:", "Question: How tall is it?")]
    assert positions == sorted(positions)
    assert "don't know" in prompt
    if history:
        assert "assistant: Hello" in prompt
