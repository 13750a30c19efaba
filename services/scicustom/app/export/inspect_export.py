"""The inspect_ai export: Sample records, a task file that loads them, and a README."""

from __future__ import annotations

from pathlib import Path

from scicustom.app.build.output_writer import canonical_jsonl
from scicustom.app.export.export_readme import export_readme
from scicustom.app.export.finished_build import FinishedBuild
from scicustom.core.export.inspect_samples import inspect_sample

SAMPLES = "samples.jsonl"

_TASK_FILE = '''"""{task}: the SciCustom benchmark for `{requirement}` as an inspect_ai task.

Run it with `inspect eval {task}.py --model <model>`.
"""

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice


@task
def {task}() -> Task:
    # The records use inspect's own field names (input, choices, target, id, metadata): no FieldSpec.
    dataset = json_dataset(str(Path(__file__).parent / "{samples}"))
    return Task(dataset=dataset, solver=multiple_choice(), scorer=choice())
'''


def inspect_files(build: FinishedBuild, out: Path) -> dict[str, str | bytes]:
    task, requirement = build.facts.task_name, build.facts.requirement_name
    usage = f"""## Use with inspect_ai

```
inspect eval {task}.py --model <model>
```

or load the samples yourself: `inspect_ai.dataset.json_dataset("{SAMPLES}")`. Each line of `{SAMPLES}`
is a `Sample` with inspect's own field names, so the default field mapping reads it:

- `input`: the stem; `multiple_choice()` lists the `choices` itself, lettered A, B, ...
- `choices`: the option texts in order; `target`: the correct letter; `id`: the question's id
- `metadata`: `requirement`, `query` (the paper's format, stem and lettered options), `answer_index`,
  `source`, `licence`, `units`, `source_item_id`, `candidate_rank`, `distractor_method`"""
    return {
        SAMPLES: canonical_jsonl(inspect_sample(item, requirement) for item in build.items),
        f"{task}.py": _TASK_FILE.format(task=task, requirement=requirement, samples=SAMPLES),
        "README.md": export_readme(build, f"{task} (inspect_ai dataset)", usage),
    }
