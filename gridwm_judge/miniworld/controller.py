"""A deterministic closed-loop controller over MiniWorld's continuous pose.

It acts in the real env with the env's own actions (turn left / right by the env's turn step,
move forward by its forward step): each step it turns towards the next waypoint of a
collision-free plan when the heading error exceeds half a turn step, and moves forward
otherwise. The resulting action ids are the group's actions; since the env is deterministic
(domain randomisation off), replaying them reproduces the same poses. A seed on which the
controller cannot reach success within the env's step limit (truncation excluded) raises
ControlError with the reason, and the seed is rejected.
"""

from __future__ import annotations

import math

import numpy as np

from gridwm_judge.miniworld.backend import without_observations
from gridwm_judge.miniworld.cards import get_card
from gridwm_judge.miniworld.planner import NoPathError, is_free, plan_path
from gridwm_judge.miniworld.render import entity_area

TURN_LEFT, TURN_RIGHT, FORWARD, PICKUP, DROP = 0, 1, 2, 4, 5


class ControlError(RuntimeError):
    """The controller failed on this seed (the message says why); the seed is rejected."""


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


class Driver:
    """Steps one reset env, keeping the actions, and stops at termination or the limit."""

    def __init__(self, env):
        self.env, self.u = env, env.unwrapped
        self.actions: list[int] = []
        self.reward, self.terminated = 0.0, False
        self.fwd = float(self.u.params.sample(None, "forward_step"))
        self.turn = math.radians(float(self.u.params.sample(None, "turn_step")))
        self.limit = int(self.u.max_episode_steps) - 1   # never let the env truncate

    def act(self, a: int) -> None:
        if self.terminated:
            return
        if len(self.actions) >= self.limit:
            raise ControlError(f"no success within {self.limit} steps (step limit "
                               f"{self.u.max_episode_steps})")
        with without_observations(self.u):
            _, r, term, trunc, _ = self.env.step(a)
        self.actions.append(int(a))
        self.reward, self.terminated = float(r), bool(term)
        if trunc:
            raise ControlError(f"truncated at step {len(self.actions)}")

    def heading_error(self, x: float, z: float) -> float:
        p = self.u.agent.pos
        return _wrap(math.atan2(-(z - p[2]), x - p[0]) - self.u.agent.dir)

    def face(self, x: float, z: float) -> None:
        """Turn until the heading error to (x, z) is at most half a turn step."""
        for _ in range(int(2 * math.pi / self.turn) + 2):
            err = self.heading_error(x, z)
            if abs(err) <= self.turn / 2 + 1e-9 or self.terminated:
                return
            self.act(TURN_LEFT if err > 0 else TURN_RIGHT)

    def forward(self) -> None:
        before = self.u.agent.pos.copy()
        self.act(FORWARD)
        if not self.terminated and math.dist(before, self.u.agent.pos) < 1e-9:
            raise ControlError(f"blocked at step {len(self.actions)} at "
                               f"({before[0]:.2f}, {before[2]:.2f})")

    def goto(self, goal, goal_radius: float, done=None, ignore=(), radius=None,
             ent_margin: float = 0.0) -> None:
        """Follow a planned path until within ``goal_radius`` of ``goal`` (x, z) or ``done()``."""
        done = done or (lambda: False)
        p = self.u.agent.pos
        try:
            path = plan_path(self.u, (p[0], p[2]), goal, goal_radius, radius, ignore,
                             ent_margin, spacing=max(1.0, 2 * self.fwd))
        except NoPathError as exc:
            raise ControlError(str(exc)) from exc
        tol = max(0.25, 0.6 * self.fwd)
        for k, w in enumerate(path):
            last = k == len(path) - 1
            while not (self.terminated or done()):
                p = self.u.agent.pos
                d = math.hypot(w[0] - p[0], w[1] - p[2])
                if (last and math.hypot(goal[0] - p[0], goal[1] - p[2]) <= goal_radius) or (
                        not last and d <= tol):
                    break
                self.face(*w)
                if not (self.terminated or done()):
                    self.forward()


def _xz(ent) -> tuple[float, float]:
    return float(ent.pos[0]), float(ent.pos[2])


def _reach(d: Driver, ent, ent_margin: float = 0.0) -> None:
    """Walk to ``ent`` until the env terminates (MiniWorld's own near test fires)."""
    touch = d.u.agent.radius + ent.radius + 1.1 * d.u.max_forward_step
    d.goto(_xz(ent), touch - 0.05, ignore=(ent,), ent_margin=ent_margin)
    if not d.terminated:
        d.face(*_xz(ent))
        for _ in range(8):
            if d.terminated:
                break
            d.forward()


_LEGIBLE: dict[tuple, bool] = {}


def _legible(u, sign_index: int, point: tuple[float, float]) -> bool:
    """Whether the sign, faced from ``point``, covers 1.5 x the card's ``see_area`` of the view
    (legible, with room for a heading off by half a turn). Depends only on the fixed layout
    and the sign's word, so each answer is kept for the process."""
    sign = u.entities[sign_index]
    key = (type(u).__name__, sign.str, float(u._size), point)
    if key not in _LEGIBLE:
        pos, heading = u.agent.pos.copy(), u.agent.dir
        try:
            u.agent.pos = np.array([point[0], 0.0, point[1]])
            u.agent.dir = math.atan2(-(sign.pos[2] - point[1]), sign.pos[0] - point[0])
            _LEGIBLE[key] = entity_area(u, sign_index) >= 1.5 * get_card("sign").see_area
        finally:
            u.agent.pos, u.agent.dir = pos, heading
    return _LEGIBLE[key]


