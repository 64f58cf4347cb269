"""The metric modules `push-metrics` publishes run where ``gridwm_judge`` cannot be imported (only
evaluate, numpy and scipy), and compute what the shipped modules compute.

Each Space folder is staged as `push-metrics` stages it; a subprocess with an import blocker for
``gridwm_judge`` (checked to stop the shipped modules) loads every staged module with
``evaluate.load(FOLDER)``, runs its docstring examples and computes a fixed input, with group
bootstrap CIs where the module has them; the shipped modules compute the same input here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gridwm_judge.integrations import hub_metrics
from gridwm_judge.integrations.standalone_metric import standalone_source
from gridwm_judge.resources import resource_path

evaluate = pytest.importorskip("evaluate")

MODULES = ("idr", "jcr", "les", "ns", "task_a", "vcc")

BLOCKED = r'''
import doctest, json, sys

class NoPackage:
    """Refuses gridwm_judge as if it were not installed."""
    def find_spec(self, name, path=None, target=None):
        if name == "gridwm_judge" or name.startswith("gridwm_judge."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NoPackage())
import evaluate

spaces, shipped, repo_ns, inputs = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
out = {"values": {}, "doctests": {}}
try:
    evaluate.load(shipped)
    out["shipped_loads"] = True
except ImportError as exc:
    out["shipped_loads"] = False
for name, kwargs in inputs.items():
    folder = f"{spaces}/{name}"
    module = evaluate.load(folder)
    out["values"][name] = module.compute(**kwargs)
    examples = sys.modules[type(module).__module__]._KWARGS_DESCRIPTION.replace(
        f'evaluate.load("{repo_ns}/{name}")', f'evaluate.load("{folder}")')
    test = doctest.DocTestParser().get_doctest(examples, {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test, out=lambda s: None)
    out["doctests"][name] = list(runner.summarize(verbose=False))
out["package_imported"] = any(m.split(".")[0] == "gridwm_judge" for m in sys.modules)
print(json.dumps(out))
'''


def inputs() -> dict[str, dict]:
    """A small input per module (bootstrap CIs where the module draws them)."""
    rng = np.random.default_rng(7)
    n = 14
    groups = [f"g{i}" for i in range(n) for _ in range(2)]
    y = rng.choice([1, 0, -1], p=[0.6, 0.35, 0.05], size=2 * n).tolist()
    three = [f"g{i}" for i in range(n) for _ in range(3)]
    y3 = rng.choice([1, 0], p=[0.7, 0.3], size=3 * n).tolist()
    items = [f"i{i}" for i in range(n) for _ in range(2)]
    letters = rng.choice(list("ABCD"), size=2 * n).tolist()
    gold = [letters[2 * i] for i in range(n) for _ in range(2)]
    return {
        "idr": dict(predictions=y, references=[1, 0] * n, group_ids=groups,
                    variants=["full", "cf"] * n, bootstrap=300, seed=3),
        "ns": dict(predictions=y, references=[1] * 2 * n, group_ids=groups,
                   presentations=["orig", "rev"] * n, baseline="orig"),
        "jcr": dict(predictions=y3, references=[1] * 3 * n, group_ids=three,
                    presentations=["neutral", "positive", "negative"] * n, baseline="neutral"),
        "vcc": dict(predictions=y, references=[1] * 2 * n, group_ids=groups,
                    representations=["composite", "split"] * n),
        "les": dict(predictions=y3, references=[1] * 3 * n, group_ids=three,
                    presentations=["neutral", "positive", "negative"] * n, baseline="neutral"),
        "task_a": dict(predictions=letters, references=gold, item_ids=items,
                       action_conditions=["orig", "shuffle"] * n,
                       group_ids=[f"g{i // 2}" for i in range(n) for _ in range(2)]),
    }


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    spaces = tmp_path_factory.mktemp("spaces")
    for up in hub_metrics.plan("my-org"):
        folder = spaces / up.name
        folder.mkdir()
        hub_metrics.stage(up, folder)
    return spaces


@pytest.fixture(scope="module")
def blocked_run(staged, tmp_path_factory):
    """The staged modules loaded and run where gridwm_judge cannot be imported."""
    cache = tmp_path_factory.mktemp("blocked-modules")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_MODULES_CACHE=str(cache), HF_EVALUATE_OFFLINE="1")
    proc = subprocess.run(
        [sys.executable, "-I", "-c", BLOCKED, str(staged), str(resource_path("metrics", "idr")),
         "my-org", json.dumps(inputs())],
        cwd=cache, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_blocker_stops_the_shipped_module_and_the_package(blocked_run):
    assert blocked_run["shipped_loads"] is False  # the shipped idr imports gridwm_judge
    assert blocked_run["package_imported"] is False


@pytest.mark.parametrize("name", MODULES)
def test_the_space_needs_only_evaluate_numpy_scipy(staged, name):
    folder = staged / name
    assert (folder / "requirements.txt").read_text().split() == ["evaluate", "numpy", "scipy"]
    source = (folder / f"{name}.py").read_text()
    assert not [ln for ln in source.splitlines() if ln.startswith(("from gridwm_judge",
                                                                   "import gridwm_judge"))]
    assert f'evaluate.load("my-org/{name}")' in source and "resource_path" not in source
    compile(source, f"{name}.py", "exec")


@pytest.mark.parametrize("name", MODULES)
def test_the_space_computes_what_the_shipped_module_computes(blocked_run, name):
    failed, attempted = blocked_run["doctests"][name]
    assert attempted > 0 and failed == 0, (failed, attempted)
    shipped = evaluate.load(str(resource_path("metrics", name)))
    want = json.loads(json.dumps(shipped.compute(**inputs()[name])))
    assert blocked_run["values"][name] == want


def test_generation_is_from_the_one_source(tmp_path):
    """The inlined code is the package's own text: a change there shows in the Space's file."""
    import inspect

    from gridwm_judge.scoring import bootstrap, causal

    text = standalone_source(resource_path("metrics", "idr") / "idr.py")
    for fn in (causal.causal_metrics, bootstrap.bootstrap_ratios):
        assert inspect.getsource(fn) in text
    assert text.count("def causal_metrics(") == 1


def test_a_module_importing_a_renamed_package_name_is_refused(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""x"""\nfrom gridwm_judge.scoring import ns as nsf\n')
    with pytest.raises(ValueError, match="import ns under its own name"):
        standalone_source(bad)


def test_a_module_defining_an_inlined_name_is_refused(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""x"""\nfrom gridwm_judge.scoring import ns\n\n\ndef ns_pairs():\n'
                   '    return 0\n\n\nGroupRatio = None\n')
    with pytest.raises(ValueError, match="defines 'GroupRatio', as does the package code"):
        standalone_source(bad)
