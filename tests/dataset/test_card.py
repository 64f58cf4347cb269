"""The dataset card describes what was built: its configs, its world(s), their families.

``card.render`` is called with the split sizes and validation report a build would pass (no
build: the real builds' cards are checked in test_build_roundtrip / test_miniworld_build).
"""

import dataclasses

import yaml

from gridwm_judge import __version__
from gridwm_judge.dataset import card, card_text
from gridwm_judge.dataset.profiles import Profile, get_profile
from gridwm_judge.install import REPOSITORY
from gridwm_judge.schema import COLUMNS
from gridwm_judge.task_table import BUILT_CONFIGS, CONFIGS, MINIWORLD_TASKS, WORLDS
from gridwm_judge.worlds.minigrid.cards import FAMILIES as MG_FAMILIES
from gridwm_judge.worlds.miniworld.cards import FAMILIES as MW_FAMILIES
from gridwm_judge.worlds.miniworld.cards import get_card
from gridwm_judge.worlds.miniworld.states import MIN_AREA

RENDERER = {"vendor": "Mesa", "renderer": "llvmpipe (LLVM 15.0.6, 256 bits)",
            "version": "4.5 (Compatibility Profile) Mesa 22.3.6"}
MW_CONFIGS = tuple(t.config for t in MINIWORLD_TASKS)


def render(tmp_path, profile):
    splits = {c: {"num_examples": 12, "num_bytes": 3000, "download_size": 2000}
              for c in profile.configs}
    validation = {
        "seeds": {"generation": 830000, "sampling": 42},
        "configs": {c: {"rows": 12, "expected_rows": 12, "unique_uids": True, "groups": 2,
                        "images": 24} for c in profile.configs},
        "generation": {"gates": {"D1": {"pass": 3, "fail": 0}}, "rejects_by_reason": {},
                       "miniworld_renderer": RENDERER},
    }
    path = card.render(tmp_path, splits=splits, validation=validation, profile=profile,
                       build_command=f"gridwm-judge build --profile {profile.name}")
    _, head, prose = path.read_text().split("---\n", 2)
    return yaml.safe_load(head), prose


def test_miniworld_card_names_its_configs_and_families_and_no_minigrid(tmp_path):
    meta, prose = render(tmp_path, get_profile("miniworld"))
    assert meta["tags"][:2] == ["miniworld", "3d"] and "minigrid" not in meta["tags"]
    assert [m["config_name"] for m in meta["configs"] if m.get("default")] == ["miniworld_c"]
    assert '"miniworld_c", split="test"' in prose
    for config in MW_CONFIGS:
        assert f"- **{config}," in prose
    for family in MW_FAMILIES:   # the profile builds all four, each with its card's reason
        c = get_card(family)
        assert f"**`{family}`** (`{c.env_id}`" in prose and c.why in prose
        assert c.cf_kind in prose
    # nothing of MiniGrid's: not its trajectories, tasks, renderer, planner or install line
    for text in ("[MiniGrid](", "- **task_", "task_a", "shortest-path planner",
                 "MiniGrid's own renderer", "mask/target IoU", "MiniGrid is Apache",
                 'pip install "gridwm-judge @'):
        assert text not in prose, text
    assert "[MiniWorld](https://miniworld.farama.org/) trajectory" in prose
    assert "first-person 3D view" in prose and "top-down map" in prose
    # the NoCue rule as the code applies it, the gates, the renderer and plain replay
    assert f"at least {MIN_AREA:.1%} of the" in prose and "word is legible" in prose
    for gate in ("D1", "D2", "D4", "D5", "D6", "E1", "N1 (3D)", "CF1", "V1"):
        assert gate in prose
    assert RENDERER["renderer"] in prose and "EGL" in prose
    assert all(op in prose for op in ("`move_entity`", "`swap_entities`", "`set`"))
    assert (f'pip install "gridwm-judge[3d] @ git+{REPOSITORY}@v{__version__}"' in prose)
    assert "MiniWorld is Apache-2.0 licensed." in prose
    assert "Task A, C or D" in prose and "identical: only the" in prose
    assert "$" not in prose


