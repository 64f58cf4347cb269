"""The seeds the paper reports (Appendix A/B), defined once: every default that draws
randomness starts from one of these, and every run records the ones it used."""

GENERATION_SEED = 830000
"""First ``env.reset`` seed drawn when generating trajectory groups."""

SAMPLING_SEED = 42
"""Seeds item sampling inside a task (Task A questions and candidates, B frames, E prefixes)."""

BOOTSTRAP_SEED = 20261103
"""Seeds the group bootstrap of every confidence interval."""
