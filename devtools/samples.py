"""Small inputs shared by tests and benchmarks: texts for the embedder, samples for the metrics,
rows for the CLI (plain data and builders; no test logic)."""
from __future__ import annotations

from rageval.types import Sample

# Texts of very different lengths for the MiniLM forward pass, the empty one and a truncated one included.
EMBED_TEXTS = [
    "",
    "x",
    "Revenue grew 12% in the third quarter, driven by sales in Italy.",
    "a much longer sentence that has quite a few more word pieces in it than the others do, "
    "so that it needs a wider attention block than the short ones beside it",
    "Milan",
    "The contract renews every year unless either party cancels it in writing ninety days before.",
    " ".join(["churn"] * 300),  # truncated to 256 word-pieces
]


PARALLEL_CONTEXTS = (
    "Mount Etna is 3,357 metres high. It is the highest active volcano in Europe. It lies in Sicily.",
    "Green tea brews best at 70 to 80 degrees. Boiling water makes it bitter.",
    "| Product | Price |\n| --- | --- |\n| Atlas | 12 EUR |\n| Borealis | 15 EUR |",
    "The museum opened in 1889 and has 4 floors. Entry is free on Sundays.",
)


def parallel_samples(n: int = 10) -> list[Sample]:
    """n samples over four contexts (every metric's inputs present), for worker-vs-one-process checks."""
    out = []
    for i in range(n):
        ctx = (
            PARALLEL_CONTEXTS[i % 4],
            PARALLEL_CONTEXTS[(i + 1) % 4],
            f"Passage {i} says nothing about this question.",
        )
        answers = ["Etna is 3,357 metres high.", "Green tea brews at 95 degrees.", "Atlas costs 12 EUR.",
                   "I am not sure, maybe the museum opened in 1890."]
        out.append(Sample(id=f"s{i}", question=f"What is true of item {i % 4}?", answer=answers[i % 4],
                          contexts=ctx, references=(answers[(i + i // 4) % 4],),
                          retrieved_ids=("a", "b", "c"), relevant_ids={"a": 1}, context_ids=("a", "b", "c")))
    return out


# Rows for the CLI's score command (one without a reference, one without contexts).
SHARD_ROWS = [
    {"id": f"r{i:02d}", "question": q, "answer": a, "reference": ref, "contexts": ctx}
    for i, (q, a, ref, ctx) in enumerate(
        [
            ("Capital of France?", "Paris is the capital.", "Paris", ["Paris is the capital of France."]),
            ("Tallest mountain?", "Mount Everest, 8,849 m.", "Everest", ["Everest is 8,849 metres high."]),
            (
                "Who wrote Hamlet?",
                "Shakespeare wrote it around 1600.",
                "William Shakespeare",
                ["Hamlet is by Shakespeare."],
            ),
            ("Boiling point of water?", "100 degrees Celsius at sea level.", "100 °C", ["Water boils at 100 °C."]),
            ("Largest ocean?", "The Atlantic.", "The Pacific Ocean", ["The Pacific is the largest ocean."]),
            ("Speed of light?", "About 300,000 km per second.", "299,792 km/s", ["Light travels at 299,792 km/s."]),
            ("No reference here?", "An answer without gold.", "", ["Some context."]),
            ("Capital of Italy?", "Rome, la città eterna.", "Rome", ["Roma è la capitale d'Italia."]),
            (
                "First man on the moon?",
                "Neil Armstrong in 1969.",
                "Neil Armstrong",
                ["Armstrong walked on the Moon in 1969."],
            ),
            ("Chemical symbol of gold?", "Au.", "Au", []),
        ]
    )
]
SHARD_METRICS = "token_f1,bleu,rougeL,exact_match,faithfulness,bertscore_f1,answer_similarity"
