from __future__ import annotations

import pytest

from scicustom.core.alchemy.judge import JudgeInput, RecipeJudge
from scicustom.core.alchemy.prediction import PredictionTarget, RecipePredictor, prediction_prompt
from scicustom.core.alchemy.retrieval import LibraryRecipe, RecipeLibrary
from tests.unit.alchemy.conftest import WordHashEmbedder
from tests.unit.alchemy.samples import judge_reply
from tests.unit.sciif.conftest import ScriptedLLM

LIBRARY = [
    LibraryRecipe("zno", "ZnO nanorods by hydrothermal growth for photocatalysis", "## Materials\n- zinc nitrate"),
    LibraryRecipe("lfp", "LiFePO4 carbon composite by solid-state sintering for lithium batteries",
                  "## Materials\n- Li2CO3"),
    LibraryRecipe("tio2", "TiO2 nanotubes by anodization for photocatalysis", "## Materials\n- Ti foil"),
    LibraryRecipe("nmc", "NMC811 cathode by coprecipitation for lithium batteries", "## Materials\n- NiSO4"),
]


@pytest.fixture
def library():
    return RecipeLibrary(LIBRARY, WordHashEmbedder())


def test_top_k_by_cosine_similarity(library):
    (hits,) = library.top_k_many([("q", "hydrothermal ZnO nanorods for photocatalysis")], k=2)
    assert [h.recipe.id for h in hits] == ["zno", "tio2"]
    assert hits[0].score > hits[1].score
    (everything,) = library.top_k_many([("q", "anything")], k=25)  # K above the library size: all of it
    assert len(everything) == 4


def test_a_paper_never_retrieves_itself(library):
    (hits,) = library.top_k_many([("zno", LIBRARY[0].contribution)], k=3)
    assert "zno" not in [h.recipe.id for h in hits] and len(hits) == 3


def test_k_zero_retrieves_nothing(library):
    assert library.top_k_many([("q", "ZnO")], k=0) == [[]]


def test_prompt_follows_figure_13():
    prompt = prediction_prompt("X: ZnO for sensors", LIBRARY[:2])
    assert prompt.startswith("You are an expert in material science and chemical synthesis.")
    assert "-- References --\n# Reference 1:\nZnO nanorods" in prompt
    assert "\n\n# Reference 2:\nLiFePO4 carbon composite" in prompt
    assert prompt.endswith("predict the synthesis recipe for the given key contributions:\nX: ZnO for sensors")


def targets(n):
    return [PredictionTarget(f"t{i}", f"target {i}: photocatalyst number {i}", f"## Materials\n- thing {i}")
            for i in range(n)]


@pytest.mark.parametrize(("n", "batch_size"), [(7, 3), (8, 8), (9, 2), (1, 4)])
def test_every_target_is_predicted_not_only_the_first_batch(n, batch_size, library):
    llm = ScriptedLLM(lambda model, messages: "recipe for " + messages[0]["content"].rsplit(":\n", 1)[1])
    predictor = RecipePredictor(llm, "openai/solver", library=library, top_k=1)
    predictions = predictor.predict_all(targets(n), batch_size=batch_size)
    assert len(predictions) == len(llm.calls) == n
    assert [p.target.id for p in predictions] == [f"t{i}" for i in range(n)]
    assert all(p.prediction == f"recipe for {p.target.contribution}" for p in predictions)
    assert all(len(p.references) == 1 for p in predictions)


def test_one_shot_example_at_k_zero():
    llm = ScriptedLLM(lambda model, messages: "r")
    RecipePredictor(llm, "m", one_shot=LIBRARY[1]).predict_all(targets(2))
    assert all("# Reference 1:\nLiFePO4" in msgs[0]["content"] for _, msgs in llm.calls)
    llm = ScriptedLLM(lambda model, messages: "r")
    RecipePredictor(llm, "m").predict_all(targets(1))
    assert "-- References --\n\n\n-- Prediction Input --" in llm.calls[0][1][0]["content"]


def test_predictor_arguments(library):
    llm = ScriptedLLM(lambda model, messages: "r")
    with pytest.raises(ValueError):
        RecipePredictor(llm, "m", top_k=5)
    with pytest.raises(ValueError):
        RecipePredictor(llm, "m", library=library, top_k=-1)
    with pytest.raises(ValueError):
        RecipePredictor(llm, "m").predict_all(targets(2), batch_size=0)


def test_every_prediction_is_judged():
    llm = ScriptedLLM(lambda model, messages: judge_reply())
    items = [JudgeInput(t, "predicted") for t in targets(11)]
    judgements = RecipeJudge(llm, "openai/judge").judge_all(items, workers=3)
    assert [j.target_id for j in judgements] == [f"t{i}" for i in range(11)]
    assert len(llm.calls) == 11 and all(j.scores is not None and j.attempts == 1 for j in judgements)
    system, user = llm.calls[0][1]
    assert system["role"] == "system" and system["content"].startswith("You are an expert materials scientist")
    assert user["content"].startswith("Please evaluate the following:\n\nTarget Material:\ntarget 0")
    assert "AI-Generated Recipe:\npredicted\n\nGround Truth Recipe:\n## Materials\n- thing 0" in user["content"]
