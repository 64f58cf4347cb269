"""README.md quotes `gridwm-judge quickstart` as a user sees it: its headline table and the
figures the text cites are measured here by running the quickstart, and its set-up lines are the
ones setup.sh and .ci/run use.

The quoted parts sit between ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->`` markers. After a
change that moves them, re-measure and rewrite those blocks in one command:

    GWJ_UPDATE_README=1 .venv/bin/python -m pytest -q tests/test_readme_quickstart.py
"""

from __future__ import annotations

import inspect
import json
import os
import re
from pathlib import Path

import pytest

from gridwm_judge import quickstart
from gridwm_judge.scoring import read_scores

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
REMEASURE = "GWJ_UPDATE_README=1 .venv/bin/python -m pytest -q tests/test_readme_quickstart.py"


def block(text: str, name: str) -> str:
    m = re.search(rf"<!-- {name}:begin -->\n(.*?)\n<!-- {name}:end -->", text, re.DOTALL)
    assert m, f"README.md has no block {name!r}"
    return m.group(1)


def with_block(text: str, name: str, body: str) -> str:
    return re.sub(rf"(<!-- {name}:begin -->\n).*?(\n<!-- {name}:end -->)",
                  lambda m: m.group(1) + body + m.group(2), text, flags=re.DOTALL)


def _result(run_dirs, judge: str, task: str, name: str):
    for run in run_dirs:
        scores = read_scores(Path(run) / "scores.json")
        if judge in scores.judges:
            found = [r for r in scores.judges[judge].results.select(task=task, name=name)
                     if r.family is None and r.representation in (None, "composite")]
            return found[0]
    raise AssertionError(f"no {name} of {judge} on task {task}")


def facts(dataset: Path, run_dirs) -> str:
    """The quickstart's sizes and the figures the README's text cites, as Markdown bullets."""
    rows = {c: v["rows"] for c, v in
            json.loads((Path(dataset) / "validation.json").read_text())["configs"].items()}
    resamples = inspect.signature(quickstart.run_quickstart).parameters["n_resamples"].default

    def ratio(judge, task, name):
        r = _result(run_dirs, judge, task, name)
        return f"{r.numerator:.0f}/{r.denominator:.0f}"

    a1 = _result(run_dirs, "baseline:pixel-heuristic", "A", "acc_a1")
    shuffle = _result(run_dirs, "baseline:pixel-heuristic", "A", "delta_shuffle")
    mask = _result(run_dirs, "baseline:pixel-heuristic", "A", "delta_mask")
    c_groups = _result(run_dirs, "baseline:oracle", "C", "idr_raw").denominator
    ch_groups = _result(run_dirs, "baseline:oracle", "CH", "idr_raw").denominator
    return "\n".join([
        f"- rows: `task_c` {rows['task_c']} ({c_groups:.0f} groups), `task_c_hard` "
        f"{rows['task_c_hard']} ({ch_groups:.0f} groups), `task_a` {rows['task_a']} "
        f"({a1.denominator:.0f} questions x 3 action conditions), `task_b` {rows['task_b']}, "
        f"`task_d` {rows['task_d']}, `task_e` {rows['task_e']}; confidence intervals from "
        f"{resamples:,} bootstrap resamples",
        f"- `pixel-heuristic` on Task A: Acc_A1 {a1.value:.2f} ({a1.numerator:.0f}/"
        f"{a1.denominator:.0f}) whatever action is shown (Delta_shuffle {shuffle.value:.2f}, "
        f"Delta_mask {mask.value:.2f})",
        f"- IDR_raw of `last-frame`: {ratio('baseline:last-frame', 'C', 'idr_raw')} groups on "
        f"`task_c`, {ratio('baseline:last-frame', 'CH', 'idr_raw')} on `task_c_hard`; of the "
        f"oracle: {ratio('baseline:oracle', 'CH', 'idr_raw')} on `task_c_hard`",
    ])


def headline_block(headline: str) -> str:
    return "```\n" + headline.strip("\n") + "\n```"


@pytest.mark.slow
def test_readme_quotes_what_the_quickstart_prints(quickstart_run):
    res = quickstart_run.result  # the session's one real `gridwm-judge quickstart` (conftest)
    measured = {"quickstart-headline": headline_block(res.headline),
                "quickstart-facts": facts(res.dataset, res.run_dirs)}
    text = README.read_text(encoding="utf-8")
    if os.environ.get("GWJ_UPDATE_README"):
        for name, body in measured.items():
            text = with_block(text, name, body)
        README.write_text(text, encoding="utf-8")
    for name, body in measured.items():
        assert block(text, name) == body, (
            f"README.md's block {name!r} is not what the quickstart prints now; re-measure "
            f"with: {REMEASURE}")


def test_readme_set_up_lines_are_the_real_ones():
    text = README.read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text()
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert "bash scripts/setup.sh" in ci and "bash scripts/setup.sh" in text
    test_command = next(ln.strip() for ln in ci.splitlines() if "-m pytest" in ln)
    assert f"\n{test_command}" in text and ".venv/bin/gridwm-judge quickstart" in text
    extras = re.search(r'-e "\.\[([\w,]+)\]"', setup)
    assert extras, "setup.sh installs no extras?"
    for extra in extras.group(1).split(","):
        assert f"`{extra}`" in block(text, "setup-extras"), extra
    help_text = quickstart_help()
    seconds = re.search(r"about (\d+) s on 2 idle cores", help_text)
    assert seconds and f"about {seconds.group(1)} s<!-- measured:quickstart_s --> on 2 idle " \
        "cores" in text  # the figure docs/measured.md holds (tests/test_docs_figures.py)


def quickstart_help() -> str:
    from gridwm_judge.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices["quickstart"].format_help() + " ".join(
        str(c.help) for c in sub._choices_actions if c.dest == "quickstart")


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_links_between_readme_and_docs_resolve():
    pages = [README, *sorted((ROOT / "docs").glob("*.md"))]
    assert len(pages) > 5
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://")):
                continue
            path, _, frag = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            assert dest.exists(), f"{page.name}: link to missing {target}"
            if frag:
                heads = re.findall(r"^#+ (.+)$", dest.read_text(encoding="utf-8"), re.MULTILINE)
                assert frag in {anchor(h) for h in heads}, f"{page.name}: no anchor {target}"
