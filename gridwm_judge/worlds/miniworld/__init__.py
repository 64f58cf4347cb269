"""MiniWorld (3D) world: cards, controller, Full / NoCue / CF variants, gates, rendering and
audit records replayable with plain miniworld. Needs the ``3d`` extra.

Importing this package imports neither miniworld nor gymnasium; the names below load their
module on first use.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "FAMILIES": "cards", "FAMILY_GROUP": "cards", "CARDS": "cards", "WorldCard": "cards",
    "get_card": "cards", "MiniWorldGroup": "records", "build_group": "variants",
    "generate_groups": "variants", "try_seed": "variants", "run_gates": "gates",
    "GATES": "gates", "apply_ops": "interventions", "render_variant": "render",
    "MINIWORLD": "render", "MiniWorldView": "render", "write_groups_jsonl": "audit",
    "read_groups_jsonl": "audit", "require_miniworld": "backend",
    "MissingExtraError": "backend", "generate_hard_groups": "hard",
    "build_hard_group": "hard", "try_hard_seed": "hard", "HARD_GATES": "hard",
    "HARD_CF": "hard",
}
__all__ = sorted(_EXPORTS)  # pyright: ignore[reportUnsupportedDunderAll]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
