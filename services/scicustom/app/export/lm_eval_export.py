"""The lm-evaluation-harness export: two task YAMLs and their data file (core/export/lm_eval_task.py)."""

from __future__ import annotations

from pathlib import Path

import yaml

from scicustom.app.build.output_writer import canonical_jsonl
from scicustom.app.export.export_readme import export_readme
from scicustom.app.export.finished_build import FinishedBuild
from scicustom.core.export.export_items import fields_markdown, item_row
from scicustom.core.export.lm_eval_task import lm_eval_tasks


def lm_eval_files(build: FinishedBuild, out: Path) -> dict[str, str | bytes]:
    """`out` is the absolute path the export will have: the YAMLs name their data file by it."""
    task = build.facts.task_name
    data_name = f"{task}.jsonl"
    configs = lm_eval_tasks(task, str(out / data_name))
    files: dict[str, str | bytes] = {
        name: yaml.safe_dump(config, sort_keys=False, allow_unicode=True) for name, config in configs.items()}
    # `labels` are the choices of the label-scoring task: A, B, ... as many as the question has.
    files[data_name] = canonical_jsonl({**item_row(item), "labels": item.labels} for item in build.items)
    usage = f"""## Use with lm-evaluation-harness

```
lm_eval --model hf --model_args pretrained=<model> --include_path {out} --tasks {task},{task}_cloze
```

- `{task}`: the query with its options listed, then `Answer:`; the model's log-likelihood of each label
  (` A`, ` B`, ...) is compared (the paper's format, as MMLU is run).
- `{task}_cloze`: the stem, then `Answer:`; the option texts themselves are compared.

Both read `{data_name}` (`dataset_path: json`) by its absolute path: after moving this folder, edit
`data_files` in the two YAML files or export again. Each row of the data file holds:

{fields_markdown()}
- `labels`: the labels of the question's options, `A` to `E`"""
    files["README.md"] = export_readme(build, f"{task} (lm-evaluation-harness tasks)", usage)
    return files
