"""The TaggerTrainer port on PyTorch: the ensemble's networks trained side by side
(torch_member_training.py, each by torch_tagger_loop.py) and exported as one ONNX graph. Texts are
tokenised with the packaged WordPiece tokenizer and the networks start from the given static token
vectors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch

from scicustom.adapters.torch_member_training import MemberData, train_members
from scicustom.adapters.torch_onnx_export import export_onnx
from scicustom.adapters.torch_tagger_network import StaticTokenTagger, idf_log_weights
from scicustom.adapters.wordpiece_tokenizer import MAX_TOKENS, WordPieceTokenizer, pad_ids
from scicustom.core.progress import Progress, no_progress
from scicustom.core.tagger_training.train_config import TrainConfig
from scicustom.ports import TrainedNetworks


def ensemble_scores(members: Sequence[StaticTokenTagger], token_rows: Sequence[Sequence[int]]) -> np.ndarray:
    """The members' mean probabilities, as the exported graph computes them."""
    return np.asarray(np.mean([predict_scores(m, token_rows) for m in members], axis=0), dtype=np.float32)


def predict_scores(model: StaticTokenTagger, token_rows: Sequence[Sequence[int]], batch_size: int = 1024) -> np.ndarray:
    model.eval()
    lengths = np.array([len(r) for r in token_rows])
    order = np.argsort(lengths, kind="stable")
    out = np.zeros((len(token_rows), model.head[-1].out_features), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            ids, mask = pad_ids([token_rows[i] for i in rows])
            out[rows] = torch.sigmoid(model(torch.from_numpy(ids), torch.from_numpy(mask))).numpy()
    return out


def distinct_ids(tokenizer: WordPieceTokenizer, texts: Sequence[str]) -> list[list[int]]:
    """Each distinct text tokenised once, on every core (the hand-labelled items repeat 10 times among
    the ~250k training texts: ~1 of 4 texts is a repeat). Rows of a repeated text are shared lists."""
    distinct = list(dict.fromkeys(texts))
    rows = dict(zip(distinct, tokenizer.ids(distinct, parallel=True), strict=True))
    return [rows[t] for t in texts]


class TorchTaggerTrainer:
    """The tokenizer file and the token vectors are looked up when training starts, not before:
    the model package may be missing and distilling the vectors takes minutes."""

    max_tokens = MAX_TOKENS

    def __init__(self, tokenizer_json: Callable[[], Path], token_vectors: Callable[[], np.ndarray]) -> None:
        self._tokenizer_json = tokenizer_json
        self._token_vectors = token_vectors

    def tokenizer_json(self) -> bytes:
        return self._tokenizer_json().read_bytes()

    def train(self, texts: Sequence[str], label_columns: Sequence[Sequence[int]], validation_texts: Sequence[str],
              n_units: int, config: TrainConfig, progress: Progress = no_progress) -> TrainedNetworks:
        tokenizer = WordPieceTokenizer(self._tokenizer_json(), MAX_TOKENS)
        train_rows = distinct_ids(tokenizer, texts)
        val_rows = distinct_ids(tokenizer, validation_texts)
        data = MemberData.of(self._token_vectors(), idf_log_weights(train_rows, tokenizer.vocab_size), train_rows,
                             label_columns, np.ones(len(texts), dtype=np.float32), n_units)
        members, histories = train_members(data, config.members(), progress)
        return TrainedNetworks(members, histories, ensemble_scores(members, val_rows))

    def export_onnx(self, trained: TrainedNetworks) -> bytes:
        return export_onnx(list(trained.members))
