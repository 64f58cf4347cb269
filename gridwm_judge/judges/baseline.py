"""Weight-free reference judges: ``baseline:NAME``.

- ``always-yes`` / ``always-no``: a constant verdict for C (Yes/No) and D (Success/Fail); on
  A, B and E they give the fixed guess below (they have no verdict to hold constant there).
- ``random``: a verdict / letter / label drawn from a generator seeded by (seed, uid), so the
  same run gives the same answers whatever the order or number of workers.
- Staged answers (Oracle-State, a JSON object with ``task_type`` / ``objective`` /
  ``verdict``): always-yes / always-no give the first task type listed, the objective
  ``goal_green`` and their constant verdict; random draws each field; pixel-heuristic gives the
  fixed stages and its goal verdict on the query storyboard (the last image) or, for a
  text-only item, on the query state table's last line (agent on the goal's cell).
- ``prompt-only``: Oracle-State's staged answer from the prompt's text alone, state tables cut
  out (``judges.prompt_only``: first listed task type, ``goal_green``, Success); elsewhere
  always-yes's answer.
- ``oracle``: returns the item's gold ``answer``. An UPPER-BOUND SANITY JUDGE, not a model: it
  checks the scorer end to end and must never be reported as a result.
- ``pixel-heuristic``: reads only ``prompt`` and ``images``. C/D: Yes/Success iff the agent
  stands on the green goal in the chronologically last frame shown (honouring the
  reversed-order note; for D the query storyboard only). A: the candidate that differs least
  from the current frame. B/E: a fixed-guess JSON. It fails in explainable ways: goals that
  are not a green tile (KeyCorridor objects, RedBlueDoor doors) always read as failure.
- ``first-frame``, ``last-frame``, ``mask-artifact``, ``least-change``: the shortcut judges
  (:mod:`gridwm_judge.judges.shortcuts`): they answer only the tasks they have a rule for
  (``shortcuts.answers``) and only items with images.

Answers are in each task's own format (a row's prompt style's, for the prompt ablation: a
verdict asked as JSON is the same verdict as a strict JSON object), so they go through the
same parser as any model's.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from gridwm_judge.judges import did_you_mean, pixels, prompt_only, shortcuts
from gridwm_judge.judges.base import JudgeOptions, JudgeRequest, JudgeResponse, error_response
from gridwm_judge.lazy_sequence import LazySequence
from gridwm_judge.prompts import REVERSED_NOTE
from gridwm_judge.task_table import (
    OS_COLORS,
    OS_OBJECT_TYPES,
    REFERENCE_RECIPES,
    AnswerFormat,
    Choice,
    JsonObject,
    JsonVerdict,
    Verdict,
    answer_spec,
    task_spec,
)

NAMES = ("always-yes", "always-no", "random", "oracle", "pixel-heuristic", "prompt-only",
         *shortcuts.NAMES)
ORACLE_NOTE = "oracle reads the gold answer: an upper-bound sanity judge, not a model result"

FIXED_B = json.dumps(
    {
        "agent": {"pos": [1, 1], "dir": "right", "carrying": None},
        "front_cell": {"type": "empty", "color": None, "state": None},
        "visible_objects": [],
    },
    sort_keys=True,
)
FIXED_E = {"identity": "key_yellow", "status": "holding"}
_E_LABELS = {
    "identity": tuple(
        f"{obj}_{color}"
        for obj in ("key", "ball", "box")
        for color in ("red", "green", "blue", "purple", "yellow", "grey")
    ),
    "status": ("holding", "dropped", "reacquired_and_holding"),
}
FIXED_OBJECTIVE = "goal_green"
_OBJECTIVES = tuple(f"{t}_{c}" for t in OS_OBJECT_TYPES for c in OS_COLORS)
_QUERY_TABLE = re.compile(r"Query trajectory state table:\n((?:\d+\..*(?:\n|$))+)")
_AGENT_CELL = re.compile(r"agent (\(\d+, \d+\))")
_GOAL_CELL = re.compile(r"goal \w+ (\(\d+, \d+\))")
_QUERY_SPLIT = re.compile(r"the next (\d+) images are the query trajectory", re.IGNORECASE)


def _e_question(prompt: str) -> str:
    return "status" if "status" in prompt.lower() else "identity"


def _fixed(answer: AnswerFormat, prompt: str) -> str:
    """A constant answer in the task's format (verdicts are handled by the caller)."""
    if isinstance(answer, Choice):
        return answer.options[0]
    if isinstance(answer, JsonObject) and answer.required:
        return json.dumps({answer.required: FIXED_E[_e_question(prompt)]})
    return FIXED_B


