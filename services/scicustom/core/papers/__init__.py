"""Papers: reading document formats into one parsed form, and extracting grounded instances from it."""
