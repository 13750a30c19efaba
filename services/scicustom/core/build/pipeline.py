"""The online phase of SciCustom: vote -> candidates -> cutoff -> proxy subset -> MCQs,
plus the paper's baselines and ablations as methods of the same pipeline.

Everything outside the algorithm comes in through `BuildWorld` (ports and plain data), so the
embedded CLI, gRPC services and Kafka workers all run exactly this code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from scicustom.core.build.candidates import Candidate, order_candidates
from scicustom.core.build.cutoff import CutoffResult, Probe, binary_search_cutoff, greedy_scan
from scicustom.core.build.mcq import MCQ, to_mcq
from scicustom.core.build.proxy_subset import ProxyResult, select_proxy_subset
from scicustom.core.build.quality_gate import quality_gate
from scicustom.core.build.stage_records import CandidateList, CutoffStage, Generated, Selection, VotedUnits
from scicustom.core.build.validity import estimate_validity, judge_with_reason
from scicustom.core.build.vote import VoteResult, aggregate_votes, prefer_specific
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.errors import InvalidInput
from scicustom.core.requirement import Requirement
from scicustom.core.units import UnitCatalog
from scicustom.ports import MCQWriter, RelevanceJudge, UnitIndex, UnitRanker

METHODS = ("scicustom", "embedding-knn", "embedding-filtering", "greedy-topk", "no-cutoff", "no-selection")
EMBEDDING_POOL = 5000  # embedding-filtering: the similarity-ordered list the cutoff searches
MIN_JURY = 3
DEFAULT_MIN_ITEMS = 10
THIN_SUGGESTION = ("ingest papers on these topics (`scicustom papers submit FILES` or `papers import`), "
                   "or a corpus that covers them, then rebuild; nothing generic was added to reach k2")
VoteFn = Callable[[int, str], dict[str, bool]]  # (position, item id) -> each judge's verdict


@dataclass
class BuildParams:
    method: str = "scicustom"
    k1: int = 10
    k2: int = 100
    proxy_samples: int = 100
    seed: int = 0
    min_items: int = DEFAULT_MIN_ITEMS  # below this many MCQs a build is "thin" (its own exit code)

    def validate(self) -> None:
        if self.method not in METHODS:
            raise InvalidInput("method", f"{self.method!r} is not one of {', '.join(METHODS)}")
        for name in ("k1", "k2", "proxy_samples", "min_items"):
            if getattr(self, name) < 1:
                raise InvalidInput(name, "must be >= 1")
        if self.seed < 0:  # numpy's generators take none; a stage would fail on it long after the request
            raise InvalidInput("seed", f"must be >= 0, got {self.seed}")


@dataclass
class BuildWorld:
    catalog: UnitCatalog
    items: Mapping[str, CorpusItem]
    index: UnitIndex
    vector: Callable[[str], np.ndarray]                 # stored embedding of an item id
    requirement_vector: Callable[[Requirement], np.ndarray]
    all_item_similarity: Callable[[np.ndarray], tuple[list[str], np.ndarray]]  # ids, cosine to a vector
    unit_rankers: Sequence[UnitRanker]
    relevance_jury: Callable[[Requirement, VoteResult | None], Sequence[RelevanceJudge]]
    intrinsic: Callable[[Sequence[CorpusItem]], Mapping[str, tuple[float, float]]]  # id -> (quality, hardness)
    neighbour_answers: Callable[[CorpusItem], list[str]]
    mcq_writer: MCQWriter | None = None
    calibration: Mapping[str, Any] = field(default_factory=dict)  # the jury's measured precision (validity)
    clock: Callable[[], float] = field(default=lambda: 0.0)
    progress: Callable[[str, int, int], None] = field(default=lambda stage, done, total: None)


@dataclass
class BuildResult:
    voting: dict[str, Any]
    candidates: list[dict[str, Any]]
    cutoff: dict[str, Any]
    proxy: list[dict[str, Any]]
    benchmark: list[MCQ]
    coverage: dict[str, Any]
    warnings: list[str]
    timings: dict[str, float]
    judges: dict[str, list[str]]
    status: dict[str, Any] = field(default_factory=dict)      # "ok" or "thin", the thin units, a suggestion
    validity: dict[str, Any] = field(default_factory=dict)    # estimated on-topic share with its CI
    quality: dict[str, Any] = field(default_factory=dict)     # MCQ quality gate counts per reason

    @property
    def thin(self) -> bool:
        return self.status.get("status") == "thin"


def _majority(verdicts: Mapping[str, tuple[bool, str]]) -> bool:
    return sum(ok for ok, _ in verdicts.values()) > len(verdicts) / 2


def _agreement(judged: Sequence[Mapping[str, tuple[bool, str]]], local: Sequence[str]) -> dict[str, Any]:
    """How often each LLM judge agrees with the offline judges' majority (only when LLM judges vote)."""
    if not judged or not local:
        return {}
    others = [name for name in judged[0] if name not in local]
    if not others:
        return {}
    offline = [sum(v[n][0] for n in local) > len(local) / 2 for v in judged]
    report: dict[str, Any] = {"n_items": len(judged), "offline_judges": list(local)}
    for name in others:
        same = sum(v[name][0] == o for v, o in zip(judged, offline, strict=True))
        report[name] = round(same / len(judged), 4)
    llm = [sum(v[n][0] for n in others) > len(others) / 2 for v in judged]
    report["llm_majority_vs_offline_majority"] = round(
        sum(a == b for a, b in zip(llm, offline, strict=True)) / len(judged), 4)
    return report


