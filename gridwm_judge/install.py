"""How to install this package with an extra: the one place the pip line is written.

The package is not on PyPI: it is installed from a clone or from its git URL (the README's
install section), so a message about a missing optional dependency says exactly that.
"""

from __future__ import annotations

REPOSITORY = "https://github.com/gridwm-judge/gridwm-judge"


def install_line(extra: str) -> str:
    """The pip lines that add ``extra``: ``pip install -e ".[hf]"`` in a clone, or the
    git URL."""
    return (f'pip install -e ".[{extra}]" in a clone of {REPOSITORY} (or pip install '
            f'"gridwm-judge[{extra}] @ git+{REPOSITORY}")')


def release_line(version: str, extra: str | None = None) -> str:
    """The pip line that installs release ``version`` (tagged ``v<version>`` in the
    repository), with ``extra`` when given: what rebuilds a dataset that release built."""
    name = f"gridwm-judge[{extra}]" if extra else "gridwm-judge"
    return f'pip install "{name} @ git+{REPOSITORY}@v{version}"'
