"""Gate checks every world shares (a world's own gates live in its package)."""

from __future__ import annotations


def d2_reason(full, nocue, cf, *, truncation_ends: bool) -> str | None:
    """Gate D2 of any world: Full and NoCue take every action (one state more than actions),
    CF may stop early only when its episode ended. ``truncation_ends``: whether a truncated
    episode counts as ended (MiniGrid: yes; MiniWorld: no, only termination does)."""
    for name, r in (("full", full), ("nocue", nocue)):
        if len(r.states) != len(r.actions) + 1 or r.steps != len(r.actions):
            return f"{name}: {len(r.states)} states for {len(r.actions)} actions"
    if len(cf.states) != cf.steps + 1 or cf.steps > len(cf.actions):
        return f"cf: {len(cf.states)} states for {cf.steps} steps"
    ended = cf.terminated or (truncation_ends and cf.truncated)
    if cf.steps < len(cf.actions) and not ended:
        return "cf stopped early without terminating"
    return None
