"""A hand-written four-item benchmark and the recorded answers of two chat models."""

from __future__ import annotations

import json
from pathlib import Path

from scicustom.core.evaluation.benchmark_lines import MCQItem, parse_benchmark
from tests.support.recorded_llm_server import RecordedLLMServer

QUESTIONS = [
    ("q1", "Which organelle produces most of the ATP in a eukaryotic cell?",
     ["Mitochondrion", "Nucleus", "Ribosome", "Golgi apparatus"], "A"),
    ("q2", "Which base pairs with adenine in DNA?", ["Cytosine", "Thymine", "Guanine", "Uracil"], "B"),
    ("q3", "What is the SI unit of force?", ["Joule", "Pascal", "Newton", "Watt"], "C"),
    ("q4", "Which gas makes up most of Earth's atmosphere?",
     ["Oxygen", "Carbon dioxide", "Argon", "Nitrogen"], "D"),
]
# Substrings of each question the recorded servers key on.
KEYS = {"q1": "organelle", "q2": "adenine", "q3": "SI unit", "q4": "atmosphere"}
# judge-a: 3 right, 1 wrong (q4), none unparsed.
REPLIES_A = {"q1": "The answer is (A).", "q2": "**B**", "q3": "Answer: c", "q4": "C."}
# judge-b: q1 by echoing the option, q2 unrecorded (default "I cannot answer."), q3 a label that is
# not an option, q4 right: 2 right, 2 unparsed.
REPLIES_B = {"q1": "Mitochondrion", "q3": "The answer is E", "q4": "D) Nitrogen"}


def benchmark_lines() -> list[str]:
    lines = []
    for item_id, stem, options, answer in QUESTIONS:
        query = stem + "".join(f"\n{label}. {text}" for label, text in zip("ABCD", options, strict=True))
        lines.append(json.dumps({"id": item_id, "query": query, "answer": answer,
                                 "provenance": {"source_item_id": item_id}}))
    return lines


def write_benchmark(path: Path) -> Path:
    path.write_text("\n".join(benchmark_lines()) + "\n")
    return path


def items() -> list[MCQItem]:
    return parse_benchmark(benchmark_lines())


def record(server: RecordedLLMServer, replies: dict[str, str]) -> None:
    for item_id, reply in replies.items():
        server.rules.append((KEYS[item_id], reply))


def asked(server: RecordedLLMServer) -> dict[str, int]:
    """How many times the server was asked each question."""
    counts = dict.fromkeys(KEYS, 0)
    for call in server.calls:
        user = call["messages"][-1]["content"]
        for item_id, key in KEYS.items():
            counts[item_id] += key in user
    return counts
