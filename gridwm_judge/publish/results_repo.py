"""Publish scored runs: a results dataset repo (and a model repo's ``.eval_results``), in one
commit each, on the Hub or into a local folder.

A results repo holds ``data/<table>/<run key>-<content hash>.parquet`` per published run
(tables of :mod:`gridwm_judge.publish.tables`), a card whose ``configs:`` block makes
``load_dataset(REPO, "results")`` one table across every judge, and a marker file that says
the repo holds this benchmark's rows. A run's key is its judge and dataset digest, so
publishing it again replaces its files and never adds rows twice. The seam is the one ``push``
uses: an ``HfApi``-like object (``list_repo_files``, ``repo_exists``, ``create_repo``,
``create_commit``) that tests replace with a recording fake; ``--local DIR`` writes the same
files instead (``DIR/results/``, ``DIR/model/``) and ``--dry-run`` only lists them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridwm_judge.atomic import write_bytes
from gridwm_judge.dataset.push import check_repo_id, hub_client
from gridwm_judge.dataset_io import go_online, hub_transport_errors
from gridwm_judge.install import REPOSITORY
from gridwm_judge.publish.entries import Entry, PublishError, judges
from gridwm_judge.publish.eval_results import (
    EVAL_RESULTS_FILE,
    benchmark_repo_of,
    eval_results_yaml,
    model_repo_of,
)
from gridwm_judge.publish.tables import TABLES, parquet_bytes, tables_of

MARKER = "gridwm-judge-results.json"
MARKER_TEXT = json.dumps({"format": "gridwm-judge-results/1", "benchmark": "GridWM-Judge"},
                         indent=1) + "\n"
SPLIT = "train"
LOCAL_RESULTS, LOCAL_MODEL = "results", "model"

CARD = """---
configs:
{configs}
tags:
- gridwm-judge
- evaluation-results
---

# GridWM-Judge results

Scores of VLM judges on the [GridWM-Judge]({home})
benchmark, published with `gridwm-judge publish`. One file per run, keyed by judge and dataset
digest: a run published again replaces its own rows.

```python
from datasets import load_dataset
results = load_dataset("{repo}", "results", split="{split}")      # one row per figure
runs = load_dataset("{repo}", "runs", split="{split}")            # one row per run
predictions = load_dataset("{repo}", "predictions", split="{split}")  # one row per answer
groups = load_dataset("{repo}", "groups", split="{split}")        # per group: discriminated?
```

Compare judges only within one `dataset_digest` (the items they answered). `status`
`descriptive` marks a figure over too few groups to rank on; `published` marks answers
imported from the paper's public release rather than asked by this package. JSON-valued
columns (`as_sent`, `usage`, `coverage`, ...) hold JSON text.
"""


def card(repo: str, files: Sequence[str]) -> str:
    """The results repo's card: one config per table that has files, listing them by name (a
    glob would do on the Hub, but ``datasets`` keys its copy of a local folder by the folder's
    name and the card's configs, so a listed file set, which changes whenever a run's rows do,
    keeps a re-published folder from being read as the copy of an earlier one)."""
    blocks = []
    for table in TABLES:
        names = sorted(f for f in files if f.startswith(f"data/{table}/"))
        if names:
            paths = "".join(f"\n    - {name}" for name in names)
            blocks.append(f"- config_name: {table}\n  data_files:\n  - split: {SPLIT}\n"
                          f"    path:{paths}")
    return CARD.format(configs="\n".join(blocks), repo=repo, split=SPLIT, home=REPOSITORY)


@dataclass(frozen=True)
class Plan:
    """What one publish writes: each run's table files (``data/<table>/<key>-<content
    hash>.parquet`` -> bytes; a table a run has no rows in gets no file), the rows per table,
    and the model repo's ``.eval_results`` file where one is asked for."""

    results_repo: str
    run_files: dict[str, bytes]
    rows: dict[str, int]
    entries: tuple[Entry, ...]
    model_repo: str | None = None
    model_files: dict[str, bytes] = field(default_factory=dict)

    def commit(self, existing: Sequence[str]) -> tuple[dict[str, bytes], list[str]]:
        """The files to add and the paths to delete in a results repo that holds
        ``existing``: this publish's runs' earlier files go (their rows are replaced), every
        other run's stay, and the card lists what is left."""
        mine = [re.compile(rf"^data/[a-z]+/{re.escape(e.key)}-[0-9a-f]{{8}}\.parquet$")
                for e in self.entries]
        deletes = [f for f in existing
                   if f not in self.run_files and any(m.match(f) for m in mine)]
        kept = [f for f in existing if f.startswith("data/") and f not in deletes]
        adds = {"README.md": card(self.results_repo, sorted({*kept, *self.run_files})).encode(),
                MARKER: MARKER_TEXT.encode(), **self.run_files}
        return adds, deletes