def _staged(fmt: JsonObject, verdict: str, rng: np.random.Generator | None = None) -> str:
    """A staged answer: each enum field its first value (or a draw from ``rng``), the
    objective ``FIXED_OBJECTIVE`` (or a drawn label), the verdict as given."""
    out = {}
    for key, prop in fmt.schema["properties"].items():
        if key == "verdict":
            out[key] = verdict
        elif "enum" in prop:
            out[key] = prop["enum"][0] if rng is None else prop["enum"][int(rng.integers(
                len(prop["enum"])))]
        else:
            out[key] = FIXED_OBJECTIVE if rng is None else _OBJECTIVES[int(rng.integers(
                len(_OBJECTIVES)))]
    return json.dumps(out)


def _verdicts(fmt: JsonObject) -> tuple[str, str]:
    success, failure = fmt.schema["properties"]["verdict"]["enum"]
    return success, failure


def table_agent_on_goal(prompt: str) -> bool:
    """Whether the query state table's last line puts the agent on a goal's cell."""
    m = _QUERY_TABLE.search(prompt)
    if not m:
        return False
    last = m.group(1).strip().splitlines()[-1]
    agent = _AGENT_CELL.search(last)
    return agent is not None and agent.group(1) in _GOAL_CELL.findall(last)


class BaselineJudge:
    """One of :data:`NAMES`; cheap, deterministic, single-threaded."""

    def __init__(self, name: str, options: JudgeOptions, spec: str):
        check_name(name)
        self.name = name
        self.spec = spec
        self.seed = options.seed
        self.needs_gold = name == "oracle"

    def settings(self) -> dict:
        out = {"backend": "baseline", "name": self.name, "seed": self.seed}
        if self.needs_gold:
            out["note"] = ORACLE_NOTE
        return out

    def judge(self, requests: Iterable[JudgeRequest]) -> Iterator[JudgeResponse]:
        for req in requests:
            start = time.perf_counter()
            try:
                raw = self.answer(req)
            except Exception as exc:  # a heuristic bug must be recorded, not kill the run
                yield error_response(req.uid, time.perf_counter() - start, exc)
                continue
            status = "ok" if raw and raw.strip() else "empty"
            yield JudgeResponse(req.uid, raw, status, time.perf_counter() - start)

    def close(self) -> None:
        pass

    # --- answers -------------------------------------------------------------------------
    def answer(self, req: JudgeRequest) -> str:
        if self.name == "oracle":
            if req.gold is None:
                raise ValueError(f"oracle judge got no gold answer for {req.uid!r}")
            return req.gold
        fmt = answer_spec(req.task, req.style).answer
        if isinstance(fmt, JsonObject) and fmt.fields:
            return self._staged_answer(req, fmt)
        if isinstance(fmt, JsonVerdict):  # the verdict word it would give, as a strict object
            return fmt.text(self._answer(req, fmt.verdict))
        return self._answer(req, fmt)

    def _answer(self, req: JudgeRequest, fmt: AnswerFormat) -> str:
        if self.name in ("always-yes", "always-no", "prompt-only"):
            if isinstance(fmt, Verdict):
                return fmt.failure if self.name == "always-no" else fmt.success
            return _fixed(fmt, req.prompt)
        if self.name == "random":
            return self._random(req, fmt)
        if self.name in shortcuts.NAMES:
            return self._shortcut(req, fmt)
        return self._pixel(req, fmt)

    def _staged_answer(self, req: JudgeRequest, fmt: JsonObject) -> str:
        if self.name == "prompt-only":
            return prompt_only.staged_answer(req.prompt, fmt)
        success, failure = _verdicts(fmt)
        if self.name in ("always-yes", "always-no"):
            return _staged(fmt, success if self.name == "always-yes" else failure)
        if self.name == "random":
            rng = self._rng(req)
            return _staged(fmt, (success, failure)[int(rng.integers(2))], rng)
        if self.name in shortcuts.NAMES:
            word = self._shortcut(req, Verdict(success, failure))
            return _staged(fmt, word)
        if req.images:
            on_goal = pixels.agent_on_goal(pixels.panels(req.images[-1])[-1])
        else:
            on_goal = table_agent_on_goal(req.prompt)
        return _staged(fmt, success if on_goal else failure)

    def _rng(self, req: JudgeRequest) -> np.random.Generator:
        digest = int(hashlib.sha256(req.uid.encode()).hexdigest()[:12], 16)
        return np.random.default_rng([self.seed, digest])

    def _random(self, req: JudgeRequest, fmt: AnswerFormat) -> str:
        rng = self._rng(req)
        if isinstance(fmt, (Verdict, Choice)):
            return fmt.options[int(rng.integers(len(fmt.options)))]
        if isinstance(fmt, JsonObject) and fmt.required:
            labels = _E_LABELS[_e_question(req.prompt)]
            return json.dumps({fmt.required: labels[int(rng.integers(len(labels)))]})
        return FIXED_B

    def _shortcut(self, req: JudgeRequest, fmt: AnswerFormat) -> str:
        spec = task_spec(req.task)
        if not shortcuts.answers(self.name, spec):
            raise ValueError(f"baseline:{self.name} has no rule for task {spec.name}")
        if isinstance(fmt, Choice):
            return least_changed_candidate(req.images)
        if not isinstance(fmt, Verdict):
            raise ValueError(f"baseline:{self.name} answers verdicts, not {type(fmt).__name__}")
        if not req.images:
            raise ValueError(f"baseline:{self.name} reads images; {req.uid!r} has none")
        montage = montage_of(spec.name)
        ordered = _in_time_order(req.prompt, query_frames(spec.recipe, req.prompt, req.images,
                                                          montage=montage))
        target = shortcuts.stated_target(req.prompt)
        if target is None and spec.world == "minigrid" and spec.referenced:
            target = shortcuts.reference_target(_in_time_order(
                req.prompt, reference_frames(spec.recipe, req.prompt, req.images,
                                             montage=montage)))
        ok = shortcuts.verdict(self.name, spec.world, ordered, target)
        return fmt.success if ok else fmt.failure

    def _pixel(self, req: JudgeRequest, fmt: AnswerFormat) -> str:
        if isinstance(fmt, Verdict):
            frames = query_frames(task_spec(req.task).recipe, req.prompt, req.images,
                                  montage=montage_of(req.task))
            if not frames:
                return fmt.failure
            reversed_order = says_reversed(req.prompt)
            last = frames[0] if reversed_order else frames[-1]
            return fmt.success if pixels.agent_on_goal(last) else fmt.failure
        if isinstance(fmt, Choice):
            return least_changed_candidate(req.images)
        return _fixed(fmt, req.prompt)


