"""`scicustom.cli.main` with generated argv and file contents for a few commands that read user
files: `score m2m`, `compare`, `build --requirement` (in an empty home, so a good requirement ends
at the missing corpus: the requirement's whole validation runs, no build does), `corpus import
--jsonl` and `report BUILD_DIR` (damaged copies of a real build's files).

Property: exit 0, or exit 2 with exactly one stderr line `scicustom: error: ...`; never a traceback
or another code, and nothing written to the output path on exit 2.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.app.build.output_files import render_files
from scicustom.app.build.request import JuryOptions
from scicustom.cli import main
from scicustom.core.build.pipeline import BuildParams, BuildPipeline
from scicustom.core.requirement import requirement_from_text
from tests.fuzz.documents import encoded, json_objects, json_values, jsonl_lines, requirement_documents
from tests.fuzz.fuzz_settings import fuzzed
from tests.fuzz.proto_messages import TEXT
from tests.support.synthetic_world import synthetic_world
from tests.unit.workers.conftest import TEXT as REQUIREMENT_TEXT
from tests.unit.workers.conftest import VERSIONS

# Option values as a shell passes them: numbers at the edges, words, flags where a value belongs.
VALUES = st.one_of(st.sampled_from(["0", "-1", "1", "3", "10", "1001", "1e3", "nan", "", "--", "-x", "abc",
                                    "99999999999999999999"]), TEXT.filter(lambda t: "\x00" not in t))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("cli")


@pytest.fixture
def cli(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """Runs main(argv) in an empty home; returns (exit code, stderr lines)."""
    monkeypatch.setenv("SCICUSTOM_HOME", str(home / "home"))
    monkeypatch.delenv("SCICUSTOM_PROFILE", raising=False)

    def run(argv: list[str]) -> tuple[int, list[str]]:
        capsys.readouterr()
        code = main(argv)
        return code, capsys.readouterr().err.splitlines()
    return run


def check_exit(code: int, stderr: list[str], out: Path | None) -> None:
    assert code in (0, 2), (code, stderr)
    if code == 2:
        assert len(stderr) == 1 and stderr[0].startswith("scicustom: error: "), stderr
        if out is not None:
            assert not out.exists(), f"exit 2 left {out}"
    assert not any("Traceback" in line for line in stderr), stderr


def _options(flags: list[str]) -> st.SearchStrategy[list[str]]:
    return st.lists(st.tuples(st.sampled_from(flags), VALUES), max_size=3).map(
        lambda pairs: [word for pair in pairs for word in pair])


def _file(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def _fresh(path: Path) -> Path:
    if path.is_dir():
        shutil.rmtree(path)
    path.unlink(missing_ok=True)
    return path


# -- score m2m ---------------------------------------------------------------------------------------
_M2M_ROW = {"paper_id": TEXT, "hypothesis": st.just("Heating to 900 C raises the capacity by 5 %."),
            "reasoning_process": st.just("[Begin Step 1] heat [End Step 1]"), "problem_core": TEXT}


@fuzzed()
@given(data=encoded(jsonl_lines(json_objects(list(_M2M_ROW), _M2M_ROW))), suffix=st.sampled_from([".jsonl", ".csv"]),
       options=_options(["--group-by", "--min-group-size", "--id-column", "--system-column"]),
       switches=st.lists(st.sampled_from(["--missing-as-empty", "--word-bounded-terms", "--corrected",
                                          "--unicode-units"]), max_size=2, unique=True))
def test_score_m2m(cli: Any, home: Path, data: bytes, suffix: str, options: list[str], switches: list[str]) -> None:
    out = _fresh(home / "scores.json")
    source = _file(home, f"hypotheses{suffix}", data)
    code, stderr = cli(["score", "m2m", "--input", str(source), "--output", str(out), *options, *switches])
    check_exit(code, stderr, out)


# -- compare -----------------------------------------------------------------------------------------
_RANKING = st.one_of(
    st.dictionaries(st.sampled_from(["m1", "m2", "m3", "m4"]), st.one_of(st.floats(0, 1), json_values()), max_size=4),
    json_objects(["ranking", "models", "metric"], {
        "ranking": st.lists(json_objects(["model", "score", "rank"], {"model": st.sampled_from(["m1", "m2", "m3"]),
                                                                      "score": st.floats(0, 1)}), max_size=4),
        "models": st.dictionaries(st.sampled_from(["m1", "m2", "m3"]), json_objects(["accuracy"]), max_size=3)}),
    json_values())


@fuzzed()
@given(a=_RANKING.map(lambda d: json.dumps(d).encode()), b=st.one_of(
    _RANKING.map(lambda d: json.dumps(d).encode()), st.binary(max_size=64)), write=st.booleans())
def test_compare(cli: Any, home: Path, a: bytes, b: bytes, write: bool) -> None:
    out = _fresh(home / "agreement.json")
    code, stderr = cli(["compare", "--rankings", str(_file(home, "a.json", a)), str(_file(home, "b.json", b)),
                        *(["--out", str(out)] if write else [])])
    check_exit(code, stderr, out)


# -- build --requirement -----------------------------------------------------------------------------
@fuzzed()
@given(document=requirement_documents(), suffix=st.sampled_from([".yaml", ".yml", ".json"]),
       options=_options(["--k1", "--k2", "--proxy-samples", "--seed", "--method", "--relevance-quantile",
                         "--min-items"]))
def test_build_requirement_file(cli: Any, home: Path, document: str, suffix: str, options: list[str]) -> None:
    out = _fresh(home / "build-out")
    requirement = _file(home, f"requirement{suffix}", document.encode("utf-8", "surrogatepass"))
    code, stderr = cli(["build", "--requirement", str(requirement), "--out", str(out), *options])
    check_exit(code, stderr, out)


# -- corpus import --jsonl ---------------------------------------------------------------------------
_ITEM = {"question": st.just("What protects the viral genome?"), "options": st.lists(TEXT, max_size=5),
         "answer_index": st.integers(-1, 5), "answer": TEXT, "subject": TEXT}


@fuzzed()
@given(data=encoded(jsonl_lines(json_objects(list(_ITEM), _ITEM))),
       source=st.one_of(st.just("mine"), VALUES), licence=VALUES)
def test_corpus_import_jsonl(cli: Any, home: Path, data: bytes, source: str, licence: str) -> None:
    items = _file(home, "items.jsonl", data)
    store = home / "home" / "store" / "corpus"
    before = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} if store.is_dir() else {}
    code, stderr = cli(["corpus", "import", "--jsonl", str(items), "--source-name", source, "--licence", licence])
    check_exit(code, stderr, None)
    if code == 2:
        after = {p: p.read_bytes() for p in store.rglob("*") if p.is_file()} if store.is_dir() else {}
        assert after == before, "a refused import changed the corpus"


# -- report BUILD_DIR --------------------------------------------------------------------------------
class BuildFiles(dict[str, str]):
    """A finished build's files; a failing example prints its arguments, so this one's repr is short."""

    def __repr__(self) -> str:
        return f"BuildFiles({', '.join(self)})"


@pytest.fixture(scope="module")
def build_files() -> BuildFiles:
    """A finished build's files (the synthetic world's, as the staged-build tests make them)."""
    requirement = requirement_from_text(REQUIREMENT_TEXT)
    params = BuildParams(k1=2, k2=20, proxy_samples=10, seed=1)
    result = BuildPipeline(synthetic_world()).run(requirement, params)
    return BuildFiles(render_files(requirement, params, JuryOptions(relevance_quantile=0.75), VERSIONS, result, None))


def _replace_at(value: Any, path: list[int], new: Any) -> Any:
    """`value` with the node reached by `path` (indices into dict items / list items) replaced."""
    if not path or not isinstance(value, dict | list) or not value:
        return new
    step, rest = path[0], path[1:]
    if isinstance(value, dict):
        key = list(value)[step % len(value)]
        return {**value, key: _replace_at(value[key], rest, new)}
    index = step % len(value)
    return [*value[:index], _replace_at(value[index], rest, new), *value[index + 1:]]


@dataclass(frozen=True)
class Damage:
    """One change to a build's files (a short repr: a failing example prints it, not the files)."""

    name: str
    how: str            # value, remove, garble
    row: int = 0        # the JSONL row changed
    path: tuple[int, ...] = ()
    new: Any = None

    def apply(self, files: dict[str, str]) -> dict[str, str]:
        out = dict(files)
        text = files[self.name]
        if self.how == "remove":
            del out[self.name]
        elif self.how == "garble" or self.name.endswith(".html"):
            out[self.name] = self.new if isinstance(self.new, str) else text[: len(text) // 2]
        elif self.name.endswith(".jsonl"):
            lines = text.splitlines()
            if lines:
                row = self.row % len(lines)
                lines[row] = _json_replaced(lines[row], self.path, self.new)
            out[self.name] = "\n".join(lines) + "\n"
        else:
            out[self.name] = _json_replaced(text, self.path, self.new)
        return out


def _json_replaced(text: str, path: tuple[int, ...], new: Any) -> str:
    try:
        document = json.loads(text)
    except ValueError:  # garbled by an earlier damage: stays so
        return text
    return json.dumps(_replace_at(document, list(path), new))


def _damages(names: list[str]) -> st.SearchStrategy[Damage]:
    value = st.builds(Damage, st.sampled_from(names), st.just("value"), st.integers(0, 200),
                      st.lists(st.integers(0, 50), max_size=4).map(tuple), json_values())
    other = st.builds(Damage, st.sampled_from(names), st.sampled_from(["remove", "garble"]),
                      new=st.one_of(st.none(), TEXT))
    return st.one_of(value, value, value, other)


@fuzzed()
@given(data=st.data())
def test_report_of_a_damaged_build_folder(cli: Any, home: Path, build_files: dict[str, str],
                                          data: st.DataObject) -> None:
    folder = _fresh(home / "build")
    folder.mkdir()
    damages = data.draw(st.lists(_damages(sorted(build_files)), min_size=1, max_size=3), label="damages")
    files = build_files
    for damage in damages:
        if damage.name in files:
            files = damage.apply(files)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    out = _fresh(home / "report.html")
    code, stderr = cli(["report", str(folder), "--out", str(out)])
    check_exit(code, stderr, out)


# -- found by this fuzzing: each input as a plain test -------------------------------------------------
def _edited(files: dict[str, str], name: str, key: str, value: Any) -> dict[str, str]:
    """`files` with `key` of the JSON document `name` (of its first row, for JSONL) set to `value`."""
    if name.endswith(".jsonl"):
        rows = [json.loads(line) for line in files[name].splitlines()]
        rows[0][key] = value
        return {**files, name: "".join(json.dumps(r) + "\n" for r in rows)}
    return {**files, name: json.dumps({**json.loads(files[name]), key: value})}


@pytest.mark.parametrize(("name", "key", "value", "problem"), [
    # AttributeError, KeyError, TypeError and plotly's "Integer exceeds 64-bit range" from the renderer.
    ("config.json", "requirement", 1, "config.json: requirement: expected an object"),
    ("cutoff.json", "cut_set_scores", [{"hardness": 1.0, "quality": 2.0}],
     "cutoff.json: cut_set_scores[0].id: expected anything (it is missing)"),
    ("proxy.jsonl", "hardness", 2**70, "proxy.jsonl line 1: hardness: expected a finite number"),
    ("voting.json", "units", [{"name": ["x"], "consensus_rank": 1}], "voting.json: units[0].name: expected text"),
])
def test_found_a_damaged_build_folder_is_one_clear_error(cli: Any, home: Path, build_files: dict[str, str],
                                                         name: str, key: str, value: Any, problem: str) -> None:
    folder = _fresh(home / "damaged")
    folder.mkdir()
    for file_name, text in _edited(build_files, name, key, value).items():
        (folder / file_name).write_text(text, encoding="utf-8")
    out = _fresh(home / "damaged.html")
    code, stderr = cli(["report", str(folder), "--out", str(out)])
    check_exit(code, stderr, out)
    assert code == 2 and problem in stderr[0], stderr


def test_found_two_accepted_items_at_one_position_still_render(cli: Any, home: Path,
                                                               build_files: dict[str, str]) -> None:
    # sorted() compared the two items' vote dicts: TypeError.
    rows = [json.loads(line) for line in build_files["candidates.jsonl"].splitlines()]
    cutoff = json.loads(build_files["cutoff.json"])
    first, second = rows[0]["id"], rows[1]["id"]
    rows[1]["rank"] = rows[0]["rank"]
    cutoff["accepted_votes"] = {first: {"a": True}, second: {"a": False}}
    folder = _fresh(home / "same-position")
    folder.mkdir()
    files = {**build_files, "candidates.jsonl": "".join(json.dumps(r) + "\n" for r in rows),
             "cutoff.json": json.dumps(cutoff)}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    out = _fresh(home / "same-position.html")
    assert cli(["report", str(folder), "--out", str(out)])[0] == 0 and out.is_file()


def test_found_a_ranking_score_past_floats_range_is_one_clear_error(cli: Any, home: Path) -> None:
    # math.isfinite(10**400) raised OverflowError: a traceback.
    a = _file(home, "huge.json", b'{"m1": 1' + b"0" * 400 + b', "m2": 0.5}')
    b = _file(home, "plain.json", b'{"m1": 0.1, "m2": 0.5}')
    code, stderr = cli(["compare", "--rankings", str(a), str(b)])
    check_exit(code, stderr, None)
    assert code == 2 and "needs a finite numeric score" in stderr[0]


def test_found_an_error_quoting_a_line_break_is_still_one_line(cli: Any, home: Path) -> None:
    # The message quoted a path with a line break: stderr had two lines.
    missing = home / "no\nsuch.json"
    code, stderr = cli(["compare", "--rankings", str(missing), str(missing)])
    check_exit(code, stderr, None)
    assert code == 2 and "no\\nsuch.json" in stderr[0]


def test_found_a_column_named_by_nothing_is_named_by_the_input(cli: Any, home: Path) -> None:
    # The m2m reader named the column "" (and "\n") whose value is not text: ": row 1: ...".
    for data, column in ((b'{"": [1]}\n', "''"), (b'{"\\n": [1]}\n', "'\\n'")):
        out = _fresh(home / "scores.json")
        code, stderr = cli(["score", "m2m", "--input", str(_file(home, "odd-column.jsonl", data)),
                            "--output", str(out)])
        check_exit(code, stderr, out)
        assert stderr == [f"scicustom: error: input: row 1, column {column}: expected a string, got list"]