def plan_publish(entries: Sequence[Entry], results_repo: str, *, model_repo: str | None = None,
                 with_model: bool = False, benchmark_repo: str | None = None,
                 revision: str | None = None) -> Plan:
    """Every file a publish of ``entries`` writes, built in memory (nothing contacted)."""
    check_repo_id(results_repo)
    files: dict[str, bytes] = {}
    rows = dict.fromkeys(TABLES, 0)
    for e in entries:
        for table, table_rows in tables_of(e).items():
            if table_rows:  # datasets cannot read a Parquet file of no rows
                data = parquet_bytes(table, table_rows)
                digest = hashlib.sha256(data).hexdigest()[:8]
                files[f"data/{table}/{e.key}-{digest}.parquet"] = data
            rows[table] += len(table_rows)
    model_files: dict[str, bytes] = {}
    if with_model or model_repo:
        names = judges(entries)
        model_repo = model_repo or (model_repo_of(names[0]) if len(names) == 1 else None)
        if not model_repo:
            raise PublishError(
                f"name the model repo for {', '.join(names)} with --model-repo ORG/MODEL: only "
                "an hf: or vllm: judge of a Hub model has one by default")
        check_repo_id(model_repo)
        text = eval_results_yaml(entries, benchmark_repo=benchmark_repo_of(
            entries, benchmark_repo), results_repo=results_repo, revision=revision)
        model_files[EVAL_RESULTS_FILE] = text.encode()
    return Plan(results_repo, files, rows, tuple(entries), model_repo, model_files)


NEW_REPO_FILES = (".gitattributes", "README.md")
"""What the Hub (or a user) puts in a new, empty dataset repo: not another benchmark's rows."""


def _refuse_foreign(files: Sequence[str], where: str) -> None:
    """A results repo that holds files but not this benchmark's marker holds another
    benchmark's rows: refused before anything is written."""
    if set(files) - set(NEW_REPO_FILES) and MARKER not in files:
        raise PublishError(f"{where} holds files but no {MARKER}: it is not a GridWM-Judge "
                           "results repo (another benchmark's?); publish to a new or a "
                           "GridWM-Judge results repo")


def write_local(plan: Plan, out: str | Path) -> Path:
    """The files ``plan`` would commit, written under ``out`` (``results/`` and ``model/``),
    each atomically; files of other runs already there are kept."""
    out = Path(out)
    results = out / LOCAL_RESULTS
    existing = ([p.relative_to(results).as_posix() for p in results.rglob("*") if p.is_file()]
                if results.is_dir() else [])
    _refuse_foreign(existing, str(results))
    adds, deletes = plan.commit(existing)
    # the data first, the card that lists it last, earlier files removed after: an
    # interrupted write never leaves a card naming a file that is not there
    order = sorted(adds, key=lambda name: (name == "README.md", name == MARKER))
    for base, files in ((results, {n: adds[n] for n in order}), (out / LOCAL_MODEL,
                                                                 plan.model_files)):
        for name, data in files.items():
            path = base / name
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(path, data)
    for name in deletes:
        (results / name).unlink(missing_ok=True)
    return out


