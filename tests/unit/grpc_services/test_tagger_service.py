"""TaggerService over a loopback channel, with a Tagger that answers from keywords."""

from __future__ import annotations

from collections.abc import Sequence

import grpc
import pytest
from grpc_health.v1 import health_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.app.tagging.text_tagging import MAX_BATCH
from scicustom.core.errors import RemoteTaggerError
from scicustom.ports import Tagger, UnitScore
from scicustom.tagger.servicer import SERVICE_NAME, binding
from scicustom.tagger.v1 import tagger_pb2 as pb
from scicustom.tagger.v1 import tagger_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import health_status, loopback, reflected_services, rpc_error
from tests.unit.grpc_services.corpus_home import empty_home


class KeywordTagger(Tagger):
    version = "keywords-v1"

    def __init__(self, extra_unit: str | None = None, fail: bool = False) -> None:
        self.extra_unit = extra_unit
        self.fail = fail
        self.calls: list[list[str]] = []

    def tag(self, texts: Sequence[str], vectors: object = None) -> list[list[UnitScore]]:
        self.calls.append(list(texts))
        if self.fail:
            raise RemoteTaggerError("grpc://127.0.0.1:1: connection refused")
        out = []
        for text in texts:
            units = []
            if "virus" in text:
                units += [UnitScore("u1", 0.9), UnitScore("u4", 0.4)]
            if "bone" in text:
                units.append(UnitScore("u3", 0.7))
            if self.extra_unit:
                units.append(UnitScore(self.extra_unit, 0.1))
            out.append(units)
        return out


@pytest.fixture
def ctx(tmp_path):
    ctx = empty_home(tmp_path)
    ctx.tagger = KeywordTagger()
    return ctx


@pytest.fixture
def stub(ctx):
    with loopback([binding(ctx)]) as channel:
        yield pb_grpc.TaggerServiceStub(channel), channel


def _units(tags: pb.TextTags) -> list[tuple[str, str, float]]:
    return [(u.unit_id, u.unit_name, round(u.score, 6)) for u in tags.units]


def test_health_and_reflection_name_the_service(stub):
    _, channel = stub
    assert health_status(channel, SERVICE_NAME) == health_pb2.HealthCheckResponse.SERVING
    assert SERVICE_NAME in reflected_services(channel)


def test_tag_returns_unit_ids_names_scores_and_the_version(stub):
    tagger, _ = stub
    response = tagger.Tag(pb.TagRequest(text="a virus capsid"), timeout=5)
    assert _units(response.tags) == [("u1", "Virology", 0.9), ("u4", "Immune system", 0.4)]
    assert response.tagger_version == "keywords-v1"
    top = tagger.Tag(pb.TagRequest(text="a virus capsid", top_k=1), timeout=5)
    assert _units(top.tags) == [("u1", "Virology", 0.9)]
    assert list(tagger.Tag(pb.TagRequest(text="poetry"), timeout=5).tags.units) == []


def test_tag_batch_keeps_request_order_in_one_tagger_call(stub, ctx):
    tagger, _ = stub
    texts = ["femur bone", "poetry", "virus and bone"]
    response = tagger.TagBatch(pb.TagBatchRequest(texts=texts), timeout=5)
    assert [_units(t) for t in response.tags] == [
        [("u3", "Anatomy", 0.7)], [], [("u1", "Virology", 0.9), ("u4", "Immune system", 0.4), ("u3", "Anatomy", 0.7)]]
    assert ctx.tagger.calls == [texts]


@pytest.mark.parametrize(("texts", "details"), [
    ([], "texts: is empty"),
    (["ok"] * (MAX_BATCH + 1), f"texts: has {MAX_BATCH + 1} entries, above the limit {MAX_BATCH}"),
    (["ok", "ok", "   "], "texts[2]: is empty"),
    (["ok", "x" * 8001], "texts[1]: has 8001 characters, above the limit 8000"),
])
def test_a_bad_batch_is_invalid_argument_naming_the_text(stub, ctx, texts, details):
    tagger, _ = stub
    error = rpc_error(lambda: tagger.TagBatch(pb.TagBatchRequest(texts=texts), timeout=5))
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, details)
    assert ctx.tagger.calls == []


def test_the_batch_limit_and_the_text_limit_are_inclusive(stub):
    tagger, _ = stub
    response = tagger.TagBatch(pb.TagBatchRequest(texts=["virus " + "y" * 7994] * MAX_BATCH), timeout=10)
    assert len(response.tags) == MAX_BATCH and response.tags[-1].units[0].unit_id == "u1"


def test_an_empty_text_is_invalid_argument(stub):
    tagger, _ = stub
    error = rpc_error(lambda: tagger.Tag(pb.TagRequest(text=""), timeout=5))
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, "text: is empty")


def test_an_unreachable_model_server_is_unavailable(tmp_path):
    ctx = empty_home(tmp_path)
    ctx.tagger = KeywordTagger(fail=True)
    with loopback([binding(ctx)]) as channel:
        error = rpc_error(lambda: pb_grpc.TaggerServiceStub(channel).Tag(pb.TagRequest(text="virus"), timeout=5))
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "connection refused" in error.details()


def test_a_tagger_of_another_unit_set_is_a_failed_precondition(tmp_path):
    ctx = empty_home(tmp_path)
    ctx.tagger = KeywordTagger(extra_unit="ku_999")
    with loopback([binding(ctx)]) as channel:
        error = rpc_error(lambda: pb_grpc.TaggerServiceStub(channel).Tag(pb.TagRequest(text="virus"), timeout=5))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and "'ku_999'" in error.details()


def test_an_untagged_home_is_a_failed_precondition(tmp_path):
    with loopback([binding(empty_home(tmp_path))]) as channel:
        error = rpc_error(lambda: pb_grpc.TaggerServiceStub(channel).Tag(pb.TagRequest(text="virus"), timeout=5))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error.details() == "the corpus is not tagged yet; run `scicustom corpus tag`"


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["virus", "bone", "virus bone", "rock"]), min_size=1, max_size=8),
       st.integers(min_value=0, max_value=3))
def test_batch_equals_one_tag_call_per_text(tmp_path_factory, texts, top_k):
    ctx = empty_home(tmp_path_factory.mktemp("h"))
    ctx.tagger = KeywordTagger()
    with loopback([binding(ctx)]) as channel:
        stub = pb_grpc.TaggerServiceStub(channel)
        batch = stub.TagBatch(pb.TagBatchRequest(texts=texts, top_k=top_k), timeout=5)
        single = [stub.Tag(pb.TagRequest(text=t, top_k=top_k), timeout=5).tags for t in texts]
    assert [_units(t) for t in batch.tags] == [_units(t) for t in single]
    assert all(len(t.units) <= (top_k or 3) for t in batch.tags)
