"""SciIF: scientific instruction-following audit (paper 002): catalog, rules, dual judges, reports."""
