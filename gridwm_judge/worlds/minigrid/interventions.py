"""Intervention ops applied to a freshly reset MiniGrid env, and replay of an action list.

Vocabulary (applied in order, right after ``env.reset(seed=seed)``):

- ``{"op": "remove", "pos": [x, y]}``: empty the cell.
- ``{"op": "move", "from": [x, y], "to": [x, y]}``: move the object; the target cell must be empty.
- ``{"op": "swap", "a": [x, y], "b": [x, y]}``: exchange the contents of two cells.
- ``{"op": "place", "pos": [x, y], "obj": {"type", "color", "state"}}``: put a new object
  (type/color names as in MiniGrid's OBJECT_TO_IDX / COLOR_TO_IDX; state 0 open, 1 closed,
  2 locked).
- ``{"op": "set", "attr": name, "value": [x, y]}``: set an env attribute that decides the
  outcome outside the grid (only those a card lists in ``settable_attrs``, e.g. Memory's
  ``success_pos`` / ``failure_pos``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from minigrid.core.constants import COLOR_TO_IDX, OBJECT_TO_IDX
from minigrid.core.world_object import WorldObj

from gridwm_judge.worlds.minigrid.cards import ENV_CARDS
from gridwm_judge.worlds.minigrid.envs import make_env

OPS = ("remove", "move", "swap", "place", "set")
SETTABLE_ATTRS: tuple[str, ...] = tuple(
    dict.fromkeys(a for card in ENV_CARDS.values() for a in card.settable_attrs))
"""Env attributes a ``set`` op may change: those some card lists as settable."""


def _xy(value, what: str) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"{what} must be [x, y], got {value!r}")
    return int(value[0]), int(value[1])


def _check_in_grid(env, pos: tuple[int, int], what: str) -> None:
    if not (0 <= pos[0] < env.grid.width and 0 <= pos[1] < env.grid.height):
        size = f"{env.grid.width}x{env.grid.height}"
        raise ValueError(f"{what} {list(pos)} lies outside the {size} grid")


def _set_cell(env, pos: tuple[int, int], obj) -> None:
    env.grid.set(pos[0], pos[1], obj)
    if obj is not None:
        obj.init_pos = pos
        obj.cur_pos = pos


def apply_intervention(env, ops: Sequence[Mapping[str, Any]]) -> None:
    """Apply intervention ops in order to the unwrapped env (mutates it)."""
    env = getattr(env, "unwrapped", env)
    for op in ops:
        kind = op.get("op") if isinstance(op, dict) else None
        if kind == "remove":
            pos = _xy(op["pos"], "remove.pos")
            _check_in_grid(env, pos, "remove.pos")
            _set_cell(env, pos, None)
        elif kind == "move":
            src, dst = _xy(op["from"], "move.from"), _xy(op["to"], "move.to")
            _check_in_grid(env, src, "move.from")
            _check_in_grid(env, dst, "move.to")
            obj = env.grid.get(*src)
            if obj is None:
                raise ValueError(f"move.from {list(src)} is empty")
            if env.grid.get(*dst) is not None:
                raise ValueError(f"move.to {list(dst)} is occupied by {env.grid.get(*dst).type}")
            _set_cell(env, src, None)
            _set_cell(env, dst, obj)
        elif kind == "swap":
            a, b = _xy(op["a"], "swap.a"), _xy(op["b"], "swap.b")
            _check_in_grid(env, a, "swap.a")
            _check_in_grid(env, b, "swap.b")
            oa, ob = env.grid.get(*a), env.grid.get(*b)
            _set_cell(env, a, ob)
            _set_cell(env, b, oa)
        elif kind == "place":
            pos = _xy(op["pos"], "place.pos")
            _check_in_grid(env, pos, "place.pos")
            spec = op["obj"]
            obj = WorldObj.decode(*_encode_spec(spec))
            if obj is None:
                raise ValueError(f"place.obj {spec!r} decodes to an empty cell")
            _set_cell(env, pos, obj)
        elif kind == "set":
            attr = op.get("attr")
            if attr not in SETTABLE_ATTRS:
                raise ValueError(
                    f"set.attr {attr!r} not settable; expected one of {SETTABLE_ATTRS}")
            if not hasattr(env, attr):
                raise ValueError(f"{type(env).__name__} has no attribute {attr!r} to set")
            setattr(env, attr, _xy(op["value"], "set.value"))
        else:
            raise ValueError(f"unknown intervention op {kind!r}; expected one of {OPS}")


def _encode_spec(spec: dict) -> tuple[int, int, int]:
    t, c = spec.get("type"), spec.get("color", "grey")
    if t not in OBJECT_TO_IDX:
        raise ValueError(f"unknown object type {t!r}; expected one of {sorted(OBJECT_TO_IDX)}")
    if c not in COLOR_TO_IDX:
        raise ValueError(f"unknown color {c!r}; expected one of {sorted(COLOR_TO_IDX)}")
    state = int(spec.get("state", 0))
    if state not in (0, 1, 2):
        raise ValueError(f"object state must be 0 (open), 1 (closed) or 2 (locked), got {state}")
    return OBJECT_TO_IDX[t], COLOR_TO_IDX[c], state


def replay_envs(
    env_id: str, seed: int, actions: Sequence[int], intervention: Sequence[Mapping[str, Any]] = ()
) -> Iterator:
    """Yield the unwrapped env after reset(seed)+intervention and after each step.

    The same env object is yielded each time, mutated: render it immediately. Stops after the
    step that terminates or truncates the episode. The env is a fresh one that skips
    MiniGrid's egocentric observation (a replay reads the env's state, never an observation;
    computing it was most of a step's cost).
    """
    env = make_env(env_id, fresh=True)
    u = env.unwrapped
    u.gen_obs = lambda: None
    try:
        u.reset(seed=int(seed))
        apply_intervention(u, intervention)
        yield u
        for a in actions:
            _, _, terminated, truncated, _ = u.step(int(a))
            yield u
            if terminated or truncated:
                return
    finally:
        env.close()
