from __future__ import annotations

import json

import pytest

from scicustom.cli import main
from tests.unit.alchemy.samples import CLASSIFICATION_REPLY, EXTRACTION_REPLY, PAPER, judge_reply

SCORES = {0: (5.0, 4.5, 4.5, 4.0, 4.5, 4.0, 4.0), 1: (3.0, 3.0, 2.5, 2.0, 3.0, 3.0, 2.0),
          2: (4.0, 4.0, 3.5, 3.5, 4.0, 3.5, 3.0), 3: (2.0, 2.5, 2.0, 1.5, 2.0, 2.0, 1.0)}


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def env(tmp_path, monkeypatch, recorded_llm):
    monkeypatch.setenv("SCICUSTOM_LLM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TEST_LLM_KEY", "test")
    return tmp_path, ["--api-base", recorded_llm.api_base, "--api-key-env", "TEST_LLM_KEY"]


def alchemy(*argv):
    return main(["score", "alchemy", *map(str, argv)])


def test_extract_then_predict(env, recorded_llm, capsys):
    tmp, llm_flags = env
    recorded_llm.rules.append(("Analyze the given scientific text", lambda m: (
        CLASSIFICATION_REPLY if "Ni-V2O5" in m[-1]["content"] else "1. Synthesis Recipe: NO")))
    recorded_llm.rules.append(("extract ONLY the explicitly stated", EXTRACTION_REPLY))
    recorded_llm.rules.append(("predict the synthesis recipe",
                               "## Materials\n- NH4VO3\n## Synthesis Procedure\n- heat"))
    papers = write_jsonl(tmp / "papers.jsonl", [{"id": "zhao2020", "text": PAPER},
                                                {"id": "review", "text": "A review of reviews. " * 10}])
    assert alchemy("extract", "--papers", papers, "--model", "openai/gpt", "--out", tmp / "recipes.jsonl",
                   *llm_flags) == 0
    recipes = read_jsonl(tmp / "recipes.jsonl")
    assert [r["status"] for r in recipes] == ["extracted", "no_recipe"]
    assert recipes[0]["classification"]["process_category"] == "Hydrothermal"
    assert recipes[0]["recipe"].startswith("## Materials") and "contribution" not in recipes[1]
    assert "extracted 1 of 2 papers" in capsys.readouterr().out

    library = write_jsonl(tmp / "library.jsonl", [{"id": "ex1", "contribution": "LiFePO4 by sintering",
                                                   "recipe": "## Materials\n- Li2CO3"}])
    assert alchemy("predict", "--targets", tmp / "recipes.jsonl", "--model", "openai/solver", "--out",
                   tmp / "pred.jsonl", "--library", library, "--one-shot-id", "ex1", *llm_flags) == 0
    (prediction,) = read_jsonl(tmp / "pred.jsonl")  # the no_recipe row is skipped
    assert prediction["id"] == "zhao2020" and prediction["top_k"] == 0 and prediction["references"] == []
    assert prediction["prediction"].startswith("## Materials") and "extraction" not in prediction
    prompt = recorded_llm.calls[-1]["messages"][0]["content"]
    assert "# Reference 1:\nLiFePO4 by sintering" in prompt and "three-dimensional cross-linked" in prompt


def predictions_file(tmp):
    rows = [{"id": f"p{i}", "contribution": f"target {i}", "recipe": "## Materials\n- zinc nitrate\n- water",
             "prediction": f"## Materials\n- zinc acetate variant {i}\n- water", "model": "m", "top_k": 0}
            for i in range(4)]
    return write_jsonl(tmp / "pred.jsonl", rows)


def test_judge_with_expert_agreement(env, recorded_llm):
    tmp, llm_flags = env
    for i, scores in SCORES.items():
        recorded_llm.rules.append((f"variant {i}", judge_reply(scores=scores)))
    # Three raters; their overall tracks the judge's ranking of p0 > p2 > p1 > p3.
    ratings = []
    for rater, offset in (("e1", 0.0), ("e2", 0.5), ("e3", -0.5)):
        for i, overall in enumerate((4.5, 2.5, 4.0, 1.5)):
            ratings.append({"id": f"p{i}", "rater": rater, "group": "High" if rater != "e3" else "",
                            "overall": overall + offset + (0.5 if (i + len(rater)) % 2 else 0.0)})
    ratings_file = write_jsonl(tmp / "ratings.jsonl", ratings)
    assert alchemy("judge", "--predictions", predictions_file(tmp), "--judge", "openai/judge", "--out",
                   tmp / "report.json", "--expert-ratings", ratings_file, *llm_flags) == 0
    report = json.loads((tmp / "report.json").read_text())
    summary = report["summary"]
    assert (summary["predictions"], summary["scored"], summary["malformed"]) == (4, 4, 0)
    means = [sum(s) / 7 for s in SCORES.values()]
    assert summary["overall"]["mean"] == pytest.approx(sum(means) / 4)
    assert (summary["overall"]["min"], summary["overall"]["max"]) == pytest.approx((min(means), max(means)))
    assert list(report["by_model"]) == ["m (K=0)"]
    assert set(report["predictions"][0]) >= {"scores", "overall", "judge_overall", "bleu", "rouge_l"}
    agreement = report["agreement"]
    assert set(agreement) == {"all", "High"} and agreement["High"]["raters"] == ["e1", "e2"]
    icc = agreement["all"]["inter_expert_icc3k"]["overall"]
    assert icc["n_targets"] == 4 and icc["n_raters"] == 3 and icc["icc"] > 0.9
    judge_vs = agreement["all"]["overall_vs_experts"]["llm_judge"]
    assert judge_vs["spearman"]["r"] == pytest.approx(1.0) and judge_vs["pearson"]["n"] == 4
    assert set(agreement["all"]["overall_vs_experts"]) == {"llm_judge", "bleu", "rouge_l"}
    assert agreement["all"]["judge_criteria_vs_experts"] == {}  # experts gave only overall scores


