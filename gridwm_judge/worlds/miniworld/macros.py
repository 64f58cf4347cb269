"""Macro actions for MiniWorld's next-view questions, and the views they lead to.

The paper's MiniWorld Task A items use macro actions (turn 30 / 60 degrees, forward 5 / 10
steps) so that the candidate views differ visibly: one 15 degree turn or 0.15 m step barely
changes a first-person view. A macro is a primitive action repeated: 30 degrees and 0.75 m in
the env's own step sizes (at least one step), and twice that. With 15 degree turns and 0.15 m
steps that is the paper's 2 / 4 turns and 5 / 10 steps; Sign's 45 degree / 0.7 m steps give 1
and 2 of each.

:func:`views_at` replays a group's Full actions and, at each asked state, renders the current
view and the view after each macro, run in the real env from that state (then undone: the
agent's and every entity's pose, what is carried and the step count are restored), so every
candidate view is the simulator's.
"""

from __future__ import annotations

import copy
import math
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from gridwm_judge.worlds.miniworld.backend import reset_env, without_observations
from gridwm_judge.worlds.miniworld.cards import get_card
from gridwm_judge.worlds.miniworld.records import ACTION_NAMES
from gridwm_judge.worlds.miniworld.render import VIEW_SIZE, first_person, top_down

TURN_DEGREES = 30.0
FORWARD_METRES = 0.75
_KINDS = (0, 1, 2)   # turn_left, turn_right, move_forward


@dataclass(frozen=True)
class Macro:
    """``repeats`` times the primitive ``action``; ``text`` is what a prompt shows."""

    action: int
    repeats: int
    text: str

    @property
    def primitives(self) -> tuple[int, ...]:
        return (self.action,) * self.repeats


def macros(u) -> tuple[Macro, ...]:
    """The six macros of env ``u``: turn left / right by 30 and 60 degrees, forward 0.75 and
    1.5 m, each rounded to whole steps of the env's own turn and forward step."""
    turn = float(u.params.sample(None, "turn_step"))
    fwd = float(u.params.sample(None, "forward_step"))
    t_unit = max(1, round(TURN_DEGREES / turn))
    f_unit = max(1, round(FORWARD_METRES / fwd))
    out = []
    for k in (1, 2):
        for a in _KINDS:
            if a == 2:
                n = k * f_unit
                steps = f"{n} step" + ("s" if n != 1 else "")
                out.append(Macro(a, n, f"move forward {steps} ({n * fwd:.2f} m)"))
            else:
                n = k * t_unit
                side = ACTION_NAMES[a].removeprefix("turn_")
                out.append(Macro(a, n, f"turn {side} {n * turn:g} degrees"))
    return tuple(out)


@contextmanager
def _trying(env, u, macro: Macro):
    """Run ``macro`` from the current state (stopping where the episode ends), then undo it."""
    ents = [(e, copy.copy(e.pos), e.dir) for e in u.entities]
    carrying, steps = u.agent.carrying, u.step_count
    try:
        with without_observations(u):
            for a in macro.primitives:
                _, _, term, trunc, _ = env.step(a)
                if term or trunc:
                    break
        yield
    finally:
        for e, pos, d in ents:
            e.pos, e.dir = pos, d
        u.agent.carrying, u.step_count = carrying, steps


@dataclass(frozen=True)
class MacroViews:
    """What one question at state ``t`` shows: the current first-person view with the map
    below it, and each macro's resulting first-person view and agent pose."""

    t: int
    current: np.ndarray
    after: tuple[tuple[Macro, np.ndarray, tuple[float, float, float]], ...]


def views_at(group, ts, size: tuple[int, int] = VIEW_SIZE,
             map_size: tuple[int, int] | None = None) -> list[MacroViews]:
    """The views of every macro at each state in ``ts`` of ``group``'s Full rollout (one
    replay from reset for all of them)."""
    map_size = map_size or (size[0], size[0])
    env, u = reset_env(group.env_id, group.env_kwargs, group.seed, (),
                       get_card(group.family).settable_attrs, group.max_episode_steps)
    out, now = [], 0
    for t in sorted(set(int(t) for t in ts)):
        with without_observations(u):
            while now < t:
                env.step(int(group.actions[now]))
                now += 1
        if not np.allclose(u.agent.pos, group.full.states[t]["agent"]["pos"], atol=1e-9):
            raise RuntimeError(f"{group.group_id}: replay left the recorded pose at frame {t}")
        current = np.concatenate([first_person(u, size), top_down(u, map_size)], axis=0)
        after = []
        for m in macros(u):
            with _trying(env, u, m):
                pose = (float(u.agent.pos[0]), float(u.agent.pos[2]),
                        float(math.remainder(u.agent.dir, 2 * math.pi)))
                after.append((m, first_person(u, size), pose))
        out.append(MacroViews(t, current, tuple(after)))
    return out
