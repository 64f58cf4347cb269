"""The shortcut ceiling of a build, measured before its card is written.

Every config a shortcut judge has a rule for (:mod:`gridwm_judge.judges.shortcuts`) is answered
by each of them on its canonical items: one per (group, variant) at the neutral presentation
(orig order, clean images, neutral framing, composite storyboard, the Pixel arm, the direct
prompt style, the orig action), read back from the staged Parquet files as a judge sees them.
Per config and family, each shortcut's IDR_raw (Full accepted and CF rejected, over groups with
both), Acc_cf and NoCue lift (NoCue accepted minus Full accepted), or Acc_A1 for Task A / MA,
each proportion with its exact (Clopper-Pearson) 95% interval over groups or items. These are
the figures `gridwm-judge score` gives the same judges on the same items (its intervals come
from the group bootstrap instead); the card shows them so a user sees, before running a
judge, how much a rule that ignores the trajectory already scores.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from gridwm_judge.formats import CI_DIGITS, DASH, fcount_of, fnum, fsigned
from gridwm_judge.judges import shortcuts
from gridwm_judge.judges.base import JudgeOptions, JudgeRequest
from gridwm_judge.judges.baseline import BaselineJudge
from gridwm_judge.judges.shortcuts import NAMES
from gridwm_judge.parsing import parse_answer
from gridwm_judge.scoring.causal import causal_metrics, protocol_of
from gridwm_judge.task_table import task_spec
from gridwm_judge.workers import init_worker, owned_pool

CANONICAL = {
    "temporal": ("orig", ""),
    "visual": ("clean", ""),
    "framing": ("neutral", ""),
    "representation": ("composite", ""),
    "evidence": ("pixel", ""),
    "prompt_style": ("direct", ""),
    "action_condition": ("orig", ""),
}
"""Column -> the values a canonical item may hold ("" where the column does not apply)."""
_READ = ("uid", "task", "family", "group_id", "item_id", "variant", "answer", "prompt",
         *CANONICAL)
LEVEL = 0.95


def proportion(k: int, n: int) -> dict[str, Any]:
    """``{"value", "num", "den", "ci"}`` of k successes in n, the exact 95% interval; an empty
    set is ``value`` None."""
    from scipy.stats import binomtest

    if n == 0:
        return {"value": None, "num": 0, "den": 0, "ci": None}
    ci = binomtest(k, n).proportion_ci(LEVEL, method="exact")
    return {"value": k / n, "num": k, "den": n,
            "ci": [round(float(ci.low), 4), round(float(ci.high), 4)]}


def canonical_rows(folder: Path, config: str) -> list[dict[str, Any]]:
    """The canonical items of ``config``, one per (group, variant, item) (Task A holds several
    questions per group), with their images' bytes."""
    import pyarrow.parquet as pq

    rows, seen = [], set()
    for f in sorted((folder / "data" / config).glob("test-*.parquet")):
        pf = pq.ParquetFile(f)
        names = set(pf.schema_arrow.names)
        table = pf.read(columns=[c for c in (*_READ, "images") if c in names])
        cols = {c: table.column(c).to_pylist() for c in table.column_names if c != "images"}
        for i in range(table.num_rows):
            row = {c: cols[c][i] if c in cols else "" for c in _READ}
            key = (row["group_id"], row["variant"], row["item_id"])
            if key in seen or any(row[c] not in ok for c, ok in CANONICAL.items()):
                continue
            seen.add(key)
            row["images"] = [im["bytes"] for im in table.column("images")[i].as_py() or ()]
            rows.append(row)
    return rows


def _answers(names: Sequence[str], rows: Sequence[dict[str, Any]]) -> list[list[Any]]:
    """Each shortcut's answer (one list per name) on ``rows``, each row's images decoded once
    for all of them."""
    from PIL import Image

    judges = [BaselineJudge(n, JudgeOptions(), f"baseline:{n}") for n in names]
    out: list[list[Any]] = [[] for _ in names]
    for r in rows:
        images = [Image.open(io.BytesIO(b)) for b in r["images"]]
        for im in images:
            im.load()
        req = JudgeRequest(r["uid"], r["task"], r["prompt"], images, 1)
        for judge, answers in zip(judges, out, strict=True):
            value = parse_answer(r["task"], judge.answer(req)).value
            if isinstance(value, dict):  # a staged Oracle-State answer: its verdict field
                value = ("success" if str(value.get("verdict", "")).lower() == "success"
                         else "failure")
            answers.append(value)
    return out


