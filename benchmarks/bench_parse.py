"""Time to parse large and adversarial judge answers, per task, rule set and input size.

Targets: Task C/D answers of 100 KB parse in < 0.5 s, a 1 MB Task E answer in < 1 s; every
parser is linear, so time grows with size, never with its square (a quadratic keyword rule
takes ~40 s on a 100 KB "yes ... no ..." answer, which a judge can return). Each figure is the best
of --repeat runs, wall clock. Usage: python benchmarks/bench_parse.py [--sizes 10000,100000]
[--json-size 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Callable

VERDICT_INPUTS: dict[str, Callable[[int], str]] = {
    "yes no alternating": lambda n: ("yes no " * (n // 7 + 1))[:n],
    "yes block, no block": lambda n: "yes " * (n // 8) + "no " * (n // 6),
    "verdict lines": lambda n: "Yes.\n" * (n // 5),
    "newlines": lambda n: "\n" * n + "No",
    "open braces": lambda n: "{" * n,
    "one long line": lambda n: "the agent moves " * (n // 16) + "so Yes",
    "answer labels": lambda n: "Answer: " * (n // 8),
    "label lines": lambda n: "Verdict:\n" * (n // 9),
    "markup": lambda n: "*" * n + " yes",
    "think tags": lambda n: "<think>" * (n // 7),
}
CHOICE_INPUTS: dict[str, Callable[[int], str]] = {
    "lone letters": lambda n: "A " * (n // 2) + "\nAnswer: D",
    "option lines": lambda n: "A.\nB.\n" * (n // 6),
    "answer is": lambda n: "the answer is " * (n // 14),
}
JSON_INPUTS: dict[str, Callable[[int], str]] = {
    "long string": lambda n: '{"note": "' + "a" * n + '"} {"answer": "key_red"}',
    "empty objects": lambda n: "{}" * (n // 2),
    "open braces": lambda n: "{" * n,
    "bad objects": lambda n: "{a:}" * (n // 4),
    "near-miss keys": lambda n: "".join(f'{{"answer{i}": 1}}' for i in range(n // 16)),
    "non-string answers": lambda n: "".join(f'{{"answer": {i}}}' for i in range(n // 14)),
    "code fences": lambda n: "```" * (n // 3),
}


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` runs (CPU time is the fairer figure on a
    shared machine)."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return wall, cpu


def main(argv: list[str] | None = None) -> dict[str, float]:
    from gridwm_judge.parsing import RULES, parse_answer

    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--sizes", default="10000,100000", help="C/D and A sizes (characters)")
    p.add_argument("--json-size", type=int, default=1_000_000, help="B/E size (characters)")
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    plan = [
        (t, name, make, n) for t in "CD" for name, make in VERDICT_INPUTS.items() for n in sizes
    ]
    plan += [("A", name, make, n) for name, make in CHOICE_INPUTS.items() for n in sizes]
    plan += [(t, name, make, args.json_size) for t in "BE" for name, make in JSON_INPUTS.items()]
    worst: dict[str, float] = {}
    print(f"{'task':4} {'rules':9} {'input':22} {'chars':>9} {'wall s':>7} {'cpu s':>7}  result")
    for task, name, make, n in plan:
        raw = make(n)
        for rules in RULES:
            wall, cpu = _best(functools.partial(parse_answer, task, raw, rules=rules), args.repeat)
            out = parse_answer(task, raw, rules=rules)
            value = out.value if not isinstance(out.value, dict) else "{...}"
            print(
                f"{task:4} {rules:9} {name:22} {len(raw):9d} {wall:7.3f} {cpu:7.3f}  "
                f"{value} ({out.mode})"
            )
            key = f"{task} {rules} {n // 1000} KB"
            worst[key] = max(worst.get(key, 0.0), wall)
    print("worst wall time per task, rules and size (targets: C/D 100 KB < 0.5 s, E 1 MB < 1 s):")
    for key, secs in sorted(worst.items()):
        print(f"  {key:22} {secs:.3f} s")
    return worst


if __name__ == "__main__":
    main()
