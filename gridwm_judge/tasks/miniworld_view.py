"""MiniWorld frames for storyboards, rendered only for the states a storyboard shows.

``worlds.miniworld.render.MiniWorldView`` renders every state of a variant (the world seam's
``frames`` contract); a storyboard shows eight of them, and with Mesa's software renderer the
other renders are most of a build's time. :class:`StoryboardView` keeps the contract (a
sequence with one read-only frame per state) but renders a frame when it is first read: it
replays the recorded actions from reset (the intervention applied) up to that state, checks
the replay reached the recorded pose, and draws it exactly as ``render_variant`` does (NoCue's
masked entity hidden in the frames its mask lists), so the pixels are the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from gridwm_judge.lazy_sequence import LazySequence
from gridwm_judge.worlds.miniworld.backend import reset_env, resets, without_observations
from gridwm_judge.worlds.miniworld.cards import get_card
from gridwm_judge.worlds.miniworld.render import MiniWorldView, first_person, top_down


class LazyFrames(LazySequence[np.ndarray]):
    """One frame per state of ``variant`` of ``group``, each rendered on first read."""

    item_name = "frame"

    def __init__(self, group, variant: str, size: tuple[int, int],
                 top_size: tuple[int, int] | None = None):
        self.group, self.variant, self.size, self.top_size = group, variant, size, top_size
        self.run = getattr(group, variant)
        self.masked = {m["t"]: (m["entity"],) for m in self.run.mask}
        self._cache: dict[int, np.ndarray] = {}
        self._t = -1
        # the shared env and its unwrapped MiniWorldEnv (miniworld has no type annotations)
        self._env: Any = None
        self._u: Any = None
        self._resets = -1   # backend.resets(env) right after this sequence's own reset

    def __len__(self) -> int:
        return len(self.run.states)

    def _seek(self, t: int) -> None:
        if self._env is None or resets(self._env) != self._resets or t < self._t:
            card = get_card(self.group.family)
            self._env, self._u = reset_env(self.group.env_id, self.group.env_kwargs,
                                           self.group.seed, self.run.intervention,
                                           card.settable_attrs, self.group.max_episode_steps)
            self._resets = resets(self._env)
            self._t = 0
        with without_observations(self._u):
            while self._t < t:
                self._env.step(int(self.run.actions[self._t]))
                self._t += 1
        if not np.allclose(self._u.agent.pos, self.run.states[t]["agent"]["pos"], atol=1e-9):
            raise RuntimeError(f"{self.group.group_id} {self.variant}: replay left the recorded "
                               f"pose at frame {t}")

    def _item(self, t: int, /) -> np.ndarray:
        if t not in self._cache:
            self._seek(t)
            hide = self.masked.get(t, ())
            frame = first_person(self._u, self.size, hide)
            if self.top_size is not None:   # the map under the view, as MiniWorldView stacks it
                frame = np.concatenate([frame, top_down(self._u, self.top_size, hide)], axis=0)
            frame.flags.writeable = False
            self._cache[t] = frame
        return self._cache[t]


@dataclass(frozen=True)
class StoryboardView(MiniWorldView):
    """MiniWorld's ``World`` for storyboards and Task A: the frames of
    ``MiniWorldView(size=size, top_size=top_size)``, rendered lazily (see the module doc); the
    last ``RECENT_MAX`` sequences are reused, with the frames they rendered."""

    def frames(self, group, variant: str) -> LazyFrames:
        self.check(group, variant)
        key = (id(group), variant, self.size, self.top_size)   # the entry holds the group
        if key not in _RECENT:
            if len(_RECENT) >= RECENT_MAX:
                del _RECENT[next(iter(_RECENT))]
            _RECENT[key] = LazyFrames(group, variant, self.size, self.top_size)
        return _RECENT[key]


RECENT_MAX = 16
"""Frame sequences kept for reuse: Task A reads single frames of a few groups many times."""
_RECENT: dict[tuple, LazyFrames] = {}
