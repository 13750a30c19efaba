"""GeneratorService: selected items -> MCQs as a build makes them (servicer.py over
app/mcq_generation.py; offline distractors from app/distractor_corpus.py, the per-item conversion
in core/build/mcq.py)."""
