"""Checks the report tests share: value labels clear of what is drawn (read from the
matplotlib objects), and one format for every signed figure a rendered table prints."""

from __future__ import annotations

import re

from gridwm_judge.report import oracle_state, plots

SIGNED = re.compile(r"^(?:[+-](?!0\.0+$)\d+\.\d+|0\.0+)$")
"""A signed figure: "+0.120", "-0.135" (hyphen-minus), "0.000"; never "+0.000" or "-0.000"."""


def _obstacles(ax):
    """Display-space boxes of every bar, whisker and whisker cap drawn on ``ax``."""
    from matplotlib.collections import LineCollection
    from matplotlib.container import ErrorbarContainer
    from matplotlib.transforms import Bbox

    px = ax.figure.dpi / 72
    boxes = [p.get_window_extent() for p in ax.patches]
    for cont in ax.containers:
        if not isinstance(cont, ErrorbarContainer):
            continue
        _line, caps, whiskers = cont.lines
        for cap in caps:
            w, h = cap.get_markersize() * px / 2, max(cap.get_markeredgewidth(), 1) * px / 2
            for xy in cap.get_xydata():
                x, y = ax.transData.transform(xy)
                boxes.append(Bbox([[x - w, y - h], [x + w, y + h]]))
        for col in whiskers:
            assert isinstance(col, LineCollection)
            for seg in col.get_segments():
                (x0, y0), (x1, y1) = ax.transData.transform(seg)
                h = max(col.get_linewidths()[0], 1) * px / 2
                boxes.append(Bbox([[min(x0, x1) - h, min(y0, y1) - h],
                                   [max(x0, x1) + h, max(y0, y1) + h]]))
    return boxes


def assert_labels_clear(fig) -> int:
    """Every numeric label of every axes of ``fig`` overlaps no bar, whisker or cap and stays
    inside its axes; returns how many labels were checked."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    n = 0
    for ax in fig.axes:
        boxes = _obstacles(ax)
        frame = ax.get_window_extent()
        for t in ax.texts:
            if not re.fullmatch(r"-?\d+\.\d+†?", t.get_text()):   # † marks a descriptive bar
                continue
            box = t.get_window_extent(renderer)
            hit = [b for b in boxes if box.overlaps(b)]
            assert not hit, f"label {t.get_text()} at {box.bounds} overlaps {hit[0].bounds}"
            assert frame.contains(box.x0, box.y0) and frame.contains(box.x1, box.y1), \
                f"label {t.get_text()} leaves its axes"
            n += 1
    return n


def signed_cells(table) -> list[str]:
    """The numbers a rendered table prints in its difference columns (a header naming a
    delta, a difference "A - B", a shift or a gap)."""
    cols = [i for i, c in enumerate(table.columns)
            if re.search(r"delta|Δ| - |shift|difference", c, re.IGNORECASE)]
    lines = [ln for ln in table.markdown().splitlines() if ln.startswith("| ")][1:]
    out = []
    for ln in lines:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]]
        for i in cols:
            text = cells[i].split(", McNemar")[0]  # a test's p and n are not differences
            if "p =" not in text:
                out += re.findall(r"[+-]?\d+\.\d+", text)
    return out


def assert_one_sign_format(tables) -> int:
    """Every signed figure of ``tables`` is in :func:`fsigned`'s format; returns how many."""
    found = [(t.key, s) for t in tables for s in signed_cells(t)]
    bad = [(k, s) for k, s in found if not SIGNED.match(s)]
    assert not bad, f"signed figures off the one format: {bad[:5]}"
    return len(found)


def check_report(data, monkeypatch) -> tuple[int, int]:
    """Draw every table and figure of ``data``'s report: every signed figure in the one format
    and every bar label clear (figures captured before they are written). Returns the counts
    of signed figures and of bar labels checked."""
    from gridwm_judge.report.sections import all_figures, all_tables

    figs = []

    def keep(fig, path, note=None):
        figs.append(fig)
        return path

    monkeypatch.setattr(plots, "_save", keep)
    monkeypatch.setattr(oracle_state, "_save", keep)
    signed = assert_one_sign_format(all_tables(data))
    for fn in all_figures(data).values():
        fn(data, None)
    labels = 0
    for fig in figs:
        fig.tight_layout()
        labels += assert_labels_clear(fig)
        plots._plt().close(fig)
    return signed, labels
