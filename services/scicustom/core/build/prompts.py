"""Prompts of the SciCustom paper (Appendix G), verbatim where the paper gives them."""

from __future__ import annotations

VOTING_SYSTEM = ("You are an expert in {domain}. Your task is to map a benchmark description to the most "
                 "relevant technical tags")

VOTING_USER = """Task:

Given a {domain} benchmark description, identify and rank the most relevant tags from a candidate list.

Benchmark Description: {description}

Candidate Tags (sorted by frequency, lowest frequency first; lower frequency usually indicates higher specificity): {tag_list}.

Ranking Principles: Rank tags from highest to lowest relevance to the benchmark, following these rules:

Relevance First:

A tag is relevant if it directly reflects the core concepts, tasks, data modalities, or evaluation focus of the benchmark. Irrelevant or weakly related tags should not be selected.

Specificity as a Tie-breaker:

If multiple tags are similarly relevant, rank the more specific and narrowly scoped tag higher. Prefer concrete technical terms (e.g., "Histone Acetylation Prediction") over broader categories (e.g., "Epigenetics").

Avoid Overly Generic Tags:

High-level or generic tags (e.g., "biological process", "chemical entity") should only be selected if no more specific alternative applies.

Frequency Awareness:

When relevance and specificity are comparable, prefer lower-frequency tags, as they tend to be more precise.

Output Requirements:

Return a single list of tags, sorted from most to least relevant. For efficiency, return only the top 100 tags (or fewer if fewer are relevant). Do not include explanations, scores, or extra text—output the ranked list only."""  # noqa: E501

# The paper gives no relevance prompt for Algorithm 2; this one asks the yes/no question it describes.
RELEVANCE_SYSTEM = "You are an expert in {domain} who curates evaluation benchmarks."

RELEVANCE_USER = """Benchmark requirement: {description}

Candidate item:
Question: {question}
Answer: {answer}

Is this item relevant to the benchmark requirement, i.e. does it test the knowledge or reasoning the requirement asks for? Answer with exactly one word: yes or no."""  # noqa: E501

MCQ_SYSTEM = ("You are an expert in {domain} and tasked with curating a rigorous benchmark to evaluate the "
              "capabilities of Large Language Models. Please return the processed entry in a JSON format.")

MCQ_USER = """Your task is to convert the following raw problem content into a standardized single-choice question suitable for LLM evaluation.

Raw problem: {input_content}

Conversion Guidelines:

1. Format Adaptation:
 - If the input is already a multiple-choice question: Preserve the original stem and options exactly. Ensure the formatting aligns with the output requirements.
 - If the input is not a multiple-choice question: Convert it into a single-choice question by generating 3–4 incorrect options (distractors).
2. Distractor Engineering:
 - Avoid trivial errors, logical fallacies that are easily filtered, or clearly unrelated concepts.
3. Fidelity & Difficulty:
 - Strict adherence to the factual truth and reasoning logic of the original content is required.
 - Do not simplify the problem complexity. The resulting MCQ must maintain the same discriminative power as the original input.
4. Exclusivity: Ensure there is exactly one indisputably correct option.

Question format:

1. The final output must contain 4–5 options (A, B, C, D, [E]).
2. Options should be concise and mutually exclusive.

Output format (STRICT):

Return only a single JSON object.
The object must have the following structure:

{{
  "query": "<question stem followed by options labeled A, B, C, D (and E if applicable), separated by newlines>",
  "answer": "<correct option label, e.g., 'A'>"
}}"""  # noqa: E501
