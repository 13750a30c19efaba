"""Scientific Novelty Score: TF-IDF distinctiveness of each hypothesis against the rest of the set.

TF-IDF as the reference builds it: tokens `\\b[a-z]{3,}\\b` of the lower-cased text, the 2,000 terms of
highest document frequency (ties in `Counter.most_common` order, which is the first-insertion order of a
per-document `set()`, i.e. Python's string-hash order; `stable_vocabulary` breaks ties alphabetically),
idf = ln((N + 1) / (df + 1)) + 1, tf = count / (tokens + 1e-9), rows divided by (L2 norm + 1e-9).
Speed: X @ X.T is a BLAS product over the columns of terms in more than n / 24 rows plus, for each
rarer term, the products of the rows holding it (`cosine_similarities`); the norms are summed over each
row's non-zero cells. The reference sums the same products over the dense matrix in BLAS order, so a
similarity can differ from the reference's in its last bit or two (about 1e-16); the scores, rounded to
4 decimals, are the reference's (benchmarks/bench_m2m.py checks all of them against the reference
script; a difference would need a score within 1e-16 of a rounding boundary). The top-k of each row is
taken by k row-wise argmax passes, which pick the same k values in the same order as the reference's sort.

Similarity has -1 on the diagonal (self excluded) and negative values clipped to 0 before the top-k
mean; with fewer than k other rows the mean runs over the whole row. Within-system groups use the exact
`battery_system` string; a singleton group scores 1.0; without a `battery_system` column all rows form
one group; without an `intervention_or_solution` column intervention novelty is 0.5.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from scicustom.core.m2m.text_primitives import TermMatcher, numpy_round, word_runs
from scicustom.core.m2m.vocabulary import M2MVocabulary

COLUMNS = ("sns_corpus_novelty", "sns_within_system_novelty", "sns_intervention_novelty",
           "sns_cross_domain_bonus", "sns_aggregate")
TF_TOTAL_EPS = 1e-9
# A term in more than n / 24 rows goes into the BLAS product (2n² flops a column, against f² scattered
# products for a term in f rows; 8/16/24/32 gave 0.46/0.46/0.43/0.42 s of sns on the 2,645 rows).
DENSE_TERM_FRACTION = 24
L2_NORM_EPS = 1e-9
LETTER_RUN_PATTERN = r"\b[a-z]{3,}\b"


@dataclass(frozen=True)
class TfidfCells:
    """The non-zero cells of the L2-normalised TF-IDF matrix (n rows x terms columns)."""

    n: int
    terms: int
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray

    def dense(self) -> np.ndarray:
        matrix = np.zeros((self.n, self.terms))
        matrix[self.rows, self.cols] = self.values
        return matrix

    def subset(self, members: Sequence[int]) -> TfidfCells:
        position = np.full(self.n, -1)
        position[np.asarray(members)] = np.arange(len(members))
        kept = position[self.rows] >= 0
        return TfidfCells(len(members), self.terms, position[self.rows[kept]], self.cols[kept], self.values[kept])


def tfidf_tokens(pattern: re.Pattern[str], text: str) -> list[str]:
    """`pattern.findall(text.lower())`. A match of the reference's `\\b[a-z]{3,}\\b` starts and ends at
    word boundaries with word characters between, so it is a whole word run: those of 3+ ASCII letters
    (no upper case is left), found faster from the word runs."""
    lowered = text.lower()
    if pattern.pattern != LETTER_RUN_PATTERN or pattern.flags != re.UNICODE:
        return pattern.findall(lowered)
    return [w for w in word_runs(lowered) if len(w) > 2 and w.isascii() and w.isalpha()]


def tfidf_cells(texts: Sequence[str], vocabulary: M2MVocabulary, stable: bool) -> TfidfCells:
    tokenized = [tfidf_tokens(vocabulary.tfidf_token, t) for t in texts]
    document_frequency: Counter[str] = Counter()
    for tokens in tokenized:
        document_frequency.update(set(tokens))
    limit = vocabulary.tfidf_max_vocab
    if stable:
        ranked = sorted(document_frequency.items(), key=lambda item: (-item[1], item[0]))[:limit]
    else:
        ranked = document_frequency.most_common(limit)
    terms = [term for term, _ in ranked]
    index = {term: j for j, term in enumerate(terms)}
    n = len(texts)
    idf = np.array([math.log((n + 1) / (document_frequency[t] + 1)) + 1.0 for t in terms], dtype=np.float64)
    # Term counts per document, vectorised: (document, term) keys counted by np.unique.
    lengths = np.array([len(tokens) for tokens in tokenized], dtype=np.int64)
    term_ids = np.fromiter(map(index.get, chain.from_iterable(tokenized), repeat(-1)), dtype=np.int64,
                           count=int(lengths.sum()))
    documents = np.repeat(np.arange(n, dtype=np.int64), lengths)
    kept = term_ids >= 0
    width = max(len(terms), 1)
    keys, counts = _counted(documents[kept] * width + term_ids[kept])
    rows, cols = keys // width, keys % width
    totals = lengths.astype(np.float64) + TF_TOTAL_EPS  # the reference's sum(tf.values()) + 1e-9
    # (count / total) * idf, in that order, as the reference computes each cell.
    values = (counts.astype(np.float64) / totals[rows]) * idf[cols]
    norms = np.sqrt(np.bincount(rows, weights=values * values, minlength=n)) + L2_NORM_EPS
    return TfidfCells(n, len(terms), rows, cols, values / norms[rows])


def _counted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(values, return_counts=True)`, without the numpy.ma import np.unique costs (~50 ms)."""
    ordered = np.sort(values)
    if not len(ordered):
        return ordered, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    return ordered[starts], np.diff(np.append(starts, len(ordered)))


