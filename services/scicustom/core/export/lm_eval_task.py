"""lm-evaluation-harness task configurations for an exported benchmark.

Two tasks read the same data file, with the prompts `scicustom evaluate` gives a local causal LM
(core/evaluation/prompt.py): `<task>` scores the option labels after the query with its options
listed (the paper's format, as MMLU is run), `<task>_cloze` scores the option texts after the stem.
Both are `multiple_choice` tasks; the target is `answer_index` into that task's choices.
"""

from __future__ import annotations

from typing import Any

_ACCURACY = {"metric": "acc", "aggregation": "mean", "higher_is_better": True}
_LENGTH_NORMALISED = {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True}


def lm_eval_tasks(task: str, data_file: str) -> dict[str, dict[str, Any]]:
    """YAML file name -> task config. `data_file` is the absolute path of the data file:
    lm-eval hands it to `datasets`, which resolves a relative path against the working directory."""
    common: dict[str, Any] = {
        "dataset_path": "json",
        "dataset_kwargs": {"data_files": {"test": data_file}},
        "test_split": "test",
        "output_type": "multiple_choice",
        "doc_to_target": "answer_index",
        "metadata": {"version": 1.0},
    }
    return {
        f"{task}.yaml": {"task": task, **common, "doc_to_text": "Question: {{query}}\nAnswer:",
                         "doc_to_choice": "labels", "metric_list": [_ACCURACY]},
        f"{task}_cloze.yaml": {"task": f"{task}_cloze", **common, "doc_to_text": "Question: {{question}}\nAnswer:",
                               "doc_to_choice": "choices", "metric_list": [_ACCURACY, _LENGTH_NORMALISED]},
    }
