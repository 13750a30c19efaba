"""Static token vectors distilled from MiniLM: the starting point of the tagger's encoder.

Every WordPiece token is run through all-MiniLM-L6-v2 on its own ("[CLS] token [SEP]", mean-pooled,
as a one-token sentence), giving a 30k x 384 table whose rows keep MiniLM's semantics. The tagger
then averages these vectors over a text (no attention), which is what makes it fast on CPU; the
table is fine-tuned with the head. Computed once (minutes on 2 cores) and cached.
"""

from __future__ import annotations

import io
import logging
from pathlib import Path

import numpy as np

from scicustom.adapters.packaged_models import MINILM_NAME, load_minilm
from scicustom.core.atomic_files import write_bytes_atomic

log = logging.getLogger(__name__)
CACHE_NAME = f"{MINILM_NAME}-token-vectors.npy"


def distil_token_vectors(cache_dir: Path, batch: int = 1024) -> np.ndarray:
    path = cache_dir / CACHE_NAME
    if path.exists():
        return np.load(path)
    import torch

    model = load_minilm()
    transformer = model[0].auto_model
    tokenizer = model.tokenizer
    vocab = tokenizer.get_vocab()
    size = max(vocab.values()) + 1
    cls_id, sep_id = tokenizer.cls_token_id, tokenizer.sep_token_id
    out = np.zeros((size, transformer.config.hidden_size), dtype=np.float32)
    log.info("distilling %d token vectors from %s", size, MINILM_NAME)
    with torch.inference_mode():
        for start in range(0, size, batch):
            ids = torch.arange(start, min(start + batch, size))
            seq = torch.stack([torch.full_like(ids, cls_id), ids, torch.full_like(ids, sep_id)], dim=1)
            hidden = transformer(input_ids=seq, attention_mask=torch.ones_like(seq)).last_hidden_state
            pooled = torch.nn.functional.normalize(hidden.mean(dim=1), dim=-1)
            out[start : start + len(ids)] = pooled.numpy()
    buffer = io.BytesIO()
    np.save(buffer, out)
    write_bytes_atomic(path, buffer.getvalue())
    return out
