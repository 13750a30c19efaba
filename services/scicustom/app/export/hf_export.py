"""The Hugging Face export: a `datasets.Dataset.save_to_disk` folder (read it back with
`datasets.load_from_disk`) whose README.md is the dataset card.

`datasets` is imported only when this format is asked for: no other command needs it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from scicustom.app.export.export_readme import export_readme
from scicustom.app.export.finished_build import FinishedBuild
from scicustom.core.export.dataset_card import card_header
from scicustom.core.export.export_items import fields_markdown, item_row


def _features(datasets: Any) -> Any:
    """Column types fixed up front, so the schema does not depend on which values occur."""
    text, texts = datasets.Value("string"), datasets.List(datasets.Value("string"))
    return datasets.Features({
        "id": text, "question": text, "choices": texts, "answer_index": datasets.Value("int32"), "answer": text,
        "query": text, "source": text, "licence": text, "units": texts, "source_item_id": text,
        "candidate_rank": datasets.Value("int32"), "distractor_method": text})


def _saved_dataset(build: FinishedBuild) -> dict[str, str | bytes]:
    import datasets  # slow to import: only this format needs it
    header = card_header(build.facts, build.items)
    features = _features(datasets)
    info = datasets.DatasetInfo(description=header["pretty_name"], license=header["license_name"], features=features)
    dataset = datasets.Dataset.from_list([item_row(item) for item in build.items], features=features, info=info)
    bars_were_off = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()   # a CLI prints its own summary, not tqdm bars
    try:
        with tempfile.TemporaryDirectory(prefix="scicustom-hf-") as tmp:
            dataset.save_to_disk(tmp)
            saved = sorted(Path(tmp).iterdir())
            if any(not path.is_file() for path in saved):
                raise RuntimeError(f"save_to_disk wrote a sub-directory: {[p.name for p in saved]}")
            return {path.name: path.read_bytes() for path in saved}
    finally:
        if not bars_were_off:
            datasets.enable_progress_bars()


def hf_files(build: FinishedBuild, out: Path) -> dict[str, str | bytes]:
    files = _saved_dataset(build)
    usage = f"""## Load

```python
import datasets
ds = datasets.load_from_disk("{out}")
```

## Fields

{fields_markdown()}"""
    files["README.md"] = export_readme(build, f"SciCustom benchmark: {build.facts.requirement_name}", usage,
                                       header=card_header(build.facts, build.items))
    return files
