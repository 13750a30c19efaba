"""Implementations of the ports in `scicustom.ports`, one module per adapter."""
