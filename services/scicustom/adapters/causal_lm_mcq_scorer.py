"""An MCQ answerer on a local causal LM: the option with the highest answer log-likelihood wins.

`label` scoring: the query with its options, then "Answer:", continued by " A" ... " E"; the
log-probability of each label (one forward pass per item when every label is one token).
`text` scoring (cloze): the stem, then "Answer:", continued by each option's text; the mean
log-probability per token, so long options are not penalised for their length.

Sequences are right-padded, so padding never shifts a real token's position, and the LM head
runs only on the positions that predict answer tokens (the vocabulary projection dominates
the cost on CPU). Identical inputs within a batch run once.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scicustom.adapters.token_batches import right_padded
from scicustom.core.errors import PreconditionFailed
from scicustom.core.evaluation.benchmark_lines import MCQItem
from scicustom.core.evaluation.model_spec import Scoring
from scicustom.core.evaluation.prompt import scoring_prompt
from scicustom.core.evaluation.responses import ModelAnswer

# (input ids, position that predicts the first continuation token, continuation ids)
_Scored = tuple[tuple[int, ...], int, tuple[int, ...]]


class CausalLMMCQScorer:
    max_workers = 1  # one model in this process; torch already uses every core

    def __init__(self, name: str, identity: str, load: Callable[[], tuple[Any, Any]], *,
                 scoring: Scoring = "label", batch_size: int = 8, max_length: int = 1024) -> None:
        """`identity` names the weights (packaged name or path); `load` gives (tokenizer, model)
        and is called on first use, so a run that resumes with nothing left never loads it."""
        if max_length < 2:
            raise ValueError("max_length must be >= 2")
        self.name = name
        self.batch_size = batch_size
        self._identity = identity
        self._load = load
        self._scoring = scoring
        self._max_length = max_length
        self._loaded: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    def fingerprint(self) -> str:
        probe = MCQItem(id="", query="Q?\nA. x\nB. y", answer="A", stem="Q?", options={"A": "x", "B": "y"})
        config = {"kind": "causal-lm", "identity": self._identity, "scoring": self._scoring,
                  "max_length": self._max_length, "prompt": scoring_prompt(probe, self._scoring == "label")}
        return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]

    def _model(self) -> tuple[Any, Any]:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def answer_batch(self, items: Sequence[MCQItem]) -> list[ModelAnswer]:
        tokenizer, model = self._model()
        with_options = self._scoring == "label"
        pairs: list[list[_Scored]] = []
        for item in items:
            prompt = tokenizer(scoring_prompt(item, with_options), add_special_tokens=False)["input_ids"]
            per_option: list[_Scored] = []
            for label, text in item.options.items():
                encoded = tokenizer(f" {label if with_options else text}",
                                    add_special_tokens=False)["input_ids"] or [tokenizer.eos_token_id]
                continuation = tuple(encoded[: self._max_length - 1])
                kept = tuple(prompt[-(self._max_length - len(continuation) + 1):])
                # The last continuation token is predicted, never read: leave it out of the input.
                per_option.append((kept + continuation[:-1], len(kept) - 1, continuation))
            pairs.append(per_option)
        inputs = sorted({ids for per_option in pairs for ids, _, _ in per_option}, key=len)
        logprobs = self._score(model, tokenizer.pad_token_id, inputs, pairs)
        answers = []
        for item, per_option in zip(items, pairs, strict=True):
            scores = {}
            for label, (ids, first, continuation) in zip(item.options, per_option, strict=True):
                picked = logprobs[(ids, first, continuation)]
                scores[label] = sum(picked) / (len(picked) if self._scoring == "text" else 1)
            chosen = max(scores, key=lambda label: scores[label])  # ties: the first label
            processed = sum(len(ids) for ids in {ids for ids, _, _ in per_option})
            answers.append(ModelAnswer(text=chosen, chosen=chosen, rule=f"log-likelihood ({self._scoring})",
                                       prompt_tokens=processed, scores=scores))
        return answers

    def _score(self, model: Any, pad_id: int, inputs: list[tuple[int, ...]],
               pairs: list[list[_Scored]]) -> dict[_Scored, list[float]]:
        """Log-probabilities of each continuation token, keyed by (input, first position,
        continuation); each needed position goes through the LM head once."""
        import torch

        needed: dict[tuple[int, ...], set[tuple[int, tuple[int, ...]]]] = {}
        for per_option in pairs:
            for ids, first, continuation in per_option:
                needed.setdefault(ids, set()).add((first, continuation))
        ids_tensor, mask = right_padded(inputs, pad_id)
        head = model.get_output_embeddings()
        out: dict[_Scored, list[float]] = {}
        with torch.inference_mode():
            hidden = model.base_model(input_ids=ids_tensor, attention_mask=mask).last_hidden_state
            for row, ids in enumerate(inputs):
                wanted = needed[ids]
                # Position p predicts token p + 1.
                positions = sorted({first + k for first, cont in wanted for k in range(len(cont))})
                at = {position: i for i, position in enumerate(positions)}
                logprobs = torch.log_softmax(head(hidden[row, positions]).float(), dim=-1)
                for first, continuation in wanted:
                    out[(ids, first, continuation)] = [
                        float(logprobs[at[first + k], token]) for k, token in enumerate(continuation)]
        return out


def load_local_causal_lm(path: Path) -> tuple[Any, Any]:
    """A causal LM saved in Hugging Face format in a local folder; never downloads."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not (path / "config.json").exists():
        raise PreconditionFailed(f"{path} holds no Hugging Face model (no config.json)")
    tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    # from_pretrained returns the model in eval mode (no dropout).
    model = AutoModelForCausalLM.from_pretrained(str(path), local_files_only=True, dtype=torch.float32)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, model