def test_judge_rerun_makes_no_new_calls_and_counts_malformed(env, recorded_llm):
    tmp, llm_flags = env
    recorded_llm.rules.append(("variant 0", judge_reply()))
    recorded_llm.rules.append(("could not be read", "still no JSON"))
    argv = ["judge", "--predictions", predictions_file(tmp), "--judge", "openai/judge", *llm_flags]
    assert alchemy(*argv, "--out", tmp / "a.json") == 0
    calls = len(recorded_llm.calls)
    assert calls == 1 + 3 * 2  # three malformed predictions are each retried once
    assert alchemy(*argv, "--out", tmp / "b.json") == 0
    assert len(recorded_llm.calls) == calls
    a, b = (json.loads((tmp / f).read_text()) for f in ("a.json", "b.json"))
    assert a["summary"] == b["summary"] and a["summary"]["malformed"] == 3 and a["summary"]["retried"] == 3
    assert b["usage"]["calls"] == 0


@pytest.mark.parametrize(("argv", "message"), [
    (["predict", "--targets", "{t}", "--model", "m", "--out", "{o}", "--top-k", "-1"], "--top-k: must be >= 0"),
    (["predict", "--targets", "{t}", "--model", "m", "--out", "{o}", "--top-k", "5"], "--library: needed"),
    (["predict", "--targets", "{t}", "--model", "m", "--out", "{o}", "--batch-size", "0"], "at least 1"),
    (["judge", "--predictions", "{dup}", "--judge", "m", "--out", "{o}"], "duplicate prediction 'p0'"),
    (["judge", "--predictions", "{t}", "--judge", "m", "--out", "{o}", "--expert-ratings", "{r}"],
     "ratings of unknown predictions ['zz']"),
    (["extract", "--papers", "{missing}", "--model", "m", "--out", "{o}"], "does not exist"),
])
def test_bad_input_exits_2(env, capsys, argv, message):
    tmp, llm_flags = env
    duplicate = {"id": "p0", "contribution": "c", "recipe": "r", "prediction": "x"}
    paths = {"t": predictions_file(tmp), "o": tmp / "out.json", "missing": tmp / "nope.jsonl",
             "dup": write_jsonl(tmp / "dup.jsonl", [duplicate, duplicate]),
             "r": write_jsonl(tmp / "r.jsonl", [{"id": "zz", "rater": "e1", "overall": 3}])}
    assert alchemy(*[a.format(**paths) for a in argv], *llm_flags) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp / "out.json").exists()


@pytest.mark.slow
def test_predict_with_minilm_retrieval(env, recorded_llm):
    tmp, llm_flags = env
    recorded_llm.rules.append(("predict the synthesis recipe", "## Materials\n- something"))
    library = write_jsonl(tmp / "library.jsonl", [
        {"id": "zno", "contribution": "ZnO nanorods grown hydrothermally for photocatalysis", "recipe": "- Zn"},
        {"id": "lfp", "contribution": "LiFePO4 cathode by solid-state sintering for batteries", "recipe": "- Li"},
        {"id": "nmc", "contribution": "Nickel-rich NMC cathode by coprecipitation for batteries", "recipe": "- Ni"},
    ])
    targets = write_jsonl(tmp / "targets.jsonl", [
        {"id": "t1", "contribution": "Hydrothermal zinc oxide nanowires for photocatalytic dye removal"},
        {"id": "nmc", "contribution": "Nickel-rich NMC cathode by coprecipitation for batteries"}])
    assert alchemy("predict", "--targets", targets, "--model", "openai/solver", "--out", tmp / "p.jsonl",
                   "--library", library, "--top-k", "1", *llm_flags) == 0
    first, second = read_jsonl(tmp / "p.jsonl")
    assert [r["id"] for r in first["references"]] == ["zno"]
    assert second["references"][0]["id"] != "nmc"  # never its own recipe
    assert len(recorded_llm.calls) == 2