def _turns(a: float, b: float, step: float) -> float:
    return abs(_wrap(b - a)) / step


def _heading(p, q) -> float:
    return math.atan2(-(q[1] - p[1]), q[0] - p[0])


def _sign_views(u, roles, keep_off: float, n: int) -> list[tuple[float, float]]:
    """The ``n`` cheapest legible reading points on a 0.5 m grid; cost: estimated forward
    steps plus turns of the detour start -> reading point (facing the sign) -> target.
    Candidates are checked for legibility cheapest first, so few are rendered."""
    sign, target = u.entities[roles["cue"]], u.entities[roles["target"]]
    start, goal, s = _xz(u.agent), _xz(target), _xz(sign)
    fwd = float(u.params.sample(None, "forward_step"))
    turn = math.radians(float(u.params.sample(None, "turn_step")))

    def cost(v):
        h1, h2, h3 = _heading(start, v), _heading(v, s), _heading(v, goal)
        return ((math.dist(start, v) + math.dist(v, goal)) / fwd + _turns(u.agent.dir, h1, turn)
                + _turns(h1, h2, turn) + _turns(h2, h3, turn), v)

    grid = [(i * 0.5, j * 0.5) for i in range(int(u.max_x / 0.5) + 1)
            for j in range(int(u.max_z / 0.5) + 1)]
    out = []
    for v in sorted(grid, key=cost):
        if len(out) == n:
            break
        if is_free(u, *v, u.agent.radius + 0.1, ent_margin=keep_off) and _legible(
                u, roles["cue"], v):
            out.append(v)
    return out


def _sign(d: Driver, roles, view) -> None:
    u = d.u
    sign, target = u.entities[roles["cue"]], u.entities[roles["target"]]
    keep_off = 1.1 * u.max_forward_step + 0.1   # touching any object ends the episode
    d.goto(view, 0.5, ent_margin=keep_off)
    d.face(float(sign.pos[0]), float(sign.pos[2]))
    if entity_area(u, roles["cue"]) < get_card("sign").see_area:
        raise ControlError(f"sign not legible at step {len(d.actions)} from {view}")
    _reach(d, target, ent_margin=keep_off)


def _putnext(d: Driver, roles, clearance: float) -> None:
    u = d.u
    red, yellow = u.entities[roles["carry"]], u.entities[roles["target"]]
    reach = u.agent.radius + red.radius + 0.2
    d.goto(_xz(red), reach, ignore=(red,))
    d.face(*_xz(red))
    d.act(PICKUP)
    if u.agent.carrying is not red:
        raise ControlError(f"pickup at step {len(d.actions)} did not lift the red box")
    margin = 1.1 * u.max_forward_step

    def next_to() -> bool:
        return math.dist(_xz(red), _xz(yellow)) < red.radius + yellow.radius + margin

    held = 1.05 * (u.agent.radius + red.radius + u.max_forward_step)  # agent -> carried box
    d.goto(_xz(yellow), held + red.radius + yellow.radius + 0.3, done=next_to,
           ignore=(yellow,), radius=u.agent.radius + clearance)
    d.face(*_xz(yellow))
    for _ in range(20):
        if next_to():
            break
        d.forward()
    if not next_to():
        raise ControlError("could not bring the red box next to the yellow one")
    d.act(DROP)


SIGN_TRIES = 4                      # reading points tried, cheapest first
CARRY_CLEARANCES = (0.35, 0.6, 0.15)  # PutNext: extra clearance of the carrying walk, in order


def _attempts(family: str, env, roles: dict[str, int]):
    """The controller's plans for this seed, tried in order on a fresh reset until one works."""
    u = env.unwrapped
    if family in ("tmaze", "fourrooms"):
        return [lambda d: _reach(d, d.u.entities[roles["target"]])]
    if family == "sign":
        views = _sign_views(u, roles, 1.1 * u.max_forward_step + 0.1, SIGN_TRIES)
        if not views:
            raise ControlError("no floor point shows the sign legibly")
        return [lambda d, v=v: _sign(d, roles, v) for v in views]
    if family == "putnext":
        return [lambda d, c=c: _putnext(d, roles, c) for c in CARRY_CLEARANCES]
    raise ValueError(f"unknown MiniWorld family {family!r}")


def drive(family: str, env, roles: dict[str, int], seed: int) -> tuple[int, ...]:
    """The controller's actions for ``env`` freshly reset to ``seed``; raises ControlError
    (with every attempt's reason) when no plan reaches success."""
    errors = []
    for attempt in _attempts(family, env, roles):
        env.reset(seed=int(seed))
        d = Driver(env)
        try:
            attempt(d)
        except ControlError as exc:
            errors.append(str(exc))
            continue
        if d.terminated and d.reward > 0:
            return tuple(d.actions)
        errors.append(f"episode ended without success (reward {d.reward:+.2f}, "
                      f"terminated {d.terminated})")
    if len(errors) == 1:
        raise ControlError(errors[0])
    raise ControlError(f"{len(errors)} attempts failed: {'; '.join(errors)}")