def _answer_all(work: list[tuple[list[str], list[dict]]], num_proc: int) -> list[list[list]]:
    """:func:`_answers` of each (names, rows) in ``work``, in chunks across ``num_proc``
    processes; the answers do not depend on how the rows are split."""
    if num_proc <= 1:
        return [_answers(names, rows) for names, rows in work]
    size = max(1, sum(len(rows) for _, rows in work) // (4 * num_proc))
    chunks = [(w, names, rows[i:i + size]) for w, (names, rows) in enumerate(work)
              for i in range(0, len(rows), size)]
    with owned_pool(ProcessPoolExecutor(max_workers=num_proc, initializer=init_worker)) as ex:
        # submit, not map: map cancels its futures on Ctrl-C, which races the pool
        futures = [ex.submit(_answers, names, rows) for _, names, rows in chunks]
        done = [fut.result() for fut in futures]
    out: list[list[list]] = [[[] for _ in names] for names, _ in work]
    for (w, _, _), answers in zip(chunks, done, strict=True):
        for whole, part in zip(out[w], answers, strict=True):
            whole.extend(part)
    return out


VERDICT = {"success": 1, "failure": 0}
"""A shortcut's verdict as the scorer encodes it (anything else: invalid, -1)."""


def _verdict_figures(rows, answers, protocol: str) -> dict[str, Any]:
    """IDR_raw, Acc_cf and the NoCue lift of one scope by the scorer's own function
    (:func:`gridwm_judge.scoring.causal.causal_metrics`, under the config's protocol), each
    proportion with its exact interval over the groups it counts."""
    res = causal_metrics([VERDICT.get(str(a), -1) for a in answers],
                         [r["group_id"] for r in rows], [r["variant"] for r in rows],
                         protocol=protocol)

    def share(name: str) -> dict[str, Any]:
        ratio = res.ratios[name]
        return proportion(int(ratio.total_num), int(ratio.total_den))

    lift = res.ratios["nocue_lift"]
    return {"idr_raw": share("idr_raw"), "acc_cf": share("acc_cf"),
            "nocue_lift": {"value": lift.value, "den": int(lift.total_den)}}


def measure(folder: Path, configs: Sequence[str], num_proc: int = 1) -> dict[str, dict]:
    """{config: {shortcut: {"all" | family: figures}}} for every config a shortcut answers;
    the judges run across ``num_proc`` processes."""
    work: dict[str, tuple[list[str], list[dict]]] = {}
    for config in configs:
        names = [n for n in NAMES if shortcuts.answers(n, task_spec(config))]
        if names:
            work[config] = (names, canonical_rows(folder, config))
    out: dict[str, dict] = {}
    for config, (names, rows), all_answers in zip(
            work, work.values(), _answer_all(list(work.values()), num_proc), strict=True):
        scopes = {"all": list(range(len(rows)))}
        for i, r in enumerate(rows):
            scopes.setdefault(r["family"], []).append(i)
        per: dict[str, dict] = {}
        for name, answers in zip(names, all_answers, strict=True):
            per[name] = {}
            for scope, idx in sorted(scopes.items(), key=lambda kv: kv[0] != "all"):
                sub, ans = [rows[i] for i in idx], [answers[i] for i in idx]
                if name == "least-change":
                    right = sum(a == r["answer"] for r, a in zip(sub, ans, strict=True))
                    per[name][scope] = {"acc_a1": proportion(right, len(sub))}
                else:
                    per[name][scope] = _verdict_figures(sub, ans, protocol_of(
                        task_spec(config)))
        out[config] = per
    return out


def markdown(ceilings: dict[str, dict]) -> str:
    """The card's table: config, family, then each shortcut's headline figure."""
    if not ceilings:
        return "No config of this build has a shortcut rule."
    lines = ["| config | family | shortcut | IDR_raw [95% CI] | Acc_cf | NoCue lift | Acc_A1 |",
             "|---|---|---|---|---|---|---|"]
    for config, per in ceilings.items():
        for name, scopes in per.items():
            for scope, fig in scopes.items():
                lines.append(f"| `{config}` | {scope} | {name} | {_cell(fig.get('idr_raw'))} | "
                             f"{_cell(fig.get('acc_cf'), ci=False)} | "
                             f"{_lift(fig.get('nocue_lift'))} | {_cell(fig.get('acc_a1'))} |")
    return "\n".join(lines)


def _cell(m: dict | None, *, ci: bool = True) -> str:
    """``0.500 (7/14) [0.21, 0.79]``, in the report's number format."""
    if not m or m.get("value") is None:
        return DASH
    text = f"{fnum(m['value'])} ({m['num']}/{m['den']})"
    if ci and m.get("ci"):
        text += f" [{fnum(m['ci'][0], CI_DIGITS)}, {fnum(m['ci'][1], CI_DIGITS)}]"
    return text


def _lift(m: dict | None) -> str:
    """A difference with the groups it rests on: ``+0.125, 8 groups``."""
    if not m or m.get("value") is None:
        return DASH
    return f"{fsigned(m['value'])}, {fcount_of(m['den'], 'groups')}"
