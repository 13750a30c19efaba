"""`build --since`: diff.json between two builds (core/build/build_diff.py, app/build/since.py)."""

from __future__ import annotations

import json

import pytest

from scicustom.app.build import local
from scicustom.app.build.request import BuildOptions, RequirementSource, validated_request
from scicustom.core.build.build_diff import build_diff, parse_build_files
from scicustom.core.errors import InvalidInput
from tests.support.synthetic_world import synthetic_world

TEXT = "virology: virus capsid, viral genome and virus replication in the host cell"
VERSIONS = {"n_items": 240, "corpus": "synthetic"}


def _request(k2: int):
    return validated_request(RequirementSource(text=TEXT),
                             BuildOptions(k1=2, k2=k2, proxy_samples=10, seed=1, relevance_quantile=0.75))


def _assemble(requirement, seed, jury, progress):
    return synthetic_world(), VERSIONS


def _files(ids, units, corpus="v1"):
    return {
        "benchmark.jsonl": "".join(json.dumps({"id": i, "query": "q", "answer": "A"}) + "\n" for i in ids),
        "coverage.json": json.dumps({"units": [{"id": u, "name": u.upper(), "corpus_items": n, "relevant": r,
                                                "in_benchmark": b} for u, (n, r, b) in units.items()]}),
        "voting.json": json.dumps({"units": [{"id": u, "name": u.upper()} for u in units]}),
        "config.json": json.dumps({"requirement": {"name": "r"}, "corpus": {"tagger_version": corpus}}),
    }


def test_diff_names_added_removed_and_kept_questions_and_changed_units():
    before = parse_build_files(_files(["a", "b", "c"], {"u1": (10, 3, 2), "u2": (5, 1, 1)}), "prev")
    after = parse_build_files(_files(["c", "d", "a"], {"u1": (12, 5, 2), "u3": (4, 2, 1)}, "v2"), "now")
    diff = build_diff(before, after, "runs/old")
    assert diff["questions"] == {"added": ["d"], "removed": ["b"], "kept": ["c", "a"], "n_before": 3, "n_after": 3}
    assert diff["voted_units"] == {"gained": [{"id": "u3", "name": "U3"}], "lost": [{"id": "u2", "name": "U2"}]}
    changed = {c["id"]: c for c in diff["coverage_changed"]}
    assert set(changed) == {"u1", "u2", "u3"}
    assert changed["u1"]["relevant"] == {"before": 3, "after": 5}
    assert changed["u2"]["relevant"] == {"before": 1, "after": None}
    assert diff["corpus"]["after"] == {"tagger_version": "v2"} and not diff["requirement_changed"]


def test_a_directory_that_is_not_a_build_is_refused_with_the_flag():
    files = _files(["a"], {})
    del files["coverage.json"]
    with pytest.raises(InvalidInput, match=r"^--since: not a build output: coverage.json missing"):
        parse_build_files(files, "--since")
    files = _files(["a"], {})
    files["benchmark.jsonl"] = "{not json\n"
    with pytest.raises(InvalidInput, match=r"^--since: unreadable build output"):
        parse_build_files(files, "--since")


def test_a_rebuild_since_a_previous_build_writes_diff_json_beside_the_other_files(tmp_path):
    silent = lambda stage, done, total: None  # noqa: E731
    first = local.run_local_build(_request(20), tmp_path / "first", False, _assemble, silent)
    assert "diff.json" not in first.files
    second = local.run_local_build(_request(8), tmp_path / "second", False, _assemble, silent, tmp_path / "first")
    diff = json.loads((tmp_path / "second/diff.json").read_text())
    old = [json.loads(x)["id"] for x in first.files["benchmark.jsonl"].splitlines()]
    new = [json.loads(x)["id"] for x in second.files["benchmark.jsonl"].splitlines()]
    assert diff["questions"]["kept"] == [i for i in new if i in old]
    assert diff["questions"]["removed"] == [i for i in old if i not in new] and diff["questions"]["removed"]
    assert diff["previous"] == str(tmp_path / "first")
    assert second.summary["diff"].startswith(f"since {tmp_path / 'first'}: ")
    same = local.run_local_build(_request(20), tmp_path / "same", False, _assemble, silent, tmp_path / "first")
    assert json.loads(same.files["diff.json"])["questions"]["added"] == []


def test_a_wrong_since_is_refused_before_the_world_is_assembled(tmp_path):
    def never(*args):
        raise AssertionError("assembled a world for a refused --since")

    with pytest.raises(InvalidInput, match=r"^--since: .* is not a directory"):
        local.run_local_build(_request(8), tmp_path / "out", False, never, lambda *a: None, tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidInput, match=r"^--since: not a build output"):
        local.run_local_build(_request(8), tmp_path / "out", False, never, lambda *a: None, tmp_path / "empty")
    assert not (tmp_path / "out").exists()
