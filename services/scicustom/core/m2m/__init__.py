"""Matter to Mechanism (paper 001): the programmatic hypothesis metrics rcf, hpa, msi, sns, ip, pdq, cbs
and the validation reports around them (error taxonomy, weight sensitivity, reference-based metrics,
gaming attacks, pairwise LLM judge)."""
