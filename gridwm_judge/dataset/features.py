"""The `datasets.Features` of every config, declared once from the row contract."""

from __future__ import annotations

from gridwm_judge.schema import COLUMNS


def features():
    """`datasets.Features` for :data:`gridwm_judge.schema.COLUMNS` (same for all configs)."""
    import datasets

    out = {}
    for name, (dtype, _meaning) in COLUMNS.items():
        if dtype == "list_image":
            out[name] = datasets.List(datasets.Image())
        elif dtype in ("string", "int64"):
            out[name] = datasets.Value(dtype)
        else:  # pragma: no cover - guards the schema module
            raise ValueError(
                f"column {name!r} has unknown dtype {dtype!r}; expected string, int64, list_image"
            )
    return datasets.Features(out)
