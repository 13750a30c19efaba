"""A local OpenAI-compatible judge that answers every LLM call of a `--llm-judges` build (unit voting,
item relevance, MCQ writing) deterministically, after a fixed latency per call.

It is the recorded-reply server of the tests (tests/support/recorded_llm_server.py, a threaded HTTP
server: concurrent calls overlap) with a reply function that reads the prompt of core/build/prompts.py
and sleeps `latency_s` first, as a remote provider would take that long to answer.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable

from tests.support.recorded_llm_server import RecordedLLMServer

Messages = list[dict[str, str]]

_TAGS = re.compile(r"Candidate Tags \([^)]*\): (.*)\.\s*$", re.MULTILINE)
_DESCRIPTION = re.compile(r"^(?:Benchmark Description|Benchmark requirement): (.*)$", re.MULTILINE)
_DOMAIN = re.compile(r"You are an expert in (.*?)[.\s]")
_QUESTION = re.compile(r"Question: (.*)$", re.MULTILINE)
_ANSWER = re.compile(r"^Answer: (.*)$", re.MULTILINE)


def _words(text: str, shortest: int = 4) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.casefold()) if len(w) >= shortest}


def _first(pattern: re.Pattern[str], text: str) -> str:
    match = pattern.search(text)
    return match.group(1).strip() if match else ""


def voting_reply(system: str, user: str) -> str:
    """The candidate tags, those sharing a word with the domain or description first, one per line."""
    topic = _words(_first(_DOMAIN, system) + " " + _first(_DESCRIPTION, user))
    tags = [t.strip() for t in _first(_TAGS, user).split(",") if t.strip()]
    ranked = sorted(tags, key=lambda tag: -len(_words(tag) & topic))  # stable: ties keep the listed order
    return "\n".join(f"{rank}. {tag}" for rank, tag in enumerate(ranked, 1))


def relevance_reply(user: str) -> str:
    """Yes when the item's question shares a word of five letters or more with the requirement."""
    shared = _words(_first(_DESCRIPTION, user), 5) & _words(_first(_QUESTION, user), 5)
    return "yes" if shared else "no"


def mcq_reply(user: str) -> str:
    """The paper's JSON object: the question with its answer and three distractors, A-D."""
    question, answer = _first(_QUESTION, user), _first(_ANSWER, user)
    slot = int(hashlib.sha256(question.encode()).hexdigest(), 16) % 4
    options = [f"{answer} (not quite, variant {k})" for k in range(1, 4)]
    options.insert(slot, answer)
    query = "\n".join([question, *(f"{label}. {text}" for label, text in zip("ABCD", options, strict=True))])
    return json.dumps({"query": query, "answer": "ABCD"[slot]})


def judge_reply(messages: Messages) -> str:
    system = next((m.get("content", "") for m in messages if m.get("role") == "system"), "")
    user = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
    if "Candidate Tags" in user:
        return voting_reply(system, user)
    if "Is this item relevant" in user:
        return relevance_reply(user)
    if "Raw problem:" in user:
        return mcq_reply(user)
    return "I cannot answer."


def slow_reply(latency_s: float) -> Callable[[Messages], str]:
    def reply(messages: Messages) -> str:
        time.sleep(latency_s)  # in the request's own server thread: concurrent calls overlap
        return judge_reply(messages)

    return reply


def slow_llm_judge(latency_s: float) -> RecordedLLMServer:
    """The server (a context manager; `api_base` once entered, `calls` the requests it answered)."""
    return RecordedLLMServer(default=slow_reply(latency_s))
