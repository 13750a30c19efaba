"""The paper's query-generation prompt and its 20 scientific personas (Appendix G), verbatim."""

from __future__ import annotations

from typing import Literal

Complexity = Literal["low", "high"]

PERSONAS: tuple[str, ...] = (
    "Astrophysicist", "Marine Biologist", "AI Researcher", "Molecular Geneticist", "Quantum Physicist",
    "Environmental Chemist", "Neuroscientist", "Ecologist", "Bioinformatician", "Pharmacologist",
    "Geologist", "Biomedical Engineer", "Mathematical Modeler", "Virologist", "Behavioral Psychologist",
    "Data Scientist", "Theoretical Chemist", "Climate Scientist", "Structural Biologist", "Robotics Engineer",
)

QUERY_SYSTEM = "You are a helpful AI assistant."

QUERY_USER: dict[Complexity, str] = {
    "low": ("You are a {persona}. Generate a user query containing the following keywords: {keywords}. "
            "Do not introduce other scientific entities or topics. Only return the query."),
    "high": ("You are a {persona}. Generate a user query containing the following keywords: {keywords}. "
             "Do not introduce other scientific entities or topics. Make the query long and complex. "
             "Only return the query."),
}


def query_messages(persona: str, keywords: list[str], complexity: Complexity) -> list[dict[str, str]]:
    user = QUERY_USER[complexity].format(persona=persona, keywords=", ".join(keywords))
    return [{"role": "system", "content": QUERY_SYSTEM}, {"role": "user", "content": user}]
