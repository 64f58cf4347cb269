"""The Hugging Face dataset: profiles, the GeneratorBasedBuilder, export to the scriptless Hub
layout (Parquet + card + validation.json) and push.

Importing this package is cheap; `datasets` is imported by the modules that need it.
"""

from gridwm_judge.dataset.profiles import PROFILES, Profile, TaskPlan, get_profile
from gridwm_judge.seeds import GENERATION_SEED, SAMPLING_SEED


def build_dataset(*args, **kwargs):
    """See :func:`gridwm_judge.dataset.export.build_dataset`."""
    from gridwm_judge.dataset.export import build_dataset as _build

    return _build(*args, **kwargs)


def push_folder(*args, **kwargs):
    """See :func:`gridwm_judge.dataset.push.push_folder`."""
    from gridwm_judge.dataset.push import push_folder as _push

    return _push(*args, **kwargs)


__all__ = ["SAMPLING_SEED", "GENERATION_SEED", "PROFILES", "Profile", "TaskPlan",
           "build_dataset", "get_profile", "push_folder"]
