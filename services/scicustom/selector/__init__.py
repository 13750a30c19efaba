"""SelectorService: the proxy subset of SciCustom section 2.5 over gRPC (servicer.py)."""
