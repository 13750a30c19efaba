from __future__ import annotations

import json

import pytest

from scicustom.adapters.ontology_store import SqliteOntologyStore
from scicustom.cli import main
from scicustom.core.units import UnitCatalog


def _obo() -> str:
    terms = ["[Term]\nid: T:0\nname: science topic\n"]
    for block, (name, kids) in enumerate([("organic chemistry", "reaction"), ("cell biology", "organelle")], 1):
        terms.append(f"[Term]\nid: T:{block}00\nname: {name}\nsynonym: \"{name} studies\" EXACT []\nis_a: T:0\n")
        for i in range(1, 11):
            terms.append(f"[Term]\nid: T:{block}{i:02d}\nname: {kids} kind {i}\nis_a: T:{block}00\n")
    return "format-version: 1.2\nontology: t\n\n" + "\n".join(terms)


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    path = tmp_path / "topics.obo"
    path.write_text(_obo(), encoding="utf-8")
    assert main(["ontology", "import", "--obo", str(path)]) == 0
    return tmp_path / "home"


def test_store_round_trip_keeps_stats_and_report(home):
    store = SqliteOntologyStore(home / "ontology" / "ontology.sqlite")
    (row,) = store.report()
    assert (row.name, row.terms, row.edges, row.roots, row.max_depth, row.cycle_edges) == ("topics", 23, 22, 1, 2, [])
    dag = store.load_dag("topics")
    assert dag.stat("T:0").n_descendants == 22 and dag.stat("T:100").n_descendants == 10
    assert dag.nodes["T:100"].synonyms == ("organic chemistry studies",)
    store.close()


def test_keywords_command_anchors_units_and_writes_keywords(home, tmp_path, capsys):
    units = {"version": "x", "knowledge_units": [
        {"id": "u1", "name": "Organic chemistry", "domain": "chemistry"},
        {"id": "u2", "name": "Cell biology studies", "domain": "biology"},
        {"id": "u3", "name": "Astrology", "domain": "other"},
        {"id": "u4", "name": "Non-Scientific", "domain": "non-scientific"}]}
    src = tmp_path / "units.json"
    src.write_text(json.dumps(units), encoding="utf-8")
    out = tmp_path / "with_keywords.json"
    assert main(["ontology", "keywords", "--units", str(src), "--out", str(out), "--no-embedding",
                 "--max-keywords", "5"]) == 0
    data = json.loads(out.read_text())
    first, second, third, non_scientific = data["knowledge_units"]
    assert first["anchors"] == [{"source": "topics", "node_id": "T:100", "label": "organic chemistry",
                                 "method": "exact", "score": 1.0}]
    assert first["keywords"] == ["organic chemistry studies", "reaction kind 1", "reaction kind 10",
                                 "reaction kind 2", "reaction kind 3"]
    assert second["anchors"][0]["method"] == "synonym" and second["keywords"][0] == "cell biology"
    assert third["anchors"] == [] and third["keywords"] == []
    assert non_scientific["anchors"] == []
    assert UnitCatalog.from_mapping(data).by_id("u1").keywords == tuple(first["keywords"])
    printed = capsys.readouterr().out
    assert '"anchored": 2' in printed and "u3 Astrology: 0 keywords" in printed
    coverage = json.loads((home / "ontology" / "keywords_coverage.json").read_text())
    assert coverage["units"] == 3 and [t["id"] for t in coverage["thin"]] == ["u3"]
    # Only the default unit set is also written to the store directory.
    assert not (home / "ontology" / "knowledge_units_with_keywords.json").exists()


def test_units_command_with_an_llm_judge(home, tmp_path, recorded_llm, capsys):
    recorded_llm.rules += [("term: science topic.", "(too coarse); broad"),
                           ("term: organic chemistry.", "**(moderate)** a textbook chapter"),
                           ("Answer with exactly one of", "still unsure"),
                           ("term: cell biology.", "Hmm.")]
    out = tmp_path / "units.json"
    assert main(["ontology", "units", "--judge", "llm", "--model", "openai/judge-a",
                 "--api-base", recorded_llm.api_base, "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    catalog = UnitCatalog.from_mapping(data)
    assert [u.name for u in catalog] == ["Organic chemistry", "Non-Scientific"]
    assert catalog.units[0].keywords[:2] == ("organic chemistry studies", "reaction kind 1")
    assert data["selection"]["judged"] == {"coarse": 1, "moderate": 1, "fine": 1}
    assert data["knowledge_units"][0]["anchors"][0]["node_id"] == "T:100"
    assert "1 answers named no label" in capsys.readouterr().err
    # 3 judged nodes + 1 retry for the unparsable answer.
    assert len(recorded_llm.calls) == 4


@pytest.mark.parametrize(("argv", "message"), [
    (["units", "--judge", "llm", "--out", "x.json"], "--model"),
    (["units", "--source", "nope", "--out", "x.json"], "not imported"),
    (["keywords", "--units", "missing.json", "--out", "x.json"], "cannot read"),
    (["units", "--min-descendants", "0", "--out", "x.json"], "--min-descendants"),
])
def test_bad_input_exits_2(home, tmp_path, capsys, argv, message):
    argv = [str(tmp_path / a) if a.endswith(".json") else a for a in argv]
    assert main(["ontology", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_offline_judge_learns_from_the_default_units(home, tmp_path, capsys):
    # The default units anchor "organic chemistry" and "cell biology" in the tiny ontology; the
    # offline judge learns from them (MiniLM similarity + structure) and Algorithm 1 finds both.
    assert main(["ontology", "keywords", "--out", str(tmp_path / "kw.json"), "--no-embedding"]) == 0
    stored = json.loads((home / "ontology" / "knowledge_units_with_keywords.json").read_text())
    assert len(stored["knowledge_units"]) == 642
    out = tmp_path / "units.json"
    assert main(["ontology", "units", "--out", str(out)]) == 0
    names = [u["name"] for u in json.loads(out.read_text())["knowledge_units"]]
    assert names == ["Organic chemistry", "Cell biology", "Non-Scientific"]
    assert main(["ontology", "agreement", "--folds", "2"]) == 0
    report = json.loads((home / "ontology" / "judge_agreement.json").read_text())
    # Ratio >= 85 also pairs "organic chemistry" with "Inorganic chemistry" (94) and "Bioinorganic
    # chemistry" (87): 4 default units are matchable, and the in-sample selection matches all 4.
    assert report["ceiling"]["matchable"] == 4
    assert report["in_sample"]["found"] == 2 and report["in_sample"]["reference_matched"] == 4
    assert len(report["cross_validation"]["per_fold"]) == 2