@dataclass(frozen=True)
class Published:
    results_url: str
    model_url: str | None


def _refused(exc: BaseException, step: str) -> PublishError:
    """The Hub's answer to ``step`` (a 4xx or 5xx) as one line."""
    first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return PublishError(f"the Hub refused {step}: {first}")


def _hub_error(exc: BaseException, repo: str) -> PublishError:
    first = str(exc).splitlines()[0][:200] if str(exc) else ""
    return PublishError(f"cannot reach the Hugging Face Hub to publish to {repo!r} "
                        f"({type(exc).__name__}: {first}); {go_online()} and publish again")


def publish_to_hub(plan: Plan, *, no_pr: bool = False, private: bool = False,
                   token: str | None = None, api: Any = None) -> Published:
    """Commit ``plan``: the results repo (created if needed) in one commit, then the model
    repo's ``.eval_results`` file as a pull request (a direct commit with ``no_pr``). The
    checks (token, model repo exists, results repo is this benchmark's) run before the first
    upload; a refusal by the Hub is one line saying which step failed and what was written
    (publishing again is safe: it replaces what it wrote)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    api, token = hub_client(api, token)
    repo = plan.results_repo
    try:
        if plan.model_repo and not api.repo_exists(plan.model_repo, repo_type="model",
                                                   token=token):
            raise PublishError(f"model repo {plan.model_repo!r} does not exist on the Hub (or "
                               "this token cannot see it); check --model-repo")
        try:
            existing = api.list_repo_files(repo, repo_type="dataset", token=token)
        except RepositoryNotFoundError:
            existing = []
        _refuse_foreign(existing, f"dataset repo {repo}")
        adds, deletes = plan.commit(existing)
        n = len(plan.entries)
        try:
            api.create_repo(repo, repo_type="dataset", token=token, private=private,
                            exist_ok=True)
            info = api.create_commit(
                repo_id=repo, repo_type="dataset", token=token,
                operations=[*(CommitOperationAdd(path_in_repo=k, path_or_fileobj=v)
                              for k, v in adds.items()),
                            *(CommitOperationDelete(path_in_repo=k) for k in deletes)],
                commit_message=f"Publish {n} GridWM-Judge run{'s' * (n != 1)} "
                               "(gridwm-judge publish)")
        except HfHubHTTPError as exc:
            raise _refused(exc, f"the commit to dataset repo {repo}; nothing was "
                                "published") from None
        results_url = str(getattr(info, "commit_url", "") or
                          f"https://huggingface.co/datasets/{repo}")
        model_url = None
        if plan.model_repo:
            try:
                minfo = api.create_commit(
                    repo_id=plan.model_repo, repo_type="model", token=token,
                    create_pr=not no_pr,
                    operations=[CommitOperationAdd(path_in_repo=k, path_or_fileobj=v)
                                for k, v in plan.model_files.items()],
                    commit_message="Add GridWM-Judge evaluation results (.eval_results)",
                    commit_description=(f"Scores on the GridWM-Judge benchmark; the runs' "
                                        f"rows are in https://huggingface.co/datasets/{repo}."))
            except HfHubHTTPError as exc:
                how = "the commit" if no_pr else "the pull request"
                raise _refused(exc, f"{how} to model repo {plan.model_repo} (the results "
                                    f"are in {repo}; publishing again replaces them and "
                                    "retries this step)") from None
            model_url = str(getattr(minfo, "pr_url", None) or getattr(minfo, "commit_url", "")
                            or f"https://huggingface.co/{plan.model_repo}")
    except hub_transport_errors() as exc:
        raise _hub_error(exc, repo) from exc
    except HfHubHTTPError as exc:
        raise _refused(exc, f"reading {repo} or {plan.model_repo or 'the model repo'} before "
                            "publishing; nothing was published") from None
    return Published(results_url, model_url)
