"""Deterministic shortest-path planner over symbolic MiniGrid state.

A plan is a list of legs (the card's causal chain: pick up X, toggle door Y, drop, reach Z).
Consecutive non-drop legs form a segment solved jointly by a layered uniform-cost search over
(position, direction) on the symbolic grid (carrying and door states follow the legs: a
pickup empties its cell, a toggle opens its door), so the result is the shortest action list
through the chain, not a greedy one; a closed unlocked door on the way is an edge of cost 2
(toggle, forward) when the leg allows opening doors. Ties break in the fixed action order
(left, right, forward), so the same seed always yields the same plan. Segments are executed
in the real env, so the plan's dynamics are MiniGrid's own; a drop leg tries candidate cells
in search order and backtracks when a later leg fails. The planner only returns action lists whose
rollout terminates with positive reward and without truncation; otherwise it raises PlanError.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from gridwm_judge.worlds.minigrid.envs import make_env
from gridwm_judge.worlds.minigrid.grid import DIRS, find, front, objects
from gridwm_judge.worlds.minigrid.plans import Leg

LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE = 0, 1, 2, 3, 4, 5
MACRO_TOGGLE = -1  # "toggle the door ahead unless it is already open" (resolved when stepping)
MAX_DROP_CANDIDATES = 6


class PlanError(RuntimeError):
    """No action list reaches success for this (env id, seed) under the declared chain."""


def _passable(env, cell: tuple[int, int], goal_cells: frozenset, avoid: frozenset,
              changed: dict) -> str:
    """'yes', 'door' (closed unlocked door: toggle first) or 'no'.

    ``changed`` overrides cells an earlier leg of the same segment changed: None (emptied by a
    pickup) or "open" (a toggled door).
    """
    if cell in avoid:
        return "no"
    if cell in changed:
        return "yes" if changed[cell] in (None, "open") else "no"
    obj = env.grid.get(*cell)
    if obj is None:
        return "yes"
    if obj.type == "door":
        if obj.is_open:
            return "yes"
        return "no" if obj.is_locked else "door"
    if obj.type == "goal":
        return "yes" if cell in goal_cells else "no"
    if obj.type == "floor":
        return "yes"
    return "no"


def _explore(env, sources: dict, *, open_doors: bool, goal_cells: frozenset = frozenset(),
             avoid: frozenset = frozenset(), changed: dict | None = None):
    """Uniform-cost search over (pos, dir) from several sources with start costs.

    Returns (cost, parent) for every reachable node; parent[node] is None for a source, else
    (previous node, actions). Ties break by insertion order (left, right, forward), so the
    result is deterministic. A closed unlocked door is crossed by the 2-action macro
    (MACRO_TOGGLE, FORWARD) when ``open_doors``.
    """
    changed = changed or {}
    counter = 0
    heap = []
    best: dict = {}
    parent: dict = {}
    for node, c in sources.items():
        best[node], parent[node] = c, None
        heap.append((c, counter, node))
        counter += 1
    heapq.heapify(heap)
    while heap:
        cost, _, node = heapq.heappop(heap)
        if best[node] < cost:
            continue
        pos, d = node
        steps: list[tuple[tuple[tuple[int, int], int], int, tuple[int, ...]]] = [
            ((pos, (d - 1) % 4), 1, (LEFT,)), ((pos, (d + 1) % 4), 1, (RIGHT,))]
        f = front(pos, d)
        how = _passable(env, f, goal_cells, avoid, changed)
        if how == "yes":
            steps.append(((f, d), 1, (FORWARD,)))
        elif how == "door" and open_doors:
            steps.append(((f, d), 2, (MACRO_TOGGLE, FORWARD)))
        for nxt, c, acts in steps:
            nc = cost + c
            if nc < best.get(nxt, 1 << 30):
                best[nxt] = nc
                parent[nxt] = (node, acts)
                counter += 1
                heapq.heappush(heap, (nc, counter, nxt))
    return best, parent


def paths_to(env, start: tuple[int, int], d0: int, done, *, open_doors: bool,
             avoid: frozenset = frozenset()) -> list[list[int]]:
    """The shortest action list from (start, d0) to every node with ``done(pos, dir)``,
    cheapest first (ties in search order); [] if none is reachable."""
    best, parent = _explore(env, {(start, d0): 0}, open_doors=open_doors, avoid=avoid)
    goals = sorted((c, i, n) for i, (n, c) in enumerate(best.items()) if done(*n))
    return [_unwind(parent, n) for _, _, n in goals]


def _unwind(parent: dict, node) -> list[int]:
    out: list[int] = []
    while parent[node] is not None:
        node, acts = parent[node]
        out[:0] = acts
    return out


_TAILS = {"face": (), "reach": (), "pickup": (PICKUP,), "toggle": (TOGGLE,)}


def _leg_targets(u, leg: Leg) -> frozenset:
    targets = frozenset(leg.targets)
    if leg.obj is not None:
        targets |= frozenset(find(u, *leg.obj))
    return targets


def plan_segment(u, start: tuple[tuple[int, int], int], legs: Sequence[Leg], first: int = 0
                 ) -> list[int]:
    """Jointly shortest actions through consecutive non-drop legs (layered search).

    Each leg's search starts from every end pose of the previous leg with its accumulated
    cost, so the pose in which one subgoal is completed is chosen for the whole chain, not
    greedily. Pickups and toggles of a leg's target cell are carried into later layers.
    """
    changed: dict = {}
    sources = {start: 0}
    layers = []
    for k, leg in enumerate(legs):
        targets = _leg_targets(u, leg)
        if leg.kind == "reach":
            done = (lambda ts: lambda p, d: p in ts)(targets)
        else:
            done = (lambda ts: lambda p, d: front(p, d) in ts)(targets)
        best, parent = _explore(u, sources, open_doors=leg.open_doors,
                                goal_cells=targets if leg.kind == "reach" else frozenset(),
                                avoid=frozenset(leg.avoid), changed=dict(changed))
        tail = _TAILS[leg.kind]
        ends = {n: c + len(tail) for n, c in best.items() if done(*n)}
        if not ends:
            raise PlanError(f"leg {first + k} ({leg.kind} {sorted(targets)}) unreachable")
        if len(targets) > 1 and leg.kind in ("pickup", "toggle"):
            n = min(ends, key=lambda m: (ends[m], list(best).index(m)))
            ends = {n: ends[n]}  # several candidate targets: commit to the nearest one
            targets = frozenset({front(*n)})
        layers.append((parent, tail))
        if leg.kind == "pickup":
            changed.update({cell: None for cell in targets})
        elif leg.kind == "toggle":
            changed.update({cell: "open" for cell in targets})
        sources = ends
    order = list(sources)
    node = min(order, key=lambda m: (sources[m], order.index(m)))
    actions: list[int] = []
    for parent, tail in reversed(layers):
        actions[:0] = list(tail)
        while parent[node] is not None:
            node, acts = parent[node]
            actions[:0] = acts
    return actions


class _Runner:
    """Executes legs in the real env, replaying from reset when it must backtrack."""

    def __init__(self, env_id: str, seed: int):
        self.env_id, self.seed = env_id, int(seed)
        self.env = make_env(env_id, role="dynamics").unwrapped
        self.actions: list[int] = []
        self.done = False
        self.reward = 0.0
        self.truncated = False

    @property
    def u(self):
        return self.env.unwrapped

    def restore(self, actions: Sequence[int]) -> None:
        self.env.reset(seed=self.seed)
        self.actions, self.done, self.reward, self.truncated = [], False, 0.0, False
        self.step_all(actions)

    def step_all(self, actions: Sequence[int]) -> None:
        for a in actions:
            if a == MACRO_TOGGLE:
                f = self.u.grid.get(*front(*self.pose()))
                if f is not None and f.type == "door" and f.is_open:
                    continue  # opened earlier on this path: just walk through
                a = TOGGLE
            if self.done:
                raise PlanError(f"episode ended before action {len(self.actions)}")
            _, r, term, trunc, _ = self.env.step(int(a))
            self.actions.append(int(a))
            self.reward = float(r)
            self.done = bool(term or trunc)
            self.truncated = bool(trunc)

    def pose(self) -> tuple[tuple[int, int], int]:
        return (int(self.u.agent_pos[0]), int(self.u.agent_pos[1])), int(self.u.agent_dir)


def _door_avoid(u) -> frozenset:
    """Cells beside doors: never drop an object there (it would block the passage)."""
    cells = set()
    for (x, y), obj in objects(u.grid):
        if obj.type == "door":
            cells.update((x + dx, y + dy) for dx, dy in DIRS)
    return frozenset(cells)


def _run_legs(run: _Runner, legs: Sequence[Leg], i: int) -> None:
    if i == len(legs):
        return
    leg = legs[i]
    pos, d = run.pose()
    avoid = frozenset(leg.avoid)
    if leg.kind == "drop":
        beside_doors = _door_avoid(run.u)

        def drop_paths(bad):
            def can_drop(p, dd):
                f = front(p, dd)
                return f not in bad and run.u.grid.get(*f) is None

            found = paths_to(run.u, pos, d, can_drop, open_doors=leg.open_doors, avoid=avoid)
            return [p for p in found if len(p) >= leg.min_path][:MAX_DROP_CANDIDATES]

        def options():
            # Prefer cells away from doors; fall back to cells beside a door (tiny corridors).
            preferred = drop_paths(beside_doors | avoid)
            yield from preferred
            yield from (p for p in drop_paths(avoid) if p not in preferred)

        prefix = list(run.actions)
        last_err: Exception | None = None
        for path in options():
            if run.actions != prefix:
                run.restore(prefix)
            try:
                run.step_all(path + [DROP])
                _run_legs(run, legs, i + 1)
                return
            except PlanError as exc:
                last_err = exc
        raise PlanError(f"no drop cell lets the plan continue ({last_err})")
    j = i
    while j < len(legs) and legs[j].kind != "drop":
        j += 1
    run.step_all(plan_segment(run.u, (pos, d), legs[i:j], first=i))
    _run_legs(run, legs, j)


def plan_actions(env_id: str, seed: int, legs: Sequence[Leg]) -> tuple[int, ...]:
    """Shortest action list through ``legs``; raises PlanError unless it truly succeeds."""
    run = _Runner(env_id, seed)
    run.restore([])
    _run_legs(run, legs, 0)
    if not run.done or run.truncated or run.reward <= 0:
        raise PlanError(
            f"plan for {env_id} seed {seed} ends without success "
            f"(done={run.done}, truncated={run.truncated}, reward={run.reward})"
        )
    return tuple(run.actions)
