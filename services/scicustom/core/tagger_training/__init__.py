"""Training data, metrics and decoding for the trained tagger (SciCustom section 2.3, 3.3)."""
