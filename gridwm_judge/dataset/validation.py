"""Checks run on a built dataset folder, written to validation.json.

They read the Parquet files back (audit columns only) so they check what was written, not what
was meant: row counts against the profile, unique uids, the D3 prompt gate (a Full row and its
matched NoCue / CF rows have identical prompts), the NoCue image gate (a NoCue row never shows
exactly its Full row's images: the evidence it removes must be in what the judge sees), and the
label balance of C/D.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from gridwm_judge.task_table import task_spec

AUDIT_READ = ("uid", "task", "group_id", "variant", "temporal", "visual", "framing",
              "representation", "probe_family", "prompt_style", "prompt", "label", "images",
              "evidence")
OS_READ = ("env_id", "reference_group_id", "answer", "task_type_order")
"""The further columns oracle_state's checks read."""
MIN_REFERENCES = 3
"""oracle_state: distinct references an env with at least this many queries must have."""
TEXT_ONLY_EVIDENCE = "state"
"""Oracle-State's state arm is text only: its rows must have no image, every other row some."""


def read_columns(folder: Path, config: str,
                 columns: tuple[str, ...] = AUDIT_READ) -> dict[str, list]:
    """The given columns of one config (images read as a count per row)."""
    import pyarrow.parquet as pq

    files = sorted((folder / "data" / config).glob("test-*.parquet"))
    if not files:
        raise FileNotFoundError(f"no Parquet files for {config} under {folder / 'data' / config}")
    # "images.list.element.path" reads the list structure without the (large) image bytes
    wanted = [("images.list.element.path" if c == "images" else c) for c in columns]
    out: dict[str, list] = defaultdict(list)
    for f in files:
        table = pq.ParquetFile(f).read(columns=wanted)
        for name in columns:
            col = table.column(name)
            if name == "images":
                out["n_images"] += [len(v) for v in col.to_pylist()]
            else:
                out[name] += col.to_pylist()
    return dict(out)


PRESENTATION = ("group_id", "probe_family", "temporal", "visual", "framing", "representation",
                "prompt_style")
"""The columns that name one group's presentation: rows equal in these differ in variant only."""


def _presentation(cols: dict[str, list], i: int, *extra: str) -> tuple:
    return tuple(cols[c][i] for c in (*PRESENTATION, *extra))


def d3_prompt_gate(cols: dict[str, list]) -> dict[str, Any]:
    """Rows of one group and presentation differ in variant only: their prompts must match."""
    by_key: dict[tuple, set[str]] = defaultdict(set)
    variants: dict[tuple, set[str]] = defaultdict(set)
    for i in range(len(cols["uid"])):
        key = _presentation(cols, i)
        by_key[key].add(cols["prompt"][i])
        variants[key].add(cols["variant"][i])
    bad = [list(k) for k, prompts in by_key.items() if len(prompts) > 1]
    return {"checked_presentations": len(by_key),
            "with_several_variants": sum(len(v) > 1 for v in variants.values()),
            "mismatched": len(bad), "examples": bad[:5], "ok": not bad}


def image_digests(folder: Path, config: str) -> list[str]:
    """Per row, a digest of its images' bytes in order (read in read_columns' order, one row
    group at a time: iter_batches held about 550 MB more for the ``miniworld`` profile)."""
    import pyarrow.parquet as pq

    out = []
    for f in sorted((folder / "data" / config).glob("test-*.parquet")):
        pf = pq.ParquetFile(f)
        for i in range(pf.metadata.num_row_groups):
            group = pf.read_row_group(i, columns=["images.list.element.bytes"])
            for images in group.column("images").to_pylist():
                h = hashlib.sha256()
                for im in images or ():
                    h.update(hashlib.sha256(im["bytes"] or b"").digest())
                out.append(h.hexdigest())
    return out


