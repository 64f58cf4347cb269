"""The parts of the dataset card that depend on what was built: which world(s), which configs.

A build holds MiniGrid configs (``task_a`` ... ``oracle_state``), MiniWorld configs
(``miniworld_a`` / ``_c`` / ``_d`` / ``_c_hard``) or both; the card describes only those. Per-config
paragraphs are ``dataset_card/configs/<config>.md``, each world's "how it was made" is
``dataset_card/worlds/<world>.md``; MiniWorld's family list is written from its cards
(:mod:`gridwm_judge.worlds.miniworld.cards`) and its numbers from the constants the code
uses, so the card cannot drift from the code.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from string import Template
from typing import Any

from gridwm_judge.install import release_line
from gridwm_judge.render import DEFAULT_MAX_FRAMES, FOG_RGB
from gridwm_judge.render.nocue_style import style_rules
from gridwm_judge.resources import resource_path
from gridwm_judge.task_table import WORLDS, task_spec, world_of
from gridwm_judge.tasks import task_c_hard
from gridwm_judge.tasks.task_c import TASK_C_FAMILIES
from gridwm_judge.tasks.task_c import build_rows as task_c_rows
from gridwm_judge.worlds.minigrid.cards import NO_HARD_CF, hard_cf_of
from gridwm_judge.worlds.miniworld.card_facts import card_facts, in_card_order


@dataclass(frozen=True)
class WorldText:
    """How the card names one world: intro phrase, NoCue in a clause, Hub tags, licence."""

    label: str
    source: str
    what: str
    nocue: str
    tags: tuple[str, ...]
    extra: str
    """The package extra this world needs ("" for none)."""


WORLD_TEXT: dict[str, WorldText] = {
    "minigrid": WorldText(
        "MiniGrid", "a [MiniGrid](https://minigrid.farama.org/) trajectory", "",
        "the same states with the target evidence hidden in early frames",
        ("minigrid",), ""),
    "miniworld": WorldText(
        "MiniWorld",
        "a [MiniWorld](https://miniworld.farama.org/) trajectory", "3D rooms, seen in first person",
        "the same states with the target box (Sign: the sign) left out of a few early frames "
        "that show it",
        ("miniworld", "3d"), "3d"),
}
"""Card text per world of :data:`~gridwm_judge.task_table.WORLDS` (a card with both worlds names
them in that order). Both simulators are Apache-2.0 (MiniGrid's and MiniWorld 2.1's licence
files; MiniWorld's package metadata says "Apache")."""

def worlds_of(configs: Iterable[str]) -> tuple[str, ...]:
    """The worlds of ``configs`` (each config's ``TaskSpec.world``), in ``WORLDS`` order."""
    present = {world_of(c) for c in configs}
    return tuple(w for w in WORLDS if w in present)


def hub_tags(configs: Iterable[str]) -> list[str]:
    """The world tags of the Hub YAML (``minigrid``; ``miniworld``, ``3d``)."""
    return [t for w in worlds_of(configs) for t in WORLD_TEXT[w].tags]


def _fragment(kind: str, name: str, facts: Mapping[str, Any]) -> str:
    path = resource_path("dataset_card") / kind / f"{name}.md"
    if not path.is_file():
        raise FileNotFoundError(f"dataset card has no {kind} text for {name!r}: {path} missing")
    return Template(path.read_text()).substitute(facts).strip()


def _list(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _config_facts(profile: Any, config: str) -> dict[str, str]:
    probe_sets = dict(profile.plan(config).options).get("probe_sets", _DEFAULT_PROBE_SETS)
    return {
        **card_facts(),
        "max_frames": _NUMBERS.get(DEFAULT_MAX_FRAMES, str(DEFAULT_MAX_FRAMES)),
        "probe_sets": _list([f"`{p}`" for p in probe_sets]),
        "hard_cfs": "; ".join(f"{f}: {hard_cf_of(f).text}" for f in task_c_hard.FAMILIES),
        "hard_left_out": _left_out(),
    }


def _left_out() -> str:
    """Task C's families without a hard CF, and why (none today)."""
    out = [f for f in TASK_C_FAMILIES if f not in task_c_hard.FAMILIES]
    if not out:
        return "Every Task C family has one."
    why = {f: NO_HARD_CF.get(f, "no hard CF under the same actions") for f in out}
    return "Left out: " + "; ".join(f"{f} ({why[f]})" for f in out) + "."


_NUMBERS = {6: "six", 8: "eight", 10: "ten", 12: "twelve"}
_DEFAULT_PROBE_SETS = inspect.signature(task_c_rows).parameters["probe_sets"].default


def config_paragraphs(configs: Sequence[str], profile: Any) -> str:
    """One paragraph per config of the build, in the build's order."""
    return "\n\n".join(_fragment("configs", c, _config_facts(profile, c)) for c in configs)


def intro(configs: Sequence[str]) -> dict[str, str]:
    """``world_sources`` and ``nocue_clause`` of the intro paragraph."""
    worlds = worlds_of(configs)
    if len(worlds) == 1:
        w = WORLD_TEXT[worlds[0]]
        return {"world_sources": f"{w.source} ({w.what})" if w.what else w.source,
                "nocue_clause": w.nocue}
    sources = []
    for w in worlds:
        names = ", ".join(f"`{c}`" for c in configs if world_of(c) == w)
        text = WORLD_TEXT[w]
        sources.append(f"{text.source} ({text.what + '; ' if text.what else ''}configs {names})")
    nocue = "; ".join(f"{WORLD_TEXT[w].label}: {WORLD_TEXT[w].nocue}" for w in worlds)
    return {"world_sources": " or ".join(sources), "nocue_clause": nocue}


def config_notes(configs: Sequence[str]) -> str:
    """What the ``groups`` column of the counts table counts."""
    refs = {"task_d": "each environment", "miniworld_d": "each environment and mission"}
    with_refs = [c for c in configs if c in refs]
    if not with_refs:
        return "`groups` counts the trajectory groups the rows ask about."
    each = refs[with_refs[0]] if len(with_refs) == 1 else "each environment (" + ", ".join(
        f"{c}: {refs[c]}" for c in with_refs if refs[c] != "each environment") + ")"
    return ("`groups` counts the trajectory groups the rows ask about (for "
            f"{_list(with_refs)} the query groups; {each} adds one successful reference group, "
            "named in `reference_group_id`).")


def d3_note(configs: Sequence[str]) -> str:
    """The identical-prompts sentence, for builds with matched Full / NoCue / CF rows."""
    matched = [c for c in configs if task_spec(c).matched]
    if not matched:
        return ""
    os_note = ("; for oracle_state the pixel arm, since the state tables describe each "
               "variant's own frames" if "oracle_state" in matched else "")
    return ("The prompts of a Full row and its matched NoCue and CF rows are identical: only the "
            "images differ (gate D3, checked on the written files, see `validation.json`"
            f"{os_note}).")


def columns_note(configs: Sequence[str]) -> str:
    """MiniWorld rows read the columns' task letters A, C, D as MA, MC, MD."""
    if "miniworld" not in worlds_of(configs):
        return ""
    return (" Where a column's meaning names Task A, C or D, it holds for MiniWorld's MA, MC "
            "and MD alike.")


def miniworld_families(profile: Any, configs: Sequence[str]) -> tuple[str, ...]:
    """The MiniWorld families the build's MiniWorld configs drew groups from, in card order."""
    return in_card_order({f for c in configs if world_of(c) == "miniworld"
                          for f, n in profile.plan(c).families if n})


def _renderer(validation: Mapping[str, Any]) -> str:
    r = validation.get("generation", {}).get("miniworld_renderer")
    if not r:
        return "not recorded"
    return f"`{r.get('renderer', '?')}`, OpenGL `{r.get('version', '?')}`"


def nocue_style_text(style: str | None) -> str:
    """What the build's NoCue style does, the ``clean`` rule per target type included."""
    if style == "occlude":
        return ("Every hidden target tile is covered by an opaque light-grey "
                f"{FOG_RGB} square, in NoCue only: the paper's rendering, kept so its items can "
                "be rebuilt. Such a square appears only in NoCue, whose gold is always success, "
                "so it predicts the label; build with `--nocue-style clean` to remove that mark.")
    if style != "clean":
        return "The NoCue style was not recorded."
    rules = "; ".join(f"**{kinds}**: {rule}" for kinds, rule in style_rules().items())
    return ("No square appears in NoCue alone. Per target type: " + rules + ". The balancing "
            "squares cover the same number of tiles in the same arrangement (NoCue's pattern "
            "moved by one translation, drawn from the group's identity, onto cells that are "
            "walls in Full and CF and, where the grid allows, not next to a target), so every "
            "variant of a group shows the same kind of mark in the same frames. The `mask` "
            "column lists, per frame, the cells each row's frames erase and cover; the "
            "Oracle-State tables leave an erased object out and list every covered cell as "
            "hidden, decoys included. A build without NoCue rows (e.g. the quickstart's Full / "
            "CF items) draws no mark at all. What still differs: where the squares sit (NoCue's "
            "over the door or lava, inside the room; the others' on wall cells), so a rule that "
            "reads a square's position, not its presence, can still tell NoCue apart; and an "
            "erased or covered object is absent from NoCue's early frames, which is the "
            "evidence NoCue removes.")


def how_made(configs: Sequence[str], profile: Any, validation: Mapping[str, Any]) -> str:
    """Each world's "how it was made" text; with both worlds, each under its name."""
    worlds = worlds_of(configs)
    seed = validation.get("seeds", {}).get("generation")
    facts = {
        **card_facts(miniworld_families(profile, configs)),
        "renderer": _renderer(validation), "seed": seed,
        "nocue_style": validation.get("nocue_style", "not recorded"),
        "nocue_style_text": nocue_style_text(validation.get("nocue_style")),
    }
    parts = [_fragment("worlds", w, facts) for w in worlds]
    if len(parts) == 1:
        return parts[0]
    return "\n\n".join(f"**{WORLD_TEXT[w].label}.** {p}"
                       for w, p in zip(worlds, parts, strict=True))


def install_line(configs: Sequence[str], version: str) -> str:
    """The ``pip install`` line of the regenerate block: release ``version`` (the one that
    built the copy), with the 3d extra when MiniWorld is built (it installs MiniGrid's
    dependencies too; MiniWorld also needs EGL and Mesa)."""
    extra = WORLD_TEXT[worlds_of(configs)[-1]].extra
    return release_line(version, extra or None) + (
        "   # MiniWorld; needs EGL and Mesa" if extra == "3d" else "")


def simulator_licenses(configs: Sequence[str]) -> str:
    labels = [WORLD_TEXT[w].label for w in worlds_of(configs)]
    verb = "is" if len(labels) == 1 else "are"
    return f"{_list(labels)} {verb} Apache-2.0 licensed."
