"""The one place that imports miniworld: headless set-up, the missing-extra error, env creation,
worker processes.

MiniWorld renders with OpenGL through pyglet; ``pyglet.options["headless"] = True`` must be set
before miniworld is first imported so that pyglet uses EGL (Mesa's software renderer on a
machine without a GPU) instead of an X display. An OpenGL context belongs to one process: a
forked child would share its parent's, so workers are spawned (:func:`worker_pool`) and each
makes its own on first use.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

from gridwm_judge.install import install_line
from gridwm_judge.workers import init_worker
from gridwm_judge.worlds.miniworld.interventions import apply_ops

INSTALL_HINT = f"MiniWorld support needs the 3d extra: {install_line('3d')}"
SYSTEM_HINT = ("it renders through EGL with Mesa: on Debian/Ubuntu, apt-get install libegl1 "
               "libegl-mesa0 libgl1 libgl1-mesa-dri libglu1-mesa")


class MissingExtraError(ImportError, ValueError):
    """miniworld (or pyglet) is not installed; the message names the pip line (a ValueError
    too, so the CLI prints it as one line)."""


def require_miniworld():
    """Import miniworld headless (once) and return the module; one-line error without it."""
    try:
        import pyglet
    except ImportError as exc:
        raise MissingExtraError(INSTALL_HINT) from exc
    if "miniworld" not in __import__("sys").modules:
        pyglet.options["headless"] = True
    try:
        import miniworld
    except ImportError as exc:
        if exc.name in ("miniworld", "pyglet", "gymnasium"):
            raise MissingExtraError(INSTALL_HINT) from exc
        # the extra is there; pyglet could not load a system library (Library "EGL" not found)
        raise MissingExtraError(f"MiniWorld could not start its headless renderer ({exc}); "
                                f"{SYSTEM_HINT}") from exc
    return miniworld


def make_env(env_id: str, env_kwargs: dict | None = None, step_limit: int | None = None
             ) -> Any:
    """A fresh env for ``env_id`` (registered by miniworld) with the record's kwargs and, when
    given, the record's ``max_episode_steps`` set on the env itself (``gym.make`` would take a
    ``max_episode_steps`` argument for its own TimeLimit wrapper, leaving the env's limit)."""
    require_miniworld()
    import gymnasium as gym

    # The passive checker only inspects the first steps' return values, which
    # ``without_observations`` leaves without an image; it never changes the simulation.
    with quiet_renderer_notes():  # the env makes its frame buffers here
        env: Any = gym.make(env_id, disable_env_checker=True, **dict(env_kwargs or {}))
    if step_limit is not None:
        env.unwrapped.max_episode_steps = int(step_limit)
    return env


@contextmanager
def quiet_renderer_notes():
    """miniworld prints "Falling back to num_samples=4" on stdout for every frame buffer made
    when the renderer offers less multisampling than asked for (llvmpipe does): a note about
    antialiasing, not about the simulation. Anything else it prints goes to stderr."""
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            yield
    finally:
        rest = [ln for ln in buf.getvalue().splitlines()
                if ln and not ln.startswith("Falling back to num_samples")]
        if rest:
            print("\n".join(rest), file=sys.stderr)


def renderer_info() -> dict[str, str]:
    """The OpenGL renderer actually used (recorded so frames can be traced to a Mesa version)."""
    require_miniworld()
    from pyglet.gl import gl_info

    return {"vendor": str(gl_info.get_vendor()), "renderer": str(gl_info.get_renderer()),
            "version": str(gl_info.get_version())}


def worker_pool(num_proc: int) -> ProcessPoolExecutor:
    """``num_proc`` spawned worker processes that die with this one: each imports miniworld
    headless and makes its own OpenGL context when it first renders (never this process's,
    which a forked child would share)."""
    return ProcessPoolExecutor(max_workers=num_proc, initializer=init_worker,
                               mp_context=multiprocessing.get_context("spawn"))


_ENVS: dict[tuple, Any] = {}


def shared_env(env_id: str, env_kwargs: dict | None = None, step_limit: int | None = None
               ) -> Any:
    """One env per (id, kwargs, step limit) in this process: creating an OpenGL env costs far
    more than a reset, and ``reset(seed=...)`` rebuilds the whole world, so reuse changes no
    result."""
    key = (env_id, tuple(sorted((env_kwargs or {}).items())), step_limit)
    if key not in _ENVS:
        _ENVS[key] = make_env(env_id, env_kwargs, step_limit)
    return _ENVS[key]


@contextmanager
def without_observations(u):
    """Let ``env.step`` skip its own 80x60 observation render (most of a step's cost with
    Mesa's software renderer). Rendering has no effect on the simulation, so states and
    outcomes are unchanged (the plain-miniworld replay test checks it); frames we need are
    rendered explicitly through the class method."""
    u.render_obs = lambda frame_buffer=None: None
    try:
        yield u
    finally:
        del u.render_obs


_RESETS: dict[int, int] = {}


def reseed(env, seed: int) -> None:
    """``env.reset(seed=seed)``, counted: a reader that left a shared env part-way through a
    replay (``tasks.miniworld_view``) sees from :func:`resets` that someone else used it."""
    _RESETS[id(env)] = _RESETS.get(id(env), 0) + 1
    env.reset(seed=int(seed))


def resets(env) -> int:
    """How many times :func:`reseed` has reset ``env`` in this process."""
    return _RESETS.get(id(env), 0)


def reset_env(env_id: str, env_kwargs: dict, seed: int, ops=(), settable=(),
              step_limit: int | None = None) -> tuple[Any, Any]:
    """The shared env reset to ``seed`` with ``ops`` applied; returns (env, unwrapped), typed
    Any: MiniWorld's attributes (``agent``, ``entities`` ...) are read through them."""
    env = shared_env(env_id, env_kwargs, step_limit)
    reseed(env, seed)
    u = env.unwrapped
    apply_ops(u, ops, settable)
    return env, u