def test_miniworld_smoke_card_names_only_the_families_built(tmp_path):
    smoke = get_profile("miniworld_smoke")   # its miniworld_c_hard draws all four families
    (tmp_path / "all").mkdir()
    (tmp_path / "two").mkdir()
    _, prose = render(tmp_path / "all", smoke)
    assert all(f"**`{f}`**" in prose for f in ("tmaze", "putnext", "sign", "fourrooms"))
    two = dataclasses.replace(smoke, plans=tuple(p for p in smoke.plans
                                                 if p.config != "miniworld_c_hard"))
    _, prose = render(tmp_path / "two", two)
    assert "**`tmaze`**" in prose and "**`putnext`**" in prose
    assert "**`sign`**" not in prose and "**`fourrooms`**" not in prose
    # its probe sets, from the profile's plan
    assert "this build asks `baseline` and `framing`" in prose


def test_minigrid_card_keeps_minigrid_text_and_no_miniworld(tmp_path):
    meta, prose = render(tmp_path, get_profile("base"))
    assert meta["tags"][0] == "minigrid" and not {"miniworld", "3d"} & set(meta["tags"])
    # the columns table (shared by every card) names both worlds' ids; nothing else does
    outside_columns = prose.split("## Columns")[0] + prose.split("## How it was made")[1]
    assert "miniworld" not in outside_columns.lower()
    assert "3D" not in outside_columns and "first-person" not in outside_columns
    assert "Every item comes from a [MiniGrid](https://minigrid.farama.org/) trajectory" in prose
    assert "shortest-path planner over MiniGrid's symbolic state" in prose
    assert "MiniGrid is Apache-2.0 licensed." in prose and '"task_c", split="test"' in prose
    for config in get_profile("base").configs:
        assert f"- **{config}," in prose
    assert "for oracle_state the pixel arm" in prose
    # the release that built it, from the repository (the package is not on PyPI)
    assert f'pip install "gridwm-judge @ git+{REPOSITORY}@v{__version__}"\n' in prose


def test_card_describes_only_the_configs_built(tmp_path):
    _, prose = render(tmp_path, get_profile("quickstart"))
    for config in CONFIGS:
        assert f"- **{config}," in prose
    assert "- **oracle_state," not in prose and "- **prompt_ablation," not in prose
    assert "for oracle_state" not in prose and "\n\n\n" not in prose


def test_card_with_both_worlds_describes_both(tmp_path):
    """No profile mixes the worlds today; a card for one that did names each with its configs."""
    base, mw = get_profile("base"), get_profile("miniworld")
    mixed = Profile("mixed", "both worlds", base.plans + mw.plans)
    meta, prose = render(tmp_path, mixed)
    assert meta["tags"][:3] == ["minigrid", "miniworld", "3d"]
    for config in BUILT_CONFIGS:   # every config it builds has its paragraph
        assert f"- **{config}," in prose
    assert "**MiniGrid.** Groups are generated" in prose and "**MiniWorld.** Groups are" in prose
    assert "MiniGrid and MiniWorld are Apache-2.0 licensed." in prose
    assert "trajectory (configs `task_a`" in prose
    assert "first person; configs `miniworld_a`" in prose
    assert "$" not in prose


def test_world_of_config():
    assert {card_text.world_of(c) for c in CONFIGS} == {"minigrid"}
    assert {card_text.world_of(c) for c in MW_CONFIGS} == {"miniworld"}
    assert card_text.worlds_of(["miniworld_c", "task_c"]) == ("minigrid", "miniworld")
    assert tuple(card_text.WORLD_TEXT) == WORLDS   # the card has text for every world


def test_schema_names_both_worlds():
    """The columns table of every card comes from these meanings; the families are each
    world's cards."""
    env_id = COLUMNS["env_id"][1]
    family = next(line for line in card.columns_table().splitlines()
                  if line.startswith("| `family` |"))
    assert family.endswith(f"MiniGrid {', '.join(MG_FAMILIES)}; MiniWorld "
                           f"{', '.join(MW_FAMILIES)} |")
    assert "MiniGrid" in env_id and "MiniWorld" in env_id
    assert all(t in COLUMNS["task"][1] for t in ("A..E", "MA", "MC", "MD"))