def nocue_image_gate(folder: Path, config: str, cols: dict[str, list]) -> dict[str, Any]:
    """NoCue rows with images whose images are byte-identical to the matched Full row's; a
    NoCue row without exactly one Full row of its presentation is counted as unmatched (a gate
    that compared nothing must not pass)."""
    digests = image_digests(folder, config)
    if len(digests) != len(cols["uid"]):
        raise ValueError(f"{config}: {len(digests)} image rows read for {len(cols['uid'])} rows")
    key = [_presentation(cols, i, "evidence") for i in range(len(digests))]
    full: dict[tuple, list[str]] = defaultdict(list)
    for i, d in enumerate(digests):
        if cols["variant"][i] == "full":
            full[key[i]].append(d)
    nocue = [i for i in range(len(digests)) if cols["variant"][i] == "nocue"
             and cols["n_images"][i]]
    matched = [i for i in nocue if len(full.get(key[i], ())) == 1]
    unmatched = [cols["uid"][i] for i in sorted(set(nocue) - set(matched))]
    same = [cols["uid"][i] for i in matched if digests[i] == full[key[i]][0]]
    return {"checked": len(matched), "same_as_full": len(same), "examples": same[:5],
            "unmatched": len(unmatched), "unmatched_examples": unmatched[:5],
            "ok": not same and not unmatched}


def check_config(folder: Path, config: str, expected_rows: int) -> dict[str, Any]:
    cols = read_columns(folder, config)
    uids = cols["uid"]
    dup = [u for u, c in Counter(uids).items() if c > 1]
    report: dict[str, Any] = {
        "rows": len(uids),
        "expected_rows": expected_rows,
        "rows_ok": len(uids) == expected_rows,
        "unique_uids": not dup,
        "duplicate_uids": dup[:5],
        "groups": len(set(cols["group_id"])),
        "images": sum(cols["n_images"]),
        "rows_without_images": sum(1 for n, e in zip(cols["n_images"], cols["evidence"],
                                                     strict=True)
                                   if n == 0 and e != TEXT_ONLY_EVIDENCE),
    }
    recipe = task_spec(config).recipe
    if recipe in ("presentation_invariance", "reference_aided", "prompt_ablation"):
        report["d3_prompts_identical_across_variants"] = d3_prompt_gate(cols)
        report["labels"] = {str(k): v for k, v in sorted(Counter(cols["label"]).items())}
        report["by_variant_label"] = {
            f"{v}:{lab}": n for (v, lab), n in sorted(Counter(zip(cols["variant"], cols["label"],
                                                                   strict=True)).items())
        }
    if recipe == "oracle_state":
        report.update(oracle_state_checks({**cols, **read_columns(folder, config,
                                                                  OS_READ)}))
    if "nocue" in cols["variant"]:
        report["nocue_images_differ_from_full"] = nocue_image_gate(folder, config, cols)
    if recipe == "presentation_invariance":
        report["by_representation"] = dict(sorted(Counter(cols["representation"]).items()))
    return report


def _listed_task_types(prompt: str) -> list[str]:
    """The task types an oracle_state prompt lists, in its order (its "- " lines after the
    first question)."""
    block = prompt.split("copy it exactly:\n", 1)[-1].split("\n2. objective", 1)[0]
    return [line[2:] for line in block.splitlines() if line.startswith("- ")]


def reference_spread(cols: dict[str, list]) -> dict[str, Any]:
    """Per env: its queries, distinct references and the references' objectives (so
    the task-type and objective stages are questions, not one reference repeated), and
    whether a query was ever its own reference."""
    queries: dict[str, set[str]] = defaultdict(set)
    refs: dict[str, set[str]] = defaultdict(set)
    objectives: dict[str, Counter] = defaultdict(Counter)
    own = 0
    for i, env in enumerate(cols["env_id"]):
        queries[env].add(cols["group_id"][i])
        refs[env].add(cols["reference_group_id"][i])
        own += cols["reference_group_id"][i] == cols["group_id"][i]
        if cols["evidence"][i] == "pixel" and cols["variant"][i] == "full":  # once a query
            objectives[env][json.loads(cols["answer"][i])["objective"]] += 1
    few = [e for e in queries if len(refs[e]) < min(MIN_REFERENCES, len(queries[e]))]
    return {"by_env": {e: {"queries": len(queries[e]), "references": len(refs[e]),
                           "objectives": dict(sorted(objectives[e].items()))}
                       for e in queries},
            "own_group_as_reference": own, "envs_with_few_references": few,
            "ok": not own and not few}


