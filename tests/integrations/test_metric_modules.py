"""The evaluate modules under metrics/: load from a checkout and via resource_path, run
their docstring examples, and agree with the pure functions they wrap."""

import doctest
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from gridwm_judge import resource_path
from gridwm_judge.scoring import causal_metrics, jcr, ns, vcc

MODULES = ("idr", "ns", "jcr", "vcc", "les", "task_a")
ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_package_does_not_import_evaluate():
    code = "import gridwm_judge, gridwm_judge.scoring, sys; print('evaluate' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.fixture(scope="module")
def evaluate(tmp_path_factory):
    os.environ.setdefault("HF_MODULES_CACHE", str(tmp_path_factory.mktemp("hf_modules")))
    os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
    return pytest.importorskip("evaluate")


@pytest.fixture(scope="module")
def loaded(evaluate):
    return {name: evaluate.load(str(resource_path("metrics", name))) for name in MODULES}


@pytest.mark.parametrize("name", MODULES)
def test_card_has_front_matter_and_module_has_parts(name):
    folder = resource_path("metrics", name)
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert meta["title"] and "metric" in meta["tags"] and meta["description"]
    src = (folder / f"{name}.py").read_text(encoding="utf-8")
    for part in (
        "_DESCRIPTION",
        "_KWARGS_DESCRIPTION",
        "_CITATION",
        "def _info",
        "features=",
        "def _compute",
    ):
        assert part in src, f"{name}.py lacks {part}"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, loaded, evaluate):
    module = sys.modules[type(loaded[name]).__module__]
    examples = module._KWARGS_DESCRIPTION
    assert ">>>" in examples
    test = doctest.DocTestParser().get_doctest(examples, {}, f"metrics/{name}", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_load_from_a_checkout_path(evaluate, monkeypatch):
    monkeypatch.chdir(ROOT)
    idr = evaluate.load("metrics/idr")
    r = idr.compute(
        predictions=[1, 0], references=[1, 0], group_ids=["g", "g"], variants=["full", "cf"]
    )
    assert r["idr_raw"] == 1.0


def _random_c(seed, n_groups=15):
    rng = np.random.default_rng(seed)
    y = rng.choice([1, 0, -1], p=[0.6, 0.35, 0.05], size=2 * n_groups).tolist()
    g = [f"g{i}" for i in range(n_groups) for _ in range(2)]
    v = ["full", "cf"] * n_groups
    return y, g, v


@pytest.mark.parametrize("protocol", ["all_groups", "eligible_pairs"])
def test_modules_agree_with_pure_functions(loaded, protocol):
    y, g, v = _random_c(4)
    ref = [1 if x == "full" else 0 for x in v]
    got = loaded["idr"].compute(
        predictions=y,
        references=ref,
        group_ids=g,
        variants=v,
        protocol=protocol,
        bootstrap=500,
        seed=9,
    )
    want = causal_metrics(y, g, v, protocol=protocol)
    for key, value in want.values().items():
        assert got[key] == value
    assert got["g_active"] == want.g_active and got["degenerate"] == want.degenerate
    lo, hi = got["idr_raw_ci"]
    assert lo <= want.idr_raw <= hi
    pres = ["orig", "rev"] * 15
    assert (
        loaded["ns"].compute(
            predictions=y,
            references=ref,
            group_ids=g,
            presentations=pres,
            baseline="orig",
            protocol=protocol,
        )["ns"]
        == ns(y, g, pres, "orig", protocol=protocol).value
    )
    assert (
        loaded["jcr"].compute(
            predictions=y, references=ref, group_ids=g, presentations=pres, protocol=protocol
        )["jcr"]
        == jcr(y, g, pres, protocol=protocol)[0].value
    )
    reps = ["composite", "split"] * 15
    assert (
        loaded["vcc"].compute(
            predictions=y, references=ref, group_ids=g, representations=reps, protocol=protocol
        )["vcc"]
        == vcc(y, g, reps, protocol=protocol).vcc.value
    )


def test_module_errors_name_the_problem(loaded):
    with pytest.raises(ValueError, match="baseline"):
        loaded["ns"].compute(
            predictions=[1], references=[1], group_ids=["g"], presentations=["orig"]
        )
    with pytest.raises(ValueError, match="protocol"):
        loaded["idr"].compute(
            predictions=[1], references=[1], group_ids=["g"], variants=["full"], protocol="x"
        )
