"""Reports: paper-shaped tables (Markdown, CSV, JSON), diagnostic plots (PNG), the per-judge
failure-mode summary and REPORT_DIR/index.md, all read from scores.json (``gridwm-judge
report``), and index.html: the same report on one page, with a gallery of each judge's
failures read from the dataset. Every number is the scoring package's; this package only
arranges and draws.
"""

from gridwm_judge.report.failures import MODES, flags, summarize
from gridwm_judge.report.headline import headline
from gridwm_judge.report.inputs import JudgeEntry, ReportData, RunInput, collect, load_run
from gridwm_judge.report.sections import all_tables
from gridwm_judge.report.table import Table
from gridwm_judge.report.writer import ReportResult, write_report

__all__ = [
    "MODES",
    "JudgeEntry",
    "ReportData",
    "ReportResult",
    "RunInput",
    "Table",
    "all_tables",
    "collect",
    "flags",
    "headline",
    "load_run",
    "summarize",
    "write_report",
]
