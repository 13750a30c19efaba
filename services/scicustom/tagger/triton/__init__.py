"""Triton Python-backend models of the tagger ensemble (copied into the model repository as model.py)."""
