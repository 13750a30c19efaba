"""The trained tagger: training, ONNX export, evaluation and serving (KServe / Triton)."""
