"""Ingestion: bringing corpus items in from packaged sources and user files."""
