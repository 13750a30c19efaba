"""The trained tagger's entry points: TaggerService (gRPC), the KServe model server and the Triton
Python-backend models. Training, evaluation and export are use cases in `scicustom.app.tagging`."""
