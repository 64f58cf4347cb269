"""Bridges to the evaluation frameworks researchers already run (inspect_ai, lmms-eval) and to
the Hugging Face Hub for the ``evaluate`` metric modules.

Every bridge reads the same task contract (:mod:`gridwm_judge.task_table`), the same parser
(:func:`gridwm_judge.parsing.parse_answer`) and the same scorer (:mod:`gridwm_judge.scoring`);
none repeats a rule. The per-config files (the lmms-eval YAMLs, inspect's ``@task`` functions in
``inspect_tasks``) are written from the table by ``python -m gridwm_judge.integrations.generate``.
The framework packages are optional: ``items``, ``generate`` and ``hub_metrics`` need none,
``inspect_tasks`` / ``inspect_bridge`` / ``inspect_convert`` need the ``inspect`` extra
(``pip install -e ".[inspect]"`` in a clone).
"""
