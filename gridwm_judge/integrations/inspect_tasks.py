"""inspect_ai tasks: one ``@task`` per dataset config of the task table, registered
through inspect's package entry point (group ``inspect_ai``, name ``gridwm_judge``), so
with the ``inspect`` extra (``pip install -e ".[inspect]"`` in a clone)::

    inspect eval gridwm_judge/task_c -T dataset=PATH_OR_HUB_ID --model MODEL

Generated from the task table by `python -m gridwm_judge.integrations.generate`: do not
edit. How a task is asked and scored: :mod:`gridwm_judge.integrations.inspect_bridge`.
"""

from __future__ import annotations

from inspect_ai import Task, task

from gridwm_judge.integrations.inspect_bridge import gridwm_task


@task
def task_a(dataset: str, representation: str | None = None) -> Task:
    """A: action-conditioned next state (A-D choice)."""
    return gridwm_task("task_a", dataset, representation)


@task
def task_b(dataset: str, representation: str | None = None) -> Task:
    """B: single-frame structured perception (JSON)."""
    return gridwm_task("task_b", dataset, representation)


@task
def task_c(dataset: str, representation: str | None = None) -> Task:
    """C: presentation invariance and representation exchangeability."""
    return gridwm_task("task_c", dataset, representation)


@task
def task_d(dataset: str, representation: str | None = None) -> Task:
    """D: reference-aided causal sensitivity."""
    return gridwm_task("task_d", dataset, representation)


@task
def task_e(dataset: str, representation: str | None = None) -> Task:
    """E: prefix state tracking (JSON label)."""
    return gridwm_task("task_e", dataset, representation)


@task
def task_c_hard(dataset: str, representation: str | None = None) -> Task:
    """CH: causal sensitivity on hard counterfactuals (Task C's neutral presentation)."""
    return gridwm_task("task_c_hard", dataset, representation)


@task
def miniworld_a(dataset: str, representation: str | None = None) -> Task:
    """MA: MiniWorld action-conditioned next first-person view (A-D choice)."""
    return gridwm_task("miniworld_a", dataset, representation)


@task
def miniworld_c(dataset: str, representation: str | None = None) -> Task:
    """MC: MiniWorld presentation invariance and representation exchangeability."""
    return gridwm_task("miniworld_c", dataset, representation)


@task
def miniworld_d(dataset: str, representation: str | None = None) -> Task:
    """MD: MiniWorld reference-aided causal sensitivity."""
    return gridwm_task("miniworld_d", dataset, representation)


@task
def miniworld_c_hard(dataset: str, representation: str | None = None) -> Task:
    """MCH: MiniWorld causal sensitivity on hard counterfactuals (MiniWorld Task C's neutral
    presentation)."""
    return gridwm_task("miniworld_c_hard", dataset, representation)


@task
def prompt_ablation(dataset: str, representation: str | None = None) -> Task:
    """PA: prompt-structure ablation of Task D (direct / structured verdict / structured
    rationale)."""
    return gridwm_task("prompt_ablation", dataset, representation)


@task
def oracle_state(dataset: str, representation: str | None = None) -> Task:
    """OS: Oracle-State evidence arms: staged task type, objective and verdict from pixels, a state
    table or both (JSON)."""
    return gridwm_task("oracle_state", dataset, representation)


@task
def paper_task_a(dataset: str, representation: str | None = None) -> Task:
    """RA: the paper's released Task A exam (A-D choice)."""
    return gridwm_task("paper_task_a", dataset, representation)


@task
def paper_task_c(dataset: str, representation: str | None = None) -> Task:
    """RC: the paper's released Task C exam (composite storyboards)."""
    return gridwm_task("paper_task_c", dataset, representation)


@task
def paper_task_d_r(dataset: str, representation: str | None = None) -> Task:
    """RDR: the paper's released reference-aided Task D (Task D-R, Table 13)."""
    return gridwm_task("paper_task_d_r", dataset, representation)


@task
def paper_task_e(dataset: str, representation: str | None = None) -> Task:
    """RE: the paper's released Task E exam (JSON label)."""
    return gridwm_task("paper_task_e", dataset, representation)
