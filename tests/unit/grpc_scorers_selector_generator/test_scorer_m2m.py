"""ScorerService.ScoreHypotheses over a loopback channel: the documents `scicustom score m2m` writes."""

from __future__ import annotations

import json
import math

import pytest

from scicustom.app.scoring.m2m import RECORD_FIELDS
from scicustom.cli import main
from scicustom.scorers.servicer import binding
from scicustom.scorers.v1 import scorers_pb2 as pb
from scicustom.scorers.v1 import scorers_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import invalid_field, loopback
from tests.unit.grpc_scorers_selector_generator.corpus_world import empty_context
from tests.unit.m2m.synthetic_rows import synthetic_rows

METRICS = ("rcf", "hpa", "msi", "sns", "ip", "pdq")


def hypothesis(row: dict[str, str]) -> pb.Hypothesis:
    return pb.Hypothesis(**{k: v for k, v in row.items() if k in RECORD_FIELDS},
                         columns={k: v for k, v in row.items() if k not in RECORD_FIELDS})


def sample_rows() -> list[dict[str, str]]:
    """Synthetic rows plus the edge cases: no problem_core / target_property keys, one step, no steps,
    Unicode units."""
    rows = synthetic_rows(10, seed=5)
    del rows[1]["problem_core"], rows[1]["target_property"]
    rows[2]["reasoning_process"] = "[Begin Step 1] The coating slows Li+ diffusion by 20 μm thick layers [End Step 1]"
    rows[3]["reasoning_process"] = ""
    rows[4]["hypothesis"] = "Heating to 25 ℃ and a 5 μm coating reduce plating, thus raising capacity retention."
    for i, row in enumerate(rows):
        row["system"] = "alpha" if i % 2 else "beta"
    return rows


@pytest.fixture(scope="module")
def stub(tmp_path_factory):
    with loopback([binding(empty_context(tmp_path_factory.mktemp("m2m")))]) as channel:
        yield pb_grpc.ScorerServiceStub(channel)


def run_cli(tmp_path, rows, *flags):
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["score", "m2m", "--input", str(data), "--output", str(tmp_path / "scores.json"), *flags]) == 0
    return tmp_path / "scores.json"


def test_scores_equal_the_cli_document(stub, tmp_path):
    rows = sample_rows()
    response = stub.ScoreHypotheses(pb.ScoreHypothesesRequest(records=[hypothesis(r) for r in rows]), timeout=30)
    cli = run_cli(tmp_path, rows)
    assert response.scores_json == cli.read_text(encoding="utf-8")
    assert response.report_json == "{}\n"
    document = json.loads(response.scores_json)
    assert [s.id for s in response.scores] == [r["paper_id"] for r in rows]
    for scores in response.scores:
        expected = document[scores.id]
        assert {m: getattr(scores, m) for m in METRICS} == {m: expected[m] for m in METRICS}
        assert scores.cbs == expected["cbs"]
        assert dict(scores.sub) == {k: float(v) for k, v in expected["sub"].items() if v is not None}
    # Unset problem_core / target_property reach the metrics as "nan", as in the reference; as ""
    # only with missing_as_empty, which changes nothing for the rows that set them.
    empty = stub.ScoreHypotheses(pb.ScoreHypothesesRequest(records=[hypothesis(r) for r in rows],
                                                           options=pb.M2MOptions(missing_as_empty=True)), timeout=30)
    assert dict(empty.scores[1].sub) != dict(response.scores[1].sub)
    assert [dict(s.sub) for i, s in enumerate(empty.scores) if i != 1] == \
        [dict(s.sub) for i, s in enumerate(response.scores) if i != 1]
    assert response.overall.rows == len(rows)
    for metric in (*METRICS, "cbs"):
        assert getattr(response.overall, metric) == pytest.approx(
            math.fsum(document[r["paper_id"]][metric] for r in rows) / len(rows), abs=1e-12)


def test_corrected_options_change_what_they_correct(stub):
    rows = sample_rows()
    parity = stub.ScoreHypotheses(pb.ScoreHypothesesRequest(records=[hypothesis(r) for r in rows]), timeout=30)
    corrected = stub.ScoreHypotheses(pb.ScoreHypothesesRequest(
        records=[hypothesis(r) for r in rows], options=pb.M2MOptions(unicode_units=True)), timeout=30)
    # Row 4 states its quantities in Greek mu and the degree-Celsius sign.
    assert corrected.scores[4].msi > parity.scores[4].msi
    assert corrected.scores[4].hpa == parity.scores[4].hpa  # a switch of the quantity patterns only


