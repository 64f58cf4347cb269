"""The GridWM-Judge dataset builder, as a file you can read and run.

This is a thin reference to :class:`gridwm_judge.dataset.builder.GridWMJudge`, the
``datasets.GeneratorBasedBuilder`` with configs ``task_a`` ... ``task_e``. ``datasets`` >= 4 no
longer runs dataset loading scripts, so this file is NOT how the published data is loaded:
``gridwm-judge build`` writes Parquet files plus a card, and ``load_dataset(path_or_repo,
"task_c")`` reads those. Use the builder directly when you want the ``datasets`` builder API
(e.g. ``as_dataset``, streaming the generator, or a custom cache)::

    python builder/gridwm_judge_builder.py task_c --profile smoke --out /tmp/gwj-task-c
"""

from __future__ import annotations

import argparse
import sys

from gridwm_judge.dataset.builder import GridWMJudge, GridWMJudgeConfig
from gridwm_judge.seeds import GENERATION_SEED

__all__ = ["GridWMJudge", "GridWMJudgeConfig", "main"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Prepare one GridWM-Judge config with the builder.")
    ap.add_argument("config", help="task_a, task_b, task_c, task_d or task_e")
    ap.add_argument("--profile", default="smoke", help="base, scale2 or smoke (default smoke)")
    ap.add_argument("--out", required=True, help="folder for the prepared Parquet files")
    ap.add_argument("--seed", type=int, default=GENERATION_SEED)
    args = ap.parse_args(argv)
    builder = GridWMJudge(config_name=args.config, profile=args.profile, seed=args.seed)
    builder.download_and_prepare(output_dir=args.out, file_format="parquet")
    print(builder.info.splits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
