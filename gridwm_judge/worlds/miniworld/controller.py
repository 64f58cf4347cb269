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

from gridwm_judge.worlds.miniworld.backend import reseed, without_observations
from gridwm_judge.worlds.miniworld.legible import legible, readable_poses
from gridwm_judge.worlds.miniworld.planner import NoPathError, distance_field, is_free, plan_path

TURN_LEFT, TURN_RIGHT, FORWARD, BACK, PICKUP, DROP = 0, 1, 2, 3, 4, 5
BACK_OFFS = 8       # PutNext: steps back at most to give a carried box room to swing
READ_RADIUS = 0.5   # Sign: the walk to a reading point stops within this many metres of it


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
        """Turn until the heading error to (x, z) is at most half a turn step. Carrying a box
        (which MiniWorld refuses to swing into a wall or another entity), turn the way round
        whose every step is clear, stepping back first when neither is."""
        way = self._clear_way(x, z) if self.u.agent.carrying is not None else None
        for _ in range(int(2 * math.pi / self.turn) + 2):
            err = self.heading_error(x, z)
            if abs(err) <= self.turn / 2 + 1e-9 or self.terminated:
                return
            before = self.u.agent.dir
            self.act(way if way is not None else TURN_LEFT if err > 0 else TURN_RIGHT)
            if not self.terminated and self.u.agent.dir == before:
                raise ControlError(f"turn blocked at step {len(self.actions)}")

    def _swing_clear(self, x: float, z: float, action: int) -> bool:
        """Whether every turn step of ``action`` until facing (x, z) keeps the carried box
        clear (MiniWorld's own carry position and intersection test; nothing is changed)."""
        u, box = self.u, self.u.agent.carrying
        start, sign = u.agent.dir, (1 if action == TURN_LEFT else -1)
        try:
            for _ in range(int(2 * math.pi / self.turn) + 1):
                if abs(self.heading_error(x, z)) <= self.turn / 2 + 1e-9:
                    return True
                u.agent.dir += sign * self.turn
                if u.intersect(box, u._get_carry_pos(u.agent.pos, box), box.radius):
                    return False
            return False
        finally:
            u.agent.dir = start

    def _clear_way(self, x: float, z: float) -> int:
        """The turn action (short way first) whose swing is clear, after stepping back up to
        ``BACK_OFFS`` times; ControlError when there is none."""
        for _ in range(BACK_OFFS + 1):
            short = TURN_LEFT if self.heading_error(x, z) > 0 else TURN_RIGHT
            for way in (short, TURN_RIGHT if short == TURN_LEFT else TURN_LEFT):
                if self._swing_clear(x, z, way):
                    return way
            pos = self.u.agent.pos.copy()
            self.act(BACK)
            if self.terminated or math.dist(pos, self.u.agent.pos) < 1e-9:
                break
        raise ControlError(f"no clear swing for the carried box at step {len(self.actions)}")

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


def _near(u, ent) -> float:
    """The agent-to-``ent`` distance under which MiniWorld's near test fires (``env.near``)."""
    return u.agent.radius + ent.radius + 1.1 * u.max_forward_step


def _would_touch(d: Driver, ent) -> bool:
    """Whether the next forward step ends inside MiniWorld's near test of ``ent`` (the step
    that ends the episode)."""
    nxt = d.u.agent.pos + d.u.agent.dir_vec * d.fwd
    return bool(np.linalg.norm(ent.pos - nxt) < _near(d.u, ent))


def _reach(d: Driver, ent, ent_margin: float = 0.0) -> None:
    """Walk to ``ent`` until the env terminates (MiniWorld's own near test fires). The
    touching step is taken facing ``ent``, so the last frame, which every storyboard shows,
    shows what was reached (a path waypoint may lie 30-90 degrees off it)."""
    d.goto(_xz(ent), _near(d.u, ent) - 0.05, done=lambda: _would_touch(d, ent), ignore=(ent,),
           ent_margin=ent_margin)
    if not d.terminated:
        d.face(*_xz(ent))
        for _ in range(8):
            if d.terminated:
                break
            d.forward()


def _turns(a: float, b: float, step: float) -> float:
    return abs(_wrap(b - a)) / step


def _heading(p, q) -> float:
    return math.atan2(-(q[1] - p[1]), q[0] - p[0])


_RING = np.array([(0.0, 0.0)] + [(READ_RADIUS * math.cos(k * math.pi / 4),
                                  READ_RADIUS * math.sin(k * math.pi / 4)) for k in range(8)])