def test_systems_groups_and_reports_equal_the_cli(stub, tmp_path):
    rows = sample_rows()
    references = {rows[0]["paper_id"]: "A thin coating slows lithium diffusion.", rows[5]["paper_id"]: "Doping helps."}
    request = pb.ScoreHypothesesRequest(records=[hypothesis(r) for r in rows], options=pb.M2MOptions(
        system_column="system", group_by="system", min_group_size=3, taxonomy=True, sensitivity=True,
        references=references, attacks=True, attack_sample=4, seed=7))
    response = stub.ScoreHypotheses(request, timeout=60)
    literature = tmp_path / "literature.jsonl"
    literature.write_text("".join(json.dumps({"paper_id": k, "hypothesis": v}) + "\n" for k, v in references.items()))
    cli = run_cli(tmp_path, rows, "--system-column", "system", "--group-by", "system", "--min-group-size", "3",
                  "--report", str(tmp_path / "report.json"), "--taxonomy", "--sensitivity", "--reference-file",
                  str(literature), "--no-embeddings", "--attacks", "--attack-sample", "4", "--seed", "7")
    assert response.scores_json == cli.read_text(encoding="utf-8")
    assert response.report_json == (tmp_path / "report.json").read_text(encoding="utf-8")
    report = json.loads(response.report_json)
    assert set(report) == {"taxonomy", "sensitivity", "reference_metrics", "attacks"}
    assert report["reference_metrics"]["matched_rows"] == 2 and report["attacks"]["sampled_rows"] == 4
    assert [m.system for m in response.per_system] == ["alpha", "beta"]
    assert [m.rows for m in response.per_system] == [5, 5]
    assert [s.system for s in response.scores] == [r["system"] for r in rows]
    assert response.usage == pb.LLMUsage()


def test_pairwise_llm_judge_goes_through_the_llm_port(tmp_path, recorded_llm):
    recorded_llm.default = json.dumps({"overall": "A", "confidence": "high"})
    ctx = empty_context(tmp_path, llm_api_base=recorded_llm.api_base, llm_api_key="test")
    rows = sample_rows()
    for row in rows:  # both systems answer the same five problems
        row["paper_id"] = f"p{int(row['paper_id'][-2:]) // 2}"
    request = pb.ScoreHypothesesRequest(records=[hypothesis(r) for r in rows], options=pb.M2MOptions(
        system_column="system", judge_models=["openai/judge-a"], judge_problems=3))
    with loopback([binding(ctx)]) as channel:
        response = pb_grpc.ScorerServiceStub(channel).ScoreHypotheses(request, timeout=60)
    judge = json.loads(response.report_json)["pairwise_judge"]
    # A judge that always prefers the first answer flips on every swapped pair: all ties.
    assert len(judge["judgments"]) == 3 and all(j["order_flip"] for j in judge["judgments"])
    assert judge["usage"]["calls"] == 6 and len(recorded_llm.calls) == 6
    assert (response.usage.calls, response.usage.cached_calls) == (6, 0)
    assert response.usage.prompt_tokens == 60 and response.usage.completion_tokens == 30


def test_bad_requests_name_the_field(stub):
    rows = sample_rows()
    call = stub.ScoreHypotheses

    def request(records=None, **options):
        return pb.ScoreHypothesesRequest(records=records or [hypothesis(r) for r in rows],
                                         options=pb.M2MOptions(**options))

    assert invalid_field(lambda: call(pb.ScoreHypothesesRequest(), timeout=5)) == "records: is empty"
    no_hypothesis = [pb.Hypothesis(paper_id="a"), pb.Hypothesis(paper_id="b")]
    assert invalid_field(lambda: call(request(no_hypothesis), timeout=5)) == \
        "records.hypothesis: is unset in every record"
    twice = [hypothesis(rows[0]), hypothesis(rows[1]), hypothesis(rows[0])]
    assert invalid_field(lambda: call(request(twice), timeout=5)).startswith(
        f"records[2].paper_id: {rows[0]['paper_id']!r} repeats records[0]")
    long = [hypothesis(rows[0]), pb.Hypothesis(paper_id="x", hypothesis="w " * 10001)]
    assert invalid_field(lambda: call(request(long), timeout=5)) == \
        "records[1].hypothesis: has 20002 characters, above the limit 20000"
    clash = [pb.Hypothesis(paper_id="x", hypothesis="h", columns={"keywords": "k"})]
    assert invalid_field(lambda: call(request(clash), timeout=5)) == \
        "records[0].columns['keywords']: set the field keywords instead"
    assert invalid_field(lambda: call(request(group_by="lab"), timeout=5)) == \
        "options.group_by: no record has a column 'lab'"
    assert invalid_field(lambda: call(request(judge_models=["openai/j"]), timeout=5)) == \
        "options.judge_models: the pairwise judge compares systems: give a system_column"
    assert invalid_field(lambda: call(request(system_column="system", judge_models=["openai/j"],
                                              judge_pairs=["alpha:gamma"]), timeout=5)).startswith(
        "options.judge_pairs[0]: 'alpha:gamma' is not SYSTEM_A:SYSTEM_B")
    assert invalid_field(lambda: call(request(attacks=True, attack_sample=10001), timeout=5)) == \
        "options.attack_sample: 10001 is above the limit 10000"
