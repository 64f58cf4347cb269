"""Visual probes preserve the scene: every tile of a noisy or styled frame classifies back to
the same symbolic grid as the clean frame (and as the simulator's own state)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from gridwm_judge.render import apply_visual, crop_box, keyframes, render_frames
from gridwm_judge.render.tiles import classify_frame, palette, symbolic_grid
from gridwm_judge.worlds.minigrid import generate_groups, replay_envs


@pytest.mark.parametrize(
    "family", ["doorkey", "keycorridor", "blockedunlockpickup", "multiroom"]
)
def test_probes_keep_symbolic_grid(family):
    group = generate_groups(family, 1, 830000).groups[0]
    frames = render_frames(group, "full", nocue_style=None)  # the simulator's own frames
    box = crop_box(group)
    wanted = set(keyframes(group, max_frames=4))
    checked = 0
    for t, env in enumerate(replay_envs(group.env_id, group.seed, group.actions)):
        if t == 0:
            colors = palette(env)
        if t not in wanted:
            continue
        # Frames show the group's crop: the tile at (i, j) of a frame is grid cell
        # (box.x + i, box.y + j).
        truth = symbolic_grid(env)[box.y : box.y + box.height, box.x : box.x + box.width]
        tile = frames[t].shape[0] // box.height
        clean = classify_frame(frames[t], tile, colors)
        assert (clean == truth).all()
        for visual in ("noisy", "style"):
            img = apply_visual(Image.fromarray(frames[t]), visual, f"{group.group_id}/{t}")
            probed = np.asarray(img)
            assert not np.array_equal(probed, frames[t])
            got = classify_frame(probed, tile, colors)
            bad = [(truth[j, i], got[j, i]) for j, i in np.argwhere(got != clean)]
            assert not bad, f"{visual} t={t}: {bad[:3]}"
        checked += 1
    assert checked == len(wanted)


def test_classifier_sees_carried_object_and_fog():
    group = generate_groups("doorkey", 1, 830000).groups[0]
    t = next(e["t"] for e in group.full.events if e["type"] == "pickup")
    frame = render_frames(group, "full")[t]
    labels = classify_frame(frame, frame.shape[0] // 8, ("green", "grey", "yellow"))
    agent = [lab for lab in labels.ravel() if "|agent" in lab]
    assert len(agent) == 1 and agent[0].endswith("+key_yellow")
    first = group.nocue.mask[0]
    nocue = render_frames(group, "nocue", nocue_style="occlude")[first["t"]]
    fog = classify_frame(nocue, nocue.shape[0] // 8, ("green", "grey", "yellow"))
    assert (fog == "fog").sum() == len(first["tiles"])
    # The clean style erases the key: its cell reads back as empty floor, nothing as fog.
    erased = classify_frame(render_frames(group, "nocue", nocue_style="clean")[first["t"]],
                            nocue.shape[0] // 8, ("green", "grey", "yellow"))
    assert (erased == "fog").sum() == 0
    assert all(erased[y, x] == "empty::" for x, y in first["tiles"])
