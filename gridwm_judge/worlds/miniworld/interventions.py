"""Counterfactual entity operations, applied in order right after ``env.reset(seed=seed)``.

``{"op": "move_entity", "index": i, "pos": [x, y, z]}`` (optional ``"dir"``),
``{"op": "swap_entities", "a": i, "b": j}`` (exchange positions and headings) and
``{"op": "set", "attr": NAME, "value": V}`` (an env attribute that decides the outcome).
Indices are positions in ``env.unwrapped.entities`` as they are right after reset. Static
entities (signs, drawn once into a display list) cannot be moved: the change would not show.
This module needs nothing but the env, so docs/miniworld.md's replay snippet mirrors it line
by line.
"""

from __future__ import annotations

OPS: tuple[str, ...] = ("move_entity", "swap_entities", "set")


def _entity(u, i, op):
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(u.entities):
        raise ValueError(f"{op['op']}: entity index {i!r} out of range 0..{len(u.entities) - 1}")
    ent = u.entities[i]
    if ent is u.agent or ent.is_static:
        raise ValueError(f"{op['op']}: entity {i} ({type(ent).__name__}) cannot be moved")
    return ent


def check_op(op: dict, settable: tuple[str, ...] = ()) -> None:
    """Raise ValueError naming the problem unless ``op`` is a well-formed operation."""
    kind = op.get("op") if isinstance(op, dict) else None
    if kind not in OPS:
        raise ValueError(f"unknown intervention op {kind!r}; expected one of {', '.join(OPS)}")
    need = {"move_entity": ("index", "pos"), "swap_entities": ("a", "b"),
            "set": ("attr", "value")}[kind]
    missing = [k for k in need if k not in op]
    if missing:
        raise ValueError(f"{kind} op lacks {', '.join(missing)}: {op!r}")
    if kind == "move_entity" and (not isinstance(op["pos"], list) or len(op["pos"]) != 3):
        raise ValueError(f"move_entity pos must be [x, y, z], got {op['pos']!r}")
    if kind == "set" and op["attr"] not in settable:
        raise ValueError(f"set: attribute {op['attr']!r} is not settable here; allowed: "
                         f"{', '.join(settable) or 'none'}")


def apply_ops(u, ops, settable: tuple[str, ...] = ()) -> None:
    """Apply ``ops`` to the freshly reset env ``u`` (``env.unwrapped``), in order."""
    import numpy as np

    for op in ops:
        check_op(op, settable)
        if op["op"] == "move_entity":
            ent = _entity(u, op["index"], op)
            ent.pos = np.array(op["pos"], dtype=float)
            if "dir" in op:
                ent.dir = float(op["dir"])
        elif op["op"] == "swap_entities":
            a, b = _entity(u, op["a"], op), _entity(u, op["b"], op)
            a.pos, b.pos = b.pos, a.pos
            a.dir, b.dir = b.dir, a.dir
        else:
            setattr(u, op["attr"], op["value"])


def touched(ops) -> set[int]:
    """Entity indices an intervention changes."""
    out: set[int] = set()
    for op in ops:
        if op["op"] == "move_entity":
            out.add(op["index"])
        elif op["op"] == "swap_entities":
            out.update((op["a"], op["b"]))
    return out
