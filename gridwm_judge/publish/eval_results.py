"""A judge's scores in the Hub's ``.eval_results/*.yaml`` convention, for its model repo.

Each published figure (:mod:`gridwm_judge.headlines`) the judge has becomes one entry made
with ``huggingface_hub``'s own :class:`EvalResultEntry` and ``eval_result_entries_to_yaml``:
``dataset.id`` the benchmark repo the dataset was pushed to, ``task_id`` the figure's
``eval.yaml`` id, ``source`` the results repo, ``notes`` the judge spec, its decoding and the
figure's interval. ``evaluation_framework``, which the Hub's page lists and the dataclass lacks,
is added to each entry. The "verified" badge needs a token from a Hub-run job, so none is set.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gridwm_judge.dataset_io import HUB_ID
from gridwm_judge.headlines import FRAMEWORK, headlines
from gridwm_judge.publish.entries import Entry, PublishError
from gridwm_judge.publish.tables import public_dataset
from gridwm_judge.redact import redact
from gridwm_judge.task_table import task_spec

EVAL_RESULTS_FILE = ".eval_results/gridwm-judge.yaml"
MODEL_BACKENDS = ("hf", "vllm")
"""Judge backends whose spec names a model by its Hub id (``hf:ORG/NAME``)."""


def model_repo_of(judge: str) -> str | None:
    """The Hub model a ``hf:`` / ``vllm:`` judge runs (its spec's name), None for any other
    judge or a local path."""
    backend, _, model = judge.partition(":")
    if backend in MODEL_BACKENDS and HUB_ID.match(model) and not Path(model).exists():
        return model
    return None


def benchmark_repo_of(entries: Sequence[Entry], given: str | None) -> str:
    """The benchmark repo the entries' dataset lives in: ``given``, else the Hub id their run
    loaded; a local dataset with none given is a :class:`PublishError`."""
    if given:
        return given
    found = {public_dataset(e.run.dataset) for e in entries}
    if len(found) == 1 and (repo := found.pop()):
        return repo
    raise PublishError("the runs read a local dataset: name the Hub dataset repo it was pushed "
                       "to with --benchmark-repo ORG/NAME (`gridwm-judge push` puts it there)")


def _notes(e: Entry, ci: tuple[float, float] | None, groups: int | None,
           descriptive: bool) -> str:
    sent = e.run.as_sent or {}
    decoding = ", ".join(f"{k}={v}" for k, v in sorted(sent.items())
                         if isinstance(v, (int, float, str)) and k in (
                             "temperature", "top_p", "seed", "max_tokens", "reasoning_effort"))
    parts = [f"judge {redact(e.judge)}"]
    if decoding:
        parts.append(decoding)
    if ci is not None:
        parts.append(f"95% group-bootstrap CI [{ci[0]:.3f}, {ci[1]:.3f}]")
    if groups is not None:
        parts.append(f"{groups} groups")
    if descriptive:
        parts.append("descriptive: too few groups to rank on")
    parts.append(f"dataset {e.digest[:19]}, gridwm-judge {e.record.package_version}")
    return "; ".join(parts)


def eval_result_entries(entries: Sequence[Entry], *, benchmark_repo: str,
                        results_repo: str | None, revision: str | None = None) -> list[Any]:
    """One ``EvalResultEntry`` per published figure the entries of one judge have a value
    for, in ``eval.yaml``'s order (configs by name); a descriptive figure says so in its
    notes."""
    from huggingface_hub import EvalResultEntry

    out = []
    for e in entries:
        tasks = e.run.tasks or tuple({r.task for r in e.scores.results})
        for h in headlines(sorted(task_spec(t).config for t in tasks)):  # eval.yaml's order
            r = h.pick(e.scores.results)
            if r is None or r.value is None:
                continue
            out.append(EvalResultEntry(
                dataset_id=benchmark_repo, task_id=h.id, value=round(float(r.value), 4),
                dataset_revision=revision, date=e.run.updated or e.run.created,
                source_url=(f"https://huggingface.co/datasets/{results_repo}"
                            if results_repo else None),
                source_name="GridWM-Judge results" if results_repo else None,
                notes=_notes(e, r.ci, r.groups, r.status == "descriptive")))
    return out


def eval_results_yaml(entries: Sequence[Entry], *, benchmark_repo: str,
                      results_repo: str | None, revision: str | None = None) -> str:
    """The text of ``.eval_results/gridwm-judge.yaml`` for one judge's entries."""
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml

    judges = sorted({e.judge for e in entries})
    if len(judges) != 1:
        raise PublishError(f"a model repo holds one judge's results; these runs are of "
                           f"{len(judges)} judges ({', '.join(judges)}): publish each with its "
                           "own --model-repo")
    digests = sorted({e.digest for e in entries})
    if len(digests) != 1:
        raise PublishError(f"{judges[0]}'s runs answered {len(digests)} different datasets "
                           f"({', '.join(d[:19] + '...' for d in digests)}): a model repo's "
                           "results name one benchmark dataset; publish them one at a time")
    oracle = [e for e in entries if e.run.oracle_upper_bound]
    if oracle:
        raise PublishError(f"{judges[0]} reads the gold answer (an upper bound that checks the "
                           "pipeline): it has no model repo results")
    made = eval_result_entries(entries, benchmark_repo=benchmark_repo,
                               results_repo=results_repo, revision=revision)
    if not made:
        raise PublishError(f"{judges[0]} has no published figure to write (none of "
                           "eval.yaml's tasks has a value in its scores)")
    data = [{**d, "evaluation_framework": FRAMEWORK} for d in eval_result_entries_to_yaml(made)]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
