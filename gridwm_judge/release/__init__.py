"""The paper's public release, imported: its frozen exams as dataset configs
(``paper_task_d_r``, ``paper_task_a``, ``paper_task_c``, ``paper_task_e``) and the Task D-R
judges' published answers as runs marked as published (``gridwm-judge import-paper``), with
the paper's own figures on those items (:mod:`.figures`) for reports to set beside a judge."""

from gridwm_judge.release.importer import ImportSummary, import_paper
from gridwm_judge.release.layout import (
    CLONE_LINE,
    RELEASE_BRANCH,
    RELEASE_REPO,
    Release,
    ReleaseError,
    open_release,
)

__all__ = ["CLONE_LINE", "RELEASE_BRANCH", "RELEASE_REPO", "ImportSummary", "Release",
           "ReleaseError", "import_paper", "open_release"]