def query_frames(recipe: str, prompt: str, images, *, montage: int | None = None
                 ) -> Sequence[np.ndarray]:
    """Frames (in shown order) of the storyboard being judged: the query storyboard of a
    reference-aided item (Task D). ``montage``: the panel side of storyboards drawn as
    gutterless montages (the paper's released items, :data:`pixels.RELEASE_PANEL`), cut
    into their panels.

    Separate frame images are converted on access, so reading only the last frame decodes
    only that image (the eval runner hands images over still encoded).
    """
    images = images if isinstance(images, Sequence) else list(images)
    if recipe in REFERENCE_RECIPES:
        m = _QUERY_SPLIT.search(prompt)
        if m and 0 < int(m.group(1)) <= len(images):
            return _Arrays(images, len(images) - int(m.group(1)))
        if len(images) >= 2:
            return _cut(pixels.panels(images[-1]), montage)
        frames = pixels.panels(images[0]) if images else []
        return _cut(frames[len(frames) // 2 :], montage)
    if len(images) == 1:
        return _cut(pixels.panels(images[0]), montage)
    return _Arrays(images, 0)


def reference_frames(recipe: str, prompt: str, images, *, montage: int | None = None
                     ) -> Sequence[np.ndarray]:
    """Frames (in shown order) of a reference-aided item's reference storyboard: the images
    before the query's, or the first image's panels (``montage``: as :func:`query_frames`)."""
    images = images if isinstance(images, Sequence) else list(images)
    if recipe not in REFERENCE_RECIPES or not images:
        return []
    m = _QUERY_SPLIT.search(prompt)
    if m and 0 < int(m.group(1)) < len(images):
        return [pixels.to_array(im) for im in images[: len(images) - int(m.group(1))]]
    if len(images) >= 2:
        return _cut(pixels.panels(images[0]), montage)
    frames = pixels.panels(images[0])
    return _cut(frames[: len(frames) // 2], montage)


def _cut(blocks: Sequence[np.ndarray], montage: int | None) -> Sequence[np.ndarray]:
    """``blocks``, each montage among them cut into its panels (``montage``: their side)."""
    if montage is None:
        return blocks
    return [panel for block in blocks for panel in pixels.montage_panels(block, montage)]


def montage_of(task: str) -> int | None:
    """The panel side of a task's gutterless montages: the imported release's, else None."""
    return pixels.RELEASE_PANEL if task_spec(task).imported else None


def _in_time_order(prompt: str, frames: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``frames`` in time order (a reversed storyboard's prompt says so)."""
    frames = list(frames)
    return frames[::-1] if says_reversed(prompt) else frames


_REVERSED = re.compile(r"frames are shown in reverse chronological order", re.IGNORECASE)


def says_reversed(prompt: str) -> bool:
    """Whether a prompt says its storyboard runs backwards: this package's note
    (``prompts.REVERSED_NOTE``) or the paper's released one ("Note: The frames are shown in
    reverse chronological order (final state first, ...)")."""
    return REVERSED_NOTE in prompt or bool(_REVERSED.search(prompt))


class _Arrays(LazySequence[np.ndarray]):
    """``pixels.to_array`` of ``images[start:]``, computed per item when it is read."""

    item_name = "frame"

    def __init__(self, images: Sequence, start: int):
        self.images, self.start = images, start

    def __len__(self) -> int:
        return len(self.images) - self.start

    def _item(self, i: int) -> np.ndarray:
        return pixels.to_array(self.images[self.start + i])


def least_changed_candidate(images) -> str:
    """Task A: the letter of the candidate closest to the current frame (first on ties).

    Five images are current + candidates A-D; one image is a choice panel whose largest panel
    is the current frame and whose other panels, in reading order, are A-D.
    """
    images = list(images)
    if len(images) >= 5:
        frames = [pixels.to_array(im) for im in images[:5]]
    elif len(images) == 1:
        boxes = pixels.panel_boxes(images[0])
        if len(boxes) < 5:
            return "A"
        big = max(range(len(boxes)), key=lambda i: boxes[i][2].shape[0] * boxes[i][2].shape[1])
        rest = [b[2] for i, b in enumerate(boxes) if i != big]
        frames = [boxes[big][2], *rest]
    else:
        return "A"
    current, candidates = frames[0], frames[1:5]
    scores = [pixels.difference(_resize_like(c, current), current) for c in candidates]
    return "ABCD"[int(np.argmin(scores))]


def _resize_like(frame: np.ndarray, target: np.ndarray) -> np.ndarray:
    if frame.shape == target.shape:
        return frame
    from PIL import Image

    img = Image.fromarray(frame.astype(np.uint8)).resize(target.shape[1::-1], Image.Resampling.BOX)
    return np.asarray(img).astype(np.int16)


def check_name(name: str) -> None:
    """Refuse a name that is not one of :data:`NAMES` (with the closest one)."""
    if name not in NAMES:
        raise ValueError(f"unknown baseline judge {name!r}; valid: {', '.join(NAMES)}"
                         + did_you_mean(name, NAMES))


def answers_task(name: str, task: str) -> bool:
    """Whether baseline ``name`` answers ``task``: a shortcut where its rule fits the task's
    answer (:func:`shortcuts.answers`), every other baseline always; an unknown name is
    refused here, before any data is read. (``judges.judge_tasks`` asks each backend this.)"""
    check_name(name)
    return name not in shortcuts.NAMES or shortcuts.answers(name, task_spec(task))


def images_only(name: str) -> bool:
    """The shortcuts read pixels only: an item without images (a State-arm row) is not theirs."""
    return name in shortcuts.NAMES


def create(name: str, options: JudgeOptions, spec: str) -> BaselineJudge:
    return BaselineJudge(name, options, spec)
