"""TaggerClient against the real TaggerService: typed units per text, and a model server that is
down answered UNAVAILABLE, retried, then reported with its code."""

from __future__ import annotations

import grpc
import pytest

from scicustom.client import ClientOptions, RetryPolicy, TaggedUnit, TaggerClient, UnavailableError
from scicustom.tagger.servicer import binding
from tests.unit.client.conftest import serving
from tests.unit.grpc_services.corpus_home import empty_home
from tests.unit.grpc_services.test_tagger_service import KeywordTagger

RETRY = RetryPolicy(max_attempts=3, initial_backoff_s=0.01, max_backoff_s=0.02)


def test_tag_one_text_or_many_as_typed_units(tmp_path):
    ctx = empty_home(tmp_path)
    ctx.tagger = KeywordTagger()
    with serving([binding(ctx)]) as address, TaggerClient(address, ClientOptions(retry=RETRY)) as tagger:
        one = tagger.tag("a virus capsid", top_k=1)
        many = tagger.tag(["a virus capsid", "bone density", "poetry"])
    assert one.units == ((TaggedUnit("u1", "Virology", pytest.approx(0.9)),),) and one.tagger_version == "keywords-v1"
    assert [[u.unit_id for u in units] for units in many.units] == [["u1", "u4"], ["u3"], []]


def test_a_failing_model_server_is_retried_then_reported(tmp_path):
    ctx = empty_home(tmp_path)
    ctx.tagger = KeywordTagger(fail=True)
    with serving([binding(ctx)]) as address, TaggerClient(address, ClientOptions(retry=RETRY)) as tagger, \
            pytest.raises(UnavailableError) as error:
        tagger.tag("a virus capsid")
    assert error.value.code == grpc.StatusCode.UNAVAILABLE and "tagger model server failed" in error.value.details
    assert len(ctx.tagger.calls) == 3
