"""The simulated worlds, as siblings: ``minigrid`` (2D grids) and ``miniworld`` (3D rooms), both
on ``core``, the world-neutral part (audited records, the seed-draw loop, shared gates, the audit
JSONL writer). ``commands`` is the ``groups`` command above both. Nothing here knows images,
prompts or judges."""
