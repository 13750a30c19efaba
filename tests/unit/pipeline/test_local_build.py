"""The embedded build use case (app/build/local.py) on the synthetic world: the output directory is
checked once, before anything is assembled, and the files are the rendered ones."""

from __future__ import annotations

import pytest

from scicustom.app.build import local
from scicustom.app.build.output_files import render_files
from scicustom.app.build.request import BuildOptions, RequirementSource, validated_request
from scicustom.core.build.pipeline import BuildPipeline
from scicustom.core.errors import InvalidInput
from tests.support.synthetic_world import synthetic_world

TEXT = "virology: virus capsid, viral genome and virus replication in the host cell"
VERSIONS = {"n_items": 240, "corpus": "synthetic"}
REQUEST = validated_request(RequirementSource(text=TEXT),
                            BuildOptions(k1=2, k2=20, proxy_samples=10, seed=1, relevance_quantile=0.75))


def _assemble(requirement, seed, jury, progress):
    return synthetic_world(), VERSIONS


def test_the_files_are_the_rendered_build_and_the_output_is_checked_once(tmp_path, monkeypatch):
    checks = []
    check = local.check_output_dir
    monkeypatch.setattr(local, "check_output_dir", lambda out, force: (checks.append(out), check(out, force)))
    out = tmp_path / "out"
    build = local.run_local_build(REQUEST, out, False, _assemble, lambda stage, done, total: None)
    assert checks == [out]
    result = BuildPipeline(synthetic_world()).run(REQUEST.requirement, REQUEST.params)
    expected = render_files(REQUEST.requirement, REQUEST.params, REQUEST.jury, VERSIONS, result, None)
    assert build.files == expected
    assert {p.name: p.read_text() for p in out.iterdir()} == expected
    assert build.summary["n_mcq"] == len(result.benchmark) and build.summary["method"] == "scicustom"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no staging directory left behind


def test_an_existing_output_is_refused_before_the_world_is_assembled(tmp_path):
    (tmp_path / "out").mkdir()

    def never(*args):
        raise AssertionError("assembled a world for a refused --out")

    with pytest.raises(InvalidInput, match=r"^--out: .* already exists; pass --force to replace it"):
        local.run_local_build(REQUEST, tmp_path / "out", False, never, lambda stage, done, total: None)
    local.run_local_build(REQUEST, tmp_path / "out", True, _assemble, lambda stage, done, total: None)
    assert (tmp_path / "out/benchmark.jsonl").is_file()


def test_force_replaces_a_previous_build_but_never_another_folder(tmp_path):
    """`--force` pointed at a folder holding a thesis deleted it; now only builds are replaced."""
    thesis = tmp_path / "thesis"
    thesis.mkdir()
    (thesis / "chapter1.tex").write_text("years of work")
    (thesis / "config.json").write_text('{"latex": true}')

    def never(*args):
        raise AssertionError("assembled a world for a refused --out")

    with pytest.raises(InvalidInput, match=r"^--out: .* is not a previous build"):
        local.run_local_build(REQUEST, thesis, True, never, lambda stage, done, total: None)
    assert (thesis / "chapter1.tex").read_text() == "years of work"
    out = tmp_path / "out"
    local.run_local_build(REQUEST, out, False, _assemble, lambda stage, done, total: None)
    (out / "notes.txt").write_text("a previous build, with a file added by hand")
    local.run_local_build(REQUEST, out, True, _assemble, lambda stage, done, total: None)  # a build: replaced
    assert not (out / "notes.txt").exists() and (out / "benchmark.jsonl").is_file()
