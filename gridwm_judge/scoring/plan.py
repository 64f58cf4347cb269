"""``gridwm-judge plan``: the size a judge comparison needs, what it costs, what a profile
resolves. The statistics are :mod:`gridwm_judge.scoring.power`'s.

A metric is a proportion over units: groups for the causal metrics of the Task C-style
configs (IDR_raw, p_active, Acc_cf), questions for Acc_A1, rows ("items") for the other
accuracies. The cost of n units is measured, not guessed: one small sample of the config's
rows (the ``smoke`` or ``miniworld_smoke`` profile's groups) is built in memory and its images
and prompts counted. Prompt tokens per request are estimated as

    sum over images of ceil(width / patch) * ceil(height / patch)  +  prompt characters / 4
    +  the task's answer budget (an upper bound on what is generated)

(``--patch`` 28: Qwen2-VL-style 14-pixel patches merged 2 x 2; other models tile otherwise).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

from gridwm_judge.dataset.generation import GroupPool
from gridwm_judge.dataset.profiles import get_profile
from gridwm_judge.formats import fcount_of, fnum
from gridwm_judge.prices import PROVIDERS, image_tokens
from gridwm_judge.scoring import power
from gridwm_judge.seeds import GENERATION_SEED
from gridwm_judge.task_table import ALL_TASKS, TaskSpec
from gridwm_judge.tasks import build_rows, task_module

GROUP_RECIPES = ("presentation_invariance",)


@dataclass(frozen=True)
class Metric:
    unit: str
    recipes: tuple[str, ...]
    rows_per_unit: str
    """How many rows one unit costs: "neutral" (a group's rows at the neutral presentation),
    "conditions" (a question's three action conditions) or "one"."""


METRICS: dict[str, Metric] = {
    "idr_raw": Metric("groups", GROUP_RECIPES, "neutral"),
    "p_active": Metric("groups", GROUP_RECIPES, "neutral"),
    "acc_cf": Metric("groups", GROUP_RECIPES, "neutral"),
    "acc_a1": Metric("questions", ("next_state",), "conditions"),
    "accuracy": Metric("items", ("reference_aided", "state_tracking", "perception",
                                 "oracle_state", "prompt_ablation"), "one"),
}
PATCH = 28


def metric(name: str) -> Metric:
    if name not in METRICS:
        raise ValueError(f"unknown metric {name!r}; expected one of {', '.join(METRICS)}")
    return METRICS[name]


def configs_of(name: str) -> tuple[TaskSpec, ...]:
    """The configs ``name`` scores that a build can size (not the paper's imported exams,
    whose size is the release's)."""
    return tuple(s for s in ALL_TASKS if s.recipe in metric(name).recipes and not s.imported)


@dataclass(frozen=True)
class RowCost:
    """Mean cost of one request (row) of a config, measured on a sample."""

    images: float
    image_tokens: float
    prompt_tokens: float
    budget: int
    sample_rows: int
    provider_image_tokens: dict[str, float] = field(default_factory=dict)
    """Mean image tokens per row by each provider's own rule (:func:`prices.image_tokens`)."""

    @property
    def tokens(self) -> float:
        return self.image_tokens + self.prompt_tokens + self.budget


def _neutral(row: dict) -> bool:
    return all(row.get(k) in (None, "", want) for k, want in
               (("temporal", "orig"), ("visual", "clean"), ("framing", "neutral")))


def check_patch(patch: int) -> None:
    if patch < 1:
        raise ValueError(f"--patch must be a positive number of pixels, got {patch}")


def row_cost(spec: TaskSpec, *, patch: int = PATCH, seed: int = GENERATION_SEED) -> RowCost:
    """Mean images and estimated prompt tokens per row of ``spec``'s config (see the module),
    from the smoke profile's sample of it (MiniWorld configs need the ``3d`` extra)."""
    check_patch(patch)
    smoke = get_profile("miniworld_smoke" if spec.world == "miniworld" else "smoke")
    plan = smoke.plan(spec.config)
    groups = GroupPool(seed).groups(plan)
    rows = build_rows(spec.config, groups, seed=seed, **dict(plan.options))
    rows = [r for r in rows if _neutral(r)] or rows
    pixels = text = images = 0.0
    by_provider = dict.fromkeys(PROVIDERS, 0.0)
    for r in rows:
        images += len(r["images"])
        pixels += sum(math.ceil(im.width / patch) * math.ceil(im.height / patch)
                      for im in r["images"])
        text += len(r["prompt"]) / 4
        for provider in PROVIDERS:
            by_provider[provider] += sum(image_tokens(provider, im.width, im.height)[0]
                                         for im in r["images"])
    n = len(rows)
    return RowCost(images / n, pixels / n, text / n, spec.max_tokens, n,
                   {k: v / n for k, v in by_provider.items()})


def rows_per_unit(spec: TaskSpec, name: str) -> int:
    how = metric(name).rows_per_unit
    if how == "neutral":
        return task_module(spec.config).rows_per_group(("baseline",))
    return 3 if how == "conditions" else 1


def needed(name: str, mde: float, *, paired: bool, alpha: float, power_: float,
           discordance: float, base_rate: float) -> int:
    """Units per judge (unpaired) or shared (paired) to detect ``mde`` on ``name``."""
    metric(name)
    if paired:
        if metric(name).unit != "groups":
            raise ValueError(f"--paired works on the per-group discrimination indicator; "
                             f"{name} is a proportion over {metric(name).unit}")
        return power.paired_n(mde, alpha=alpha, power=power_, discordance=discordance)
    return power.unpaired_n(mde, alpha=alpha, power=power_, base_rate=base_rate)


def cost(spec: TaskSpec, name: str, units: int, *, patch: int = PATCH) -> dict:
    """Rows, requests, images and estimated prompt tokens per judge of ``units`` units."""
    try:
        per = row_cost(spec, patch=patch)
    except ImportError as exc:
        return {"config": spec.config, "units": units, "error": f"cannot measure: {exc}"}
    rows = units * rows_per_unit(spec, name)
    return {"config": spec.config, "units": units, "rows": rows, "requests_per_judge": rows,
            "images": round(rows * per.images), "tokens_per_judge": round(rows * per.tokens),
            "per_request": {k: round(v, 1) for k, v in asdict(per).items()
                            if isinstance(v, (int, float))}
            | {"tokens": round(per.tokens, 1)}}


def resolution(profile: str, name: str, *, alpha: float, power_: float, discordance: float,
               base_rate: float) -> list[dict]:
    """Per config of ``profile`` carrying ``name`` and per family: units, CI half-width and
    the MDE (paired for groups, unpaired otherwise) that size gives."""
    prof = get_profile(profile)
    wanted = {s.config: s for s in configs_of(name)}
    out = []
    for plan in prof.plans:
        if plan.config not in wanted:
            continue
        groups_metric = metric(name).unit == "groups"
        scopes = [("all", sum(n for _, n in plan.families))] + list(plan.families)
        if not groups_metric:
            total = plan.n_items or plan.expected_rows
            scopes = [("all", total)]
        for family, n in scopes:
            mde = (power.paired_mde(n, alpha=alpha, power=power_, discordance=discordance)
                   if groups_metric else
                   power.unpaired_mde(n, alpha=alpha, power=power_, base_rate=base_rate))
            out.append({"config": plan.config, "family": family, "units": n,
                        "ci_half_width": round(power.ci_half_width(
                            n, alpha=alpha, base_rate=base_rate), 3),
                        "mde": None if mde is None else round(mde, 3),
                        "mde_design": "paired" if groups_metric else "unpaired"})
    if not out:
        raise ValueError(f"profile {profile!r} holds no config scored by {name} (those are "
                         f"{', '.join(s.config for s in configs_of(name))})")
    return out


def plan(name: str, mde: float, *, paired: bool = False, alpha: float = 0.05,
         power_: float = 0.8, discordance: float = 0.2, base_rate: float = 0.5,
         profile: str | None = None, configs: Sequence[str] | None = None,
         patch: int = PATCH, progress: bool = False) -> dict:
    """Everything ``gridwm-judge plan`` prints, as one JSON-ready dict. ``progress``: a bar
    on stderr while each config's cost is measured on its sample (seconds each)."""
    power.check_design(alpha=alpha, power=power_, discordance=discordance,
                       base_rate=base_rate)
    check_patch(patch)  # bad input is refused before anything is measured
    if profile:
        get_profile(profile)
    n = needed(name, mde, paired=paired, alpha=alpha, power_=power_, discordance=discordance,
               base_rate=base_rate)
    specs = configs_of(name)
    if configs:
        known = {s.config: s for s in specs}
        bad = [c for c in configs if c not in known]
        if bad:
            raise ValueError(f"config {bad[0]!r} is not scored by {name}; expected one of "
                             f"{', '.join(known)}")
        specs = tuple(known[c] for c in configs)
    result = {
        "metric": name, "unit": metric(name).unit, "mde": mde, "alpha": alpha, "power": power_,
        "design": "paired" if paired else "unpaired", "base_rate": base_rate,
        "discordance": discordance if paired else None,
        "groups_needed": n if metric(name).unit == "groups" else None,
        "units_needed": n,
        "costs": [cost(s, name, n, patch=patch) for s in _measuring(specs, progress)],
    }
    if profile:
        result["profile"] = profile
        result["resolution"] = resolution(profile, name, alpha=alpha, power_=power_,
                                          discordance=discordance, base_rate=base_rate)
    return result


def _measuring(specs: Sequence[TaskSpec], progress: bool) -> Iterable[TaskSpec]:
    """``specs``, under a progress bar on stderr when asked (a line where it is no terminal)."""
    if not progress:
        return specs
    from tqdm import tqdm

    if not sys.stderr.isatty():
        print(f"plan: measuring the cost of {len(specs)} config(s) on a smoke-sized sample "
              "...", file=sys.stderr, flush=True)
    return tqdm(specs, desc="plan: measuring costs", unit="config", file=sys.stderr,
                disable=not sys.stderr.isatty(), dynamic_ncols=True)


def text(result: dict) -> str:
    """The plan as lines a person reads."""
    unit, n = result["unit"], result["units_needed"]
    who = ("two judges on the same groups (McNemar, "
           f"{result['discordance']:.0%} discordant groups)" if result["design"] == "paired"
           else f"each of two judges (independent sets, base rate {result['base_rate']})")
    lines = [f"{result['metric']}: {n} {unit} for {who} to detect a difference of "
             f"{result['mde']} at alpha {result['alpha']} with power {result['power']}", ""]
    lines.append("cost per judge (one request per row; tokens estimated, see --help):")
    for c in result["costs"]:
        if "error" in c:
            lines.append(f"  {c['config']}: {c['error']}")
            continue
        lines.append(f"  {c['config']}: {c['units']} {unit} -> {c['rows']} requests "
                     f"({c['rows'] // c['units']} per {unit.rstrip('s')}), "
                     f"{c['images']} images, ~{c['tokens_per_judge']:,} prompt tokens "
                     f"(~{c['per_request']['tokens']:.0f} per request)")
    if "resolution" in result:
        level = f"{100 * (1 - result['alpha']):g}%"
        lines += ["", f"profile {result['profile']}: what it resolves "
                      f"({level} CI half-width at {result['base_rate']}, MDE at power "
                      f"{result['power']})"]
        for r in result["resolution"]:
            mde = "none up to --discordance" if r["mde"] is None else fnum(r["mde"])
            n, word = fcount_of(r["units"], unit).split(" ", 1)
            lines.append(f"  {r['config']:<18} {r['family']:<12} {n:>5} {word:<{len(unit)}}  "
                         f"±{fnum(r['ci_half_width'])}  {r['mde_design']} MDE {mde}")
    return "\n".join(lines)


def to_json(result: dict) -> str:
    return json.dumps(result, indent=2)