def _reading_poses(u, roles, keep_off: float, n: int) -> list[tuple[tuple[float, float], int]]:
    """The ``n`` cheapest reading poses (floor point, number of turn steps from the start
    heading) from which the sign is legible, also from anywhere within ``READ_RADIUS`` of the
    point (where the walk may stop). Cost: estimated forward steps of start -> point -> target
    (path lengths on the planner's grid) plus the turns. The geometric test screens every
    grid point; the render test (occlusion) checks the cheapest until ``n`` pass."""
    sign, target = u.entities[roles["cue"]], u.entities[roles["target"]]
    start, goal, s0 = _xz(u.agent), _xz(target), float(u.agent.dir)
    fwd = float(u.params.sample(None, "forward_step"))
    turn = math.radians(float(u.params.sample(None, "turn_step")))
    k = round(2 * math.pi / turn)
    headings = np.array([s0 + j * turn for j in range(k)])
    from_start = distance_field(u, start, ent_margin=keep_off)
    to_goal = distance_field(u, goal, ignore=(target,), ent_margin=keep_off)
    pts = [p for p in from_start if p in to_goal]
    if not pts:
        return []
    xy = np.array(pts)
    ring = xy[:, None, :] + _RING[None, :, :]                           # (n, 9, 2)
    ok = readable_poses(u.agent, sign, ring[..., 0, None], ring[..., 1, None],
                        headings[None, None, :]).all(axis=1)           # (n, k)
    touch = u.agent.radius + target.radius + 1.1 * u.max_forward_step
    cands = []
    for i, j in zip(*np.nonzero(ok), strict=True):
        v, h = pts[i], float(headings[j])
        if not is_free(u, v[0], v[1], u.agent.radius + 0.1, ent_margin=keep_off):
            continue
        h1, h3 = _heading(start, v), _heading(v, goal)
        cost = ((from_start[v] + max(0.0, to_goal[v] - touch)) / fwd + _turns(s0, h1, turn)
                + _turns(h1, h, turn) + _turns(h, h3, turn))
        cands.append((cost, v, int(j)))
    out = []
    pos, heading = u.agent.pos.copy(), u.agent.dir
    try:
        for _, v, j in sorted(cands):
            if len(out) == n:
                break
            u.agent.pos, u.agent.dir = np.array([v[0], 0.0, v[1]]), float(headings[j])
            if legible(u, roles["cue"]):
                out.append((v, j))
    finally:
        u.agent.pos, u.agent.dir = pos, heading
    return out


def _read(d: Driver, roles) -> None:
    """Turn (fewest steps) to a heading from which the sign is legible here, or fail."""
    u, k = d.u, round(2 * math.pi / d.turn)
    sign = u.entities[roles["cue"]]
    steps = sorted(range(-(k // 2), k // 2 + 1), key=lambda j: (abs(j), -j))
    p = u.agent.pos
    ok = readable_poses(u.agent, sign, p[0], p[2], np.array([u.agent.dir + j * d.turn
                                                               for j in steps]))
    for j, good in zip(steps, ok, strict=True):
        if good:
            for _ in range(abs(j)):
                d.act(TURN_LEFT if j > 0 else TURN_RIGHT)
            break
    if not legible(u, roles["cue"]):
        raise ControlError(f"sign not legible at step {len(d.actions)} from "
                           f"({p[0]:.2f}, {p[2]:.2f})")


def _sign(d: Driver, roles, view) -> None:
    u = d.u
    target = u.entities[roles["target"]]
    keep_off = 1.1 * u.max_forward_step + 0.1   # touching any object ends the episode
    d.goto(view, READ_RADIUS, ent_margin=keep_off)
    _read(d, roles)
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


SIGN_TRIES = 4                      # reading poses tried, cheapest first
CARRY_CLEARANCES = (0.35, 0.6, 0.15)  # PutNext: extra clearance of the carrying walk, in order


def _attempts(family: str, env, roles: dict[str, int]):
    """The controller's plans for this seed, tried in order on a fresh reset until one works."""
    u = env.unwrapped
    if family in ("tmaze", "fourrooms"):
        return [lambda d: _reach(d, d.u.entities[roles["target"]])]
    if family == "sign":
        poses = _reading_poses(u, roles, 1.1 * u.max_forward_step + 0.1, SIGN_TRIES)
        if not poses:
            raise ControlError("no floor point shows the sign legibly")
        return [lambda d, v=v: _sign(d, roles, v) for v, _ in poses]
    if family == "putnext":
        return [lambda d, c=c: _putnext(d, roles, c) for c in CARRY_CLEARANCES]
    raise ValueError(f"unknown MiniWorld family {family!r}")


def drive(family: str, env, roles: dict[str, int], seed: int) -> tuple[int, ...]:
    """The controller's actions for ``env`` freshly reset to ``seed``; raises ControlError
    (with every attempt's reason) when no plan reaches success."""
    errors = []
    for attempt in _attempts(family, env, roles):
        reseed(env, seed)
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
