"""Render the dataset card (README.md) of a built folder: Hub YAML metadata + prose.

The YAML carries what the Hub and ``datasets`` read: ``configs`` with ``data_files`` (so the
scriptless layout loads with ``load_dataset(path, "task_c")``), ``dataset_info`` with features
and split sizes, license, task categories, size category and pretty name. The prose comes from
``dataset_card/template.md`` filled with this build's counts, seeds and checks, and with the
text of the configs and world(s) it holds (:mod:`gridwm_judge.dataset.card_text`).
"""

from __future__ import annotations

import re
from pathlib import Path
from string import Template
from typing import Any

from gridwm_judge import __version__
from gridwm_judge.dataset import card_text, ceilings
from gridwm_judge.prompts import PROMPT_VERSION
from gridwm_judge.resources import resource_path
from gridwm_judge.schema import COLUMNS, DATASET_VERSION, MODEL_FACING
from gridwm_judge.worlds.minigrid.cards import ENV_CARDS
from gridwm_judge.worlds.miniworld.cards import CARDS as MINIWORLD_CARDS

PRETTY_NAME = "GridWM-Judge"
TASK_CATEGORIES = ["visual-question-answering", "image-text-to-text"]


def size_category(n: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < bound:
            return label
    return "n>1M"


def card_yaml(splits: dict[str, dict[str, int]], license: str = "apache-2.0",
              pretty_name: str = PRETTY_NAME) -> str:
    """The YAML block (without the ``---`` fences) for ``{config: {num_examples, num_bytes,
    download_size}}``. ``license``: the items' (this package's builds are Apache-2.0, like
    the simulators; the paper's release, imported, is MIT)."""
    import datasets
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCardData

    from gridwm_judge.dataset.features import features

    data = DatasetCardData(
        license=license,
        language=["en"],
        pretty_name=pretty_name,
        task_categories=TASK_CATEGORIES,
        size_categories=[size_category(sum(s["num_examples"] for s in splits.values()))],
        tags=[*card_text.hub_tags(splits), "vlm-as-a-judge", "world-models", "counterfactual",
              "benchmark"],
    )
    infos = {}
    for config, s in splits.items():
        split_dict = datasets.SplitDict()
        split_dict.add(datasets.SplitInfo(name="test", num_bytes=s["num_bytes"],
                                          num_examples=s["num_examples"]))
        infos[config] = datasets.DatasetInfo(
            config_name=config, features=features(), splits=split_dict,
            download_size=s["download_size"], dataset_size=s["num_bytes"],
        )
    DatasetInfosDict(infos).to_dataset_card_data(data)
    default = default_config(splits)
    MetadataConfigs(
        {c: {"data_files": [{"split": "test", "path": f"data/{c}/test-*"}],
             **({"default": True} if c == default else {})} for c in splits}
    ).to_dataset_card_data(data)
    return data.to_yaml()


def default_config(configs) -> str | None:
    """The config the Hub viewer opens and ``load_dataset(path)`` loads without a config name
    (the Hub lists configs by name, oracle_state and prompt_ablation before task_a): Task C,
    MiniGrid's or else MiniWorld's, when built."""
    return next((c for c in ("task_c", "miniworld_c") if c in configs), next(iter(configs), None))


def counts_table(splits: dict[str, dict[str, int]], validation: dict[str, Any]) -> str:
    lines = ["| config | rows | groups | images | Parquet size |", "|---|---:|---:|---:|---:|"]
    for config, s in splits.items():
        v = validation.get("configs", {}).get(config, {})
        lines.append(f"| `{config}` | {s['num_examples']:,} | {v.get('groups', '?')} | "
                     f"{v.get('images', '?'):,} | {_size(s['download_size'])} |")
    return "\n".join(lines)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def columns_table() -> str:
    """The row layout (:data:`~gridwm_judge.schema.COLUMNS`), each world's families named from
    its cards."""
    families = f"MiniGrid {', '.join(ENV_CARDS)}; MiniWorld {', '.join(MINIWORLD_CARDS)}"
    lines = ["| column | type | role | meaning |", "|---|---|---|---|"]
    for name, (dtype, meaning) in COLUMNS.items():
        role = "**model-facing**" if name in MODEL_FACING else "audit"
        shown = "list of images" if dtype == "list_image" else dtype
        meaning = meaning.replace("{families}", families).replace("|", "/")
        lines.append(f"| `{name}` | {shown} | {role} | {meaning} |")
    return "\n".join(lines)


def validation_summary(validation: dict[str, Any]) -> str:
    gen = validation.get("generation", {})
    gates = gen.get("gates", {})
    lines = ["Checks of this build:", ""]
    for config, v in validation.get("configs", {}).items():
        d3 = v.get("d3_prompts_identical_across_variants")
        extra = f"; D3 prompts identical across variants: {d3['ok']}" if d3 else ""
        same = v.get("nocue_images_differ_from_full")
        if same:
            extra += (f"; NoCue rows showing exactly their Full row's images: "
                      f"{same['same_as_full']} of {same['checked']}")
        lines.append(f"- `{config}`: {v['rows']} rows (profile expects {v['expected_rows']}), "
                     f"unique uids: {v['unique_uids']}{extra}")
    if gates:
        passed = ", ".join(f"{g} {c['pass']}/{c['pass'] + c['fail']}" for g, c in gates.items())
        lines.append(f"- validator gates over the groups used: {passed}")
    rejects = gen.get("rejects_by_reason", {})
    if rejects:
        lines.append("- seeds rejected during generation, by reason: "
                     + ", ".join(f"{k} {v}" for k, v in rejects.items()))
    return "\n".join(lines)


def render(folder: Path, *, splits: dict[str, dict[str, int]], validation: dict[str, Any],
           profile: Any, build_command: str, load_path: str = "USER/gridwm-judge") -> Path:
    """Write ``folder/README.md`` and return its path."""
    from gridwm_judge.dataset.builder import _CITATION  # imports datasets: only when writing

    template = Template((resource_path("dataset_card") / "template.md").read_text())
    seeds = validation.get("seeds", {})
    configs = list(splits)
    prose = template.substitute(
        **card_text.intro(configs),
        profile=profile.name,
        profile_description=profile.description,
        seed=seeds.get("generation"),
        sampling_seed=seeds.get("sampling"),
        version=__version__,
        prompt_version=PROMPT_VERSION,
        dataset_version=validation.get("dataset_version", DATASET_VERSION),
        shortcut_ceilings=ceilings.markdown(validation.get("shortcut_ceilings") or {}),
        counts_table=counts_table(splits, validation),
        config_notes=card_text.config_notes(configs),
        config_paragraphs=card_text.config_paragraphs(configs, profile),
        d3_note=card_text.d3_note(configs),
        default_config=default_config(configs),
        columns_note=card_text.columns_note(configs),
        columns_table=columns_table(),
        how_made=card_text.how_made(configs, profile, validation),
        install=card_text.install_line(configs, __version__),
        simulator_licenses=card_text.simulator_licenses(configs),
        load_path=load_path,
        build_command=build_command,
        validation_summary=validation_summary(validation),
        citation=_CITATION.strip(),
    )
    prose = re.sub(r"\n{3,}", "\n\n", prose)   # a text left out leaves no gap
    path = folder / "README.md"
    path.write_text(f"---\n{card_yaml(splits)}\n---\n\n{prose}")
    return path
