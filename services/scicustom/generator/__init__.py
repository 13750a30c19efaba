"""GeneratorService: selected items -> MCQs as a build makes them (servicer.py); the offline
distractor sources (neighbour_answers.py, distractor_corpus.py) and the per-item conversion
(core/build/mcq.py)."""