def _r(x: float | Fraction) -> float:
    return round(float(x), 6)


class BuildPipeline:
    def __init__(self, world: BuildWorld) -> None:
        self.w = world
        self._timings: dict[str, float] = {}
        self._demoted: list[str] = []

    def _timed(self, stage: str, start: float) -> None:
        self._timings[stage] = round(self.w.clock() - start, 3)

    # -- stages --------------------------------------------------------------------------------
    def vote(self, requirement: Requirement, k1: int) -> VoteResult:
        if len(self.w.unit_rankers) < MIN_JURY:
            raise InvalidInput("voting_judges", f"the jury needs at least {MIN_JURY} judges")
        candidates = self.w.catalog.scientific()
        rankings = {}
        for done, judge in enumerate(self.w.unit_rankers):
            self.w.progress("vote", done, len(self.w.unit_rankers))
            rankings[judge.name] = judge.rank_units(requirement, candidates)
        self.w.progress("vote", len(self.w.unit_rankers), len(self.w.unit_rankers))
        # A unit only a minority of the jury ranked at all is not the jury's choice: it is not
        # eligible, and a requirement with no eligible unit matches nothing.
        support = {u.id: sum(u.id in r for r in rankings.values()) for u in candidates}
        eligible = [u.id for u in candidates if support[u.id] > len(rankings) / 2]
        result = aggregate_votes(rankings, [u.id for u in candidates], len(candidates))
        ordered, demoted = prefer_specific([u for u in result.units if u in eligible],
                                           {u.id: u.name for u in candidates}, self.w.index.unit_counts(),
                                           len(self.w.items), requirement.text)
        self._demoted = demoted
        units = tuple(ordered)[:k1]
        if not units:
            raise InvalidInput("requirement", "matches no knowledge unit: no unit was ranked by a majority "
                               "of the jury")
        return VoteResult(units, result.consensus, result.per_judge)

    @staticmethod
    def _verdicts(requirement: Requirement, jury: Sequence[RelevanceJudge],
                  items: Sequence[CorpusItem]) -> Callable[[int], dict[str, tuple[bool, str]]]:
        """position -> each judge's (verdict, reason), each position judged once."""
        cache: dict[int, dict[str, tuple[bool, str]]] = {}

        def verdicts(position: int) -> dict[str, tuple[bool, str]]:
            if position not in cache:
                cache[position] = {j.name: judge_with_reason(j, requirement, items[position]) for j in jury}
            return cache[position]
        return verdicts

    def _jury(self, requirement: Requirement, votes: VoteResult | None) -> Sequence[RelevanceJudge]:
        jury = self.w.relevance_jury(requirement, votes)
        if len(jury) < MIN_JURY:
            raise InvalidInput("relevance_judges", f"the jury needs at least {MIN_JURY} judges")
        return jury

    # -- the whole build, stage by stage ---------------------------------------------------------------
    # Each stage takes the records of the earlier ones (see core/build/stage_records.py), so a Kafka worker
    # per stage and the embedded one-process run execute the same code on the same data.
    def run(self, requirement: Requirement, params: BuildParams) -> BuildResult:
        params.validate()
        voted = self.stage_vote(requirement, params)
        listed = self.stage_candidates(requirement, params, voted)
        cut = self.stage_cutoff(requirement, params, voted, listed)
        selection = self.stage_select(params, listed, cut)
        generated = self.stage_generate(requirement, params, listed, selection)
        return self.assemble(voted, listed, cut, selection, generated, params.min_items)

    def stage_vote(self, requirement: Requirement, params: BuildParams) -> VotedUnits:
        start = self.w.clock()
        if params.method.startswith("embedding"):
            record = {"method": params.method, "units": [], "note": "embedding baselines do not vote"}
            result = VotedUnits(None, record, [])
        else:
            votes = self.vote(requirement, params.k1)
            result = VotedUnits(votes, self._voting_record(votes), [j.name for j in self.w.unit_rankers])
        self._timed("vote", start)
        return result

    def stage_candidates(self, requirement: Requirement, params: BuildParams, voted: VotedUnits) -> CandidateList:
        start = self.w.clock()
        if voted.votes is None:
            ordered, similarity = self._embedding_order(requirement, params)
            result = CandidateList([Candidate(i, (), 0.0) for i in ordered], similarity)
        else:
            shared = self.w.index.items_with_units(list(voted.votes.units))
            shared = {i: u for i, u in shared.items() if i in self.w.items}
            result = CandidateList(order_candidates(shared, voted.votes.consensus), {})
        self._timings["vote"] = round(self._timings.get("vote", 0.0) + self.w.clock() - start, 3)
        if not result.candidates:
            raise InvalidInput("requirement", "no corpus item carries any voted unit; nothing to build from")
        return result

    def stage_cutoff(self, requirement: Requirement, params: BuildParams, voted: VotedUnits,
                     listed: CandidateList) -> CutoffStage:
        start = self.w.clock()
        candidates = listed.candidates
        items = [self.w.items[c.item_id] for c in candidates]
        ids = [c.item_id for c in candidates]
        cutoff: CutoffResult | None = None
        probes: Sequence[Probe] = ()
        judges: list[str] = []
        verdicts: Callable[[int], dict[str, tuple[bool, str]]] | None = None
        local_names: list[str] = []
        if params.method in ("scicustom", "no-selection", "embedding-filtering", "greedy-topk"):
            jury = self._jury(requirement, voted.votes)
            judges = [j.name for j in jury]
            local_names = [j.name for j in jury if j.kind == "local"]
            verdicts = self._verdicts(requirement, jury, items)
            judged = verdicts

            def untracked(position: int, item_id: str) -> dict[str, bool]:
                return {name: v for name, (v, _) in judged(position).items()}
            vote = self._tracking(untracked, len(ids))
            if params.method == "greedy-topk":
                kept, probes = greedy_scan(ids, vote, params.k2)
            else:
                cutoff = binary_search_cutoff(ids, vote)
                probes = cutoff.probes
                kept = list(range(cutoff.n_selected))
        elif params.method == "embedding-knn":
            kept = list(range(min(params.k2, len(ids))))
        else:  # no-cutoff: every candidate goes on to selection
            kept = list(range(len(ids)))
        within_cutoff = len(kept)
        # Never pad: the cutoff is a position in a list ordered by shared units, not by relevance, so
        # every item above it still has to pass the jury itself (the verdicts of probes are reused).
        # An all-local jury costs milliseconds an item, so it judges every candidate: relevant items
        # below a cutoff that a narrow jury drew early are not lost (LLM juries keep the paper's cost).
        gate: dict[str, Any] = {"n_within_cutoff": within_cutoff}
        if verdicts is not None and params.method in ("scicustom", "no-selection", "embedding-filtering") \
                and len(local_names) == len(judges):
            kept = list(range(len(ids)))
            gate["scanned"] = "every candidate (all judges are local)"
        accepted_votes: dict[str, dict[str, bool]] = {}
        agreement: dict[str, Any] = {}
        if verdicts is not None:
            judged_positions = sorted({*kept, *(p.position for p in probes)})
            agreement = _agreement([verdicts(p) for p in judged_positions], local_names)
            relevant = []
            for done, pos in enumerate(kept):
                self.w.progress("relevance", done, len(kept))
                v = verdicts(pos)
                if _majority(v):
                    relevant.append(pos)
                    accepted_votes[ids[pos]] = {name: ok for name, (ok, _) in v.items()}
            gate["n_rejected_by_jury"] = len(kept) - len(relevant)
            kept = relevant
        gate["n_relevant"] = len(kept)
        quality_kept, quality = quality_gate([items[p] for p in kept],
                                             [self.w.vector(ids[p]) for p in kept])
        kept = [kept[i] for i in quality_kept]
        accepted_votes = {ids[p]: accepted_votes[ids[p]] for p in kept if ids[p] in accepted_votes}
        record = self._cutoff_record(params.method, cutoff, probes, len(ids), len(kept), verdicts)
        record["relevance_gate"] = gate
        record["quality_gate"] = quality
        record["accepted_votes"] = accepted_votes
        if agreement:
            record["agreement"] = agreement
        self._timed("cutoff", start)
        warnings = []
        if len(kept) < params.k2:
            warnings.append(f"only {len(kept)} items are relevant and well-formed (< k2={params.k2}); the "
                            "benchmark is smaller rather than padded with off-topic items")
        return CutoffStage(kept, record, judges, warnings)

    def stage_select(self, params: BuildParams, listed: CandidateList, cut: CutoffStage) -> Selection:
        if not cut.kept:
            return Selection([], [])
        start = self.w.clock()
        items = [self.w.items[listed.candidates[pos].item_id] for pos in cut.kept]
        self.w.progress("scores", 0, len(items))
        scores = self.w.intrinsic(items)
        self.w.progress("scores", len(items), len(items))
        self._timed("scores", start)

        start = self.w.clock()
        proxy_result, chosen = self._select(params, cut.kept, items, scores)
        by_id = {it.id: it for it in items}
        proxy = []
        for pos in chosen:
            item = by_id[listed.candidates[pos].item_id]
            proxy.append({
                "id": item.id, "candidate_rank": pos, "hardness": _r(scores[item.id][1]),
                "quality": _r(scores[item.id][0]),
                "subset_w1_hardness": _r(proxy_result.w1_hardness) if proxy_result else None,
                "subset_w1_quality": _r(proxy_result.w1_quality) if proxy_result else None,
            })
        self._timed("proxy", start)
        cut_set = [{"id": it.id, "candidate_rank": pos, "hardness": _r(scores[it.id][1]),
                    "quality": _r(scores[it.id][0])} for pos, it in zip(cut.kept, items, strict=True)]
        return Selection(chosen, proxy, cut_set)

    def stage_generate(self, requirement: Requirement, params: BuildParams, listed: CandidateList,
                       selection: Selection) -> Generated:
        start = self.w.clock()
        benchmark, warnings = self._to_mcqs(requirement, params,
                                            [(pos, listed.candidates[pos]) for pos in selection.chosen])
        self._timed("mcq", start)
        return Generated(benchmark, warnings)

    def assemble(self, voted: VotedUnits, listed: CandidateList, cut: CutoffStage, selection: Selection,
                 generated: Generated, min_items: int = DEFAULT_MIN_ITEMS) -> BuildResult:
        candidates, similarity = listed.candidates, listed.similarity
        candidate_records = [{
            "rank": r, "id": c.item_id, "source": self.w.items[c.item_id].source,
            "shared_units": [self.w.catalog.by_id(u).name for u in c.shared_units],
            "mean_vote_rank": _r(c.mean_rank), **({"similarity": _r(similarity[c.item_id])} if similarity else {}),
        } for r, c in enumerate(candidates)]
        coverage = self._coverage(voted.votes, candidates, cut.kept, selection.chosen, generated.benchmark,
                                  min_items)
        status = self._status(coverage, len(generated.benchmark), min_items, bool(cut.judges))
        accepted = cut.record.get("accepted_votes", {})
        in_bench = [accepted[m.provenance["source_item_id"]] for m in generated.benchmark
                    if m.provenance["source_item_id"] in accepted]
        validity = estimate_validity(in_bench, self.w.calibration) if cut.judges else {
            "note": f"method {cut.record.get('method')} runs no relevance jury; no estimate"}
        quality = dict(cut.record.get("quality_gate", {}))
        warnings = [*cut.warnings, *generated.warnings]
        if status["status"] == "thin":
            warnings.insert(0, status["message"])
        # cutoff.json also lists the cut set's hardness and quality: what the proxy subset was matched to.
        cutoff = {**cut.record, "cut_set_scores": selection.cut_set} if selection.cut_set else cut.record
        return BuildResult(voted.voting, candidate_records, cutoff, selection.proxy, generated.benchmark,
                           coverage, warnings, dict(self._timings),
                           {"voting": voted.judges, "relevance": cut.judges}, status, validity, quality)

    @staticmethod
    def _status(coverage: dict[str, Any], n_mcq: int, min_items: int, judged: bool) -> dict[str, Any]:
        thin_units = [u["name"] for u in coverage.get("units", []) if u.get("thin")]
        if n_mcq >= min_items or not judged:
            return {"status": "ok", "n_mcq": n_mcq, "min_items": min_items, "thin_units": thin_units}
        names = ", ".join(thin_units) or "every voted unit"
        return {
            "status": "thin", "n_mcq": n_mcq, "min_items": min_items, "thin_units": thin_units,
            "message": (f"thin coverage: only {n_mcq} relevant MCQs (< the floor of {min_items}); voted units "
                        f"with too few relevant items: {names}"),
            "suggestion": THIN_SUGGESTION,
        }

    # -- pieces ------------------------------------------------------------------------------------
    def _tracking(self, vote: VoteFn, total: int) -> VoteFn:
        calls = [0]

        def tracked(position: int, item_id: str) -> dict[str, bool]:
            calls[0] += 1
            self.w.progress("cutoff", calls[0], total)
            return vote(position, item_id)
        return tracked

    def _embedding_order(self, requirement: Requirement, params: BuildParams) -> tuple[list[str], dict[str, float]]:
        ids, sims = self.w.all_item_similarity(self.w.requirement_vector(requirement))
        order = sorted(range(len(ids)), key=lambda i: (-float(sims[i]), ids[i]))
        limit = params.k2 if params.method == "embedding-knn" else EMBEDDING_POOL
        top = [ids[i] for i in order[:limit]]
        return top, {ids[i]: float(sims[i]) for i in order[:limit]}

    def _select(self, params: BuildParams, kept: list[int], kept_items: list[CorpusItem],
                scores: Mapping[str, tuple[float, float]]) -> tuple[ProxyResult | None, list[int]]:
        if params.method in ("greedy-topk", "embedding-knn"):
            return None, kept[: params.k2]
        if params.method == "no-selection":
            if len(kept) <= params.k2:
                return None, kept
            rng = np.random.default_rng(params.seed)
            return None, sorted(int(kept[i]) for i in rng.choice(len(kept), params.k2, replace=False))
        self.w.progress("proxy", 0, 1)
        result = select_proxy_subset(
            np.stack([self.w.vector(it.id) for it in kept_items]),
            np.array([scores[it.id][1] for it in kept_items]),
            np.array([scores[it.id][0] for it in kept_items]),
            params.k2, params.proxy_samples, params.seed)
        self.w.progress("proxy", 1, 1)
        return result, [kept[i] for i in result.indices]

    def _to_mcqs(self, requirement: Requirement, params: BuildParams,
                 chosen: Sequence[tuple[int, Candidate]]) -> tuple[list[MCQ], list[str]]:
        benchmark: list[MCQ] = []
        warnings: list[str] = []
        for done, (rank, cand) in enumerate(chosen):
            self.w.progress("mcq", done, len(chosen))
            item = self.w.items[cand.item_id]
            provenance = {"source_item_id": item.id, "source": item.source, "licence": item.licence,
                          "units": [self.w.catalog.by_id(u).name for u in cand.shared_units],
                          "candidate_rank": rank}
            mcq, notes = to_mcq(item, provenance, params.seed, writer=self.w.mcq_writer, requirement=requirement,
                                neighbour_answers=self.w.neighbour_answers)
            warnings.extend(notes)
            if mcq is not None:
                benchmark.append(mcq)
        self.w.progress("mcq", len(chosen), len(chosen))
        return benchmark, warnings

    def _voting_record(self, votes: VoteResult) -> dict[str, Any]:
        name = {u.id: u.name for u in self.w.catalog.units}
        return {
            "units": [{"id": u, "name": name[u], "consensus_rank": _r(votes.consensus[u])} for u in votes.units],
            "per_judge": {j: [name[u] for u in ranking] for j, ranking in votes.per_judge.items()},
            "missing_rank": len(votes.consensus) + 1,
            "demoted_broad_units": [name[u] for u in self._demoted],
        }

    @staticmethod
    def _cutoff_record(method: str, cutoff: CutoffResult | None, probes: Sequence[Probe], n: int,
                       n_kept: int, verdicts: Callable[[int], dict[str, tuple[bool, str]]] | None) -> dict[str, Any]:
        return {
            "method": method,
            "n_candidates": n,
            "cutoff_position": cutoff.cutoff if cutoff else None,
            "n_selected": n_kept,
            "n_probes": len(probes),
            "probes": [{"position": p.position, "id": p.item_id, "votes": p.votes, "relevant": p.relevant,
                        **({"reasons": {k: r for k, (_, r) in verdicts(p.position).items()}} if verdicts else {})}
                       for p in probes],
        }

    def _coverage(self, votes: VoteResult | None, candidates: Sequence[Candidate], kept: Sequence[int],
                  chosen: Sequence[int], benchmark: Sequence[MCQ], min_items: int) -> dict[str, Any]:
        if votes is None:
            return {"units": []}
        counts = self.w.index.unit_counts()
        in_bench = {m.provenance["source_item_id"] for m in benchmark}
        kept_set, chosen_set = set(kept), set(chosen)
        rows = []
        for unit in votes.units:
            positions = [i for i, c in enumerate(candidates) if unit in c.shared_units]
            relevant = sum(1 for i in positions if i in kept_set)
            rows.append({
                "id": unit, "name": self.w.catalog.by_id(unit).name, "corpus_items": counts.get(unit, 0),
                "candidates": len(positions), "relevant": relevant,
                "in_benchmark": sum(1 for i in positions if i in chosen_set and candidates[i].item_id in in_bench),
                "thin": relevant < min_items,
            })
        return {"units": rows, "min_items": min_items,
                "note": "relevant: items carrying the unit that the relevance jury accepted and the MCQ "
                        "quality gate kept"}