def tfidf_matrix(texts: Sequence[str], vocabulary: M2MVocabulary, stable: bool) -> np.ndarray:
    return tfidf_cells(texts, vocabulary, stable).dense()


def cosine_similarities(cells: TfidfCells) -> np.ndarray:
    """X @ X.T of the normalised matrix X: a BLAS product over the frequent terms' columns plus, for
    each rare term, the products of the few rows that hold it (a dense product over all 2,000 columns
    spent 28 GFLOP on zeros)."""
    n = cells.n
    frequency = np.bincount(cells.cols, minlength=cells.terms)
    frequent = frequency > max(n // DENSE_TERM_FRACTION, 1)
    column = np.cumsum(frequent) - 1
    in_dense = frequent[cells.cols]
    dense = np.zeros((n, int(frequent.sum())))
    dense[cells.rows[in_dense], column[cells.cols[in_dense]]] = cells.values[in_dense]
    similarity: np.ndarray = dense @ dense.T
    rows, cols, values = cells.rows[~in_dense], cells.cols[~in_dense], cells.values[~in_dense]
    if len(rows):
        order = np.argsort(cols, kind="stable")
        rows, cols, values = rows[order], cols[order], values[order]
        group_size = frequency[cols]  # cells that share each cell's term
        group_start = np.searchsorted(cols, cols, side="left")
        left = np.repeat(np.arange(len(rows)), group_size)
        offset = np.arange(len(left)) - np.repeat(np.cumsum(group_size) - group_size, group_size)
        right = group_start[left] + offset
        similarity += np.bincount(rows[left] * n + rows[right], weights=values[left] * values[right],
                                  minlength=n * n).reshape(n, n)
    return similarity


def neighbour_novelty(cells: TfidfCells, k: int) -> np.ndarray:
    """1 - mean of the k largest similarities to other rows (clipped at 0)."""
    similarity = cosine_similarities(cells)
    np.fill_diagonal(similarity, -1)
    n = similarity.shape[0]
    top = largest_ascending(similarity, k) if k < n else np.sort(similarity, axis=1)
    novelty: np.ndarray = 1.0 - np.mean(np.maximum(top, 0), axis=1)
    return novelty


def largest_ascending(values: np.ndarray, k: int) -> np.ndarray:
    """The k largest values of each row in ascending order: `np.sort(values, axis=1)[:, -k:]` without
    the sort (k row-wise argmax passes). Overwrites the picked entries of `values`."""
    rows = np.arange(values.shape[0])
    picked = np.empty((values.shape[0], k))
    for position in range(k - 1, -1, -1):
        columns = values.argmax(axis=1)
        picked[:, position] = values[rows, columns]
        values[rows, columns] = -np.inf
    return picked


def score_sns(hypotheses: Sequence[str], systems: Sequence[str] | None, interventions: Sequence[str] | None,
              vocabulary: M2MVocabulary, *, stable_vocabulary: bool = False,
              word_bounded_terms: bool = False) -> dict[str, np.ndarray]:
    """numpy-rounded sns columns for one set of rows (the whole input, or one --group-by group)."""
    # One BLAS thread: the frequent-terms products are small (~2 GFLOP for 2,645 rows), and waking and
    # spinning threads cost more than they gave, most on a shared machine. Imported here (16 ms): the
    # CLI scores sns after it has forked, so the import no longer delays the start of both processes.
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _sns(hypotheses, systems, interventions, vocabulary, stable_vocabulary, word_bounded_terms)


def _sns(hypotheses: Sequence[str], systems: Sequence[str] | None, interventions: Sequence[str] | None,
         vocabulary: M2MVocabulary, stable_vocabulary: bool, word_bounded_terms: bool) -> dict[str, np.ndarray]:
    n = len(hypotheses)
    cells = tfidf_cells(hypotheses, vocabulary, stable_vocabulary)
    corpus = neighbour_novelty(cells, vocabulary.top_k_corpus)
    groups: dict[str, list[int]] = {}
    for i, system in enumerate(systems if systems is not None else ["unknown"] * n):
        groups.setdefault(system, []).append(i)
    within = np.ones(n)
    for members in groups.values():
        if len(members) > 1:
            within[members] = neighbour_novelty(cells.subset(members), vocabulary.top_k_within_system)
    if interventions is not None:
        intervention = neighbour_novelty(tfidf_cells(interventions, vocabulary, stable_vocabulary),
                                         vocabulary.top_k_intervention)
    else:
        intervention = np.ones(n) * vocabulary.sns["no_intervention_column_default"]
    cross_terms = TermMatcher(vocabulary.cross_domain, word_bounded_terms)
    divisor = vocabulary.sns["cross_domain_hits_divisor"]
    cross = np.array([min(1.0, cross_terms.count(h.lower()) / divisor) for h in hypotheses], dtype=np.float64)
    w = vocabulary.weights["sns"]
    aggregate = (w["corpus_novelty"] * corpus + w["within_system_novelty"] * within
                 + w["intervention_novelty"] * intervention + w["cross_domain_bonus"] * cross)
    decimals = vocabulary.decimals
    return {name: numpy_round(values, decimals)
            for name, values in zip(COLUMNS, (corpus, within, intervention, cross, aggregate), strict=True)}