def oracle_state_checks(cols: dict[str, list]) -> dict[str, Any]:
    """Oracle-State: rows per arm, text-only state rows, the D3 gate on the pixel arm (the
    state tables differ across variants by design), labels by variant, the references'
    spread per env and the task-type order (the audit column is what the prompt lists)."""
    ev = cols["evidence"]
    pixel = {k: [v for v, e in zip(vals, ev, strict=True) if e == "pixel"]
             for k, vals in cols.items()}
    shown = [cols["uid"][i] for i, order in enumerate(cols["task_type_order"])
             if json.loads(order) != _listed_task_types(cols["prompt"][i])]
    return {
        "references": reference_spread(cols),
        "task_type_order_shown": {"checked": len(ev),
                                  "distinct_orders": len(set(cols["task_type_order"])),
                                  "mismatched": len(shown), "examples": shown[:5],
                                  "ok": not shown},
        "by_evidence": dict(sorted(Counter(ev).items())),
        "state_rows_with_images": sum(1 for n, e in zip(cols["n_images"], ev, strict=True)
                                      if n and e == TEXT_ONLY_EVIDENCE),
        "d3_prompts_identical_across_variants": d3_prompt_gate(pixel),
        "by_variant_label": {
            f"{v}:{lab}": n for (v, lab), n in sorted(Counter(zip(cols["variant"], cols["label"],
                                                                   strict=True)).items())
        },
    }


def problems(report: dict[str, Any]) -> list[str]:
    """Human-readable failures in a validation report (empty when every check passed)."""
    out = []
    for config, r in report.get("configs", {}).items():
        if not r["rows_ok"]:
            out.append(f"{config}: {r['rows']} rows, profile expects {r['expected_rows']}")
        if not r["unique_uids"]:
            out.append(f"{config}: duplicate uids {r['duplicate_uids']}")
        if r["rows_without_images"]:
            out.append(f"{config}: {r['rows_without_images']} rows without images")
        if r.get("state_rows_with_images"):
            out.append(f"{config}: {r['state_rows_with_images']} state-arm rows with images")
        d3 = r.get("d3_prompts_identical_across_variants")
        if d3 and not d3["ok"]:
            out.append(f"{config}: D3 prompt gate failed for {d3['examples']}")
        refs = r.get("references")
        if refs and not refs["ok"]:
            out.append(f"{config}: references: {refs['own_group_as_reference']} rows with the "
                       "query's own group, envs with fewer than "
                       f"{MIN_REFERENCES} distinct: {refs['envs_with_few_references']}")
        order = r.get("task_type_order_shown")
        if order and not order["ok"]:
            out.append(f"{config}: task_type_order differs from the prompt's list in "
                       f"{order['mismatched']} rows, e.g. {order['examples']}")
        same = r.get("nocue_images_differ_from_full")
        if same and same["same_as_full"]:
            out.append(f"{config}: {same['same_as_full']} NoCue rows show exactly their Full "
                       "row's images (nothing hidden in the shown frames), e.g. "
                       f"{same['examples']}")
        if same and same.get("unmatched"):
            out.append(f"{config}: {same['unmatched']} NoCue rows have no single Full row of "
                       f"the same presentation to compare with, e.g. "
                       f"{same['unmatched_examples']}")
    return out


def write(folder: Path, report: dict[str, Any]) -> Path:
    path = folder / "validation.json"
    path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    return path
