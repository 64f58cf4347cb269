"""Fixtures of the scoring tests."""

import pytest
from scoring_data import a_rows, b_rows, c_rows, d_rows, e_rows, write_dataset

from gridwm_judge.scoring.score import load_rows


@pytest.fixture(scope="session")
def tiny_dataset(tmp_path_factory):
    rows = {
        "task_a": a_rows(),
        "task_b": b_rows(),
        "task_c": c_rows(),
        "task_d": d_rows(),
        "task_e": e_rows(),
    }
    folder = write_dataset(tmp_path_factory.mktemp("ds"), rows)
    digests = {r["uid"]: r["item_digest"] for r in load_rows(str(folder))}
    flat = [{**r, "item_digest": digests[r["uid"]]} for rs in rows.values() for r in rs]
    return folder, flat
