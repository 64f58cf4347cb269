"""Properties of the causal metrics over arbitrary verdicts (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwm_judge.scoring import causal_metrics

verdict = st.sampled_from([1, 0, -1])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(verdict, verdict), min_size=1, max_size=25),
    st.sampled_from(["all_groups", "eligible_pairs"]),
)
def test_idr_identities(pairs, protocol):
    y = [v for pair in pairs for v in pair]
    g = [f"g{i}" for i in range(len(pairs)) for _ in range(2)]
    v = ["full", "cf"] * len(pairs)
    r = causal_metrics(y, g, v, protocol=protocol)
    if r.n_pairs == 0:
        assert r.p_active is None and r.idr_raw is None
        return
    assert 0.0 <= r.idr_raw <= r.p_active <= 1.0
    assert r.idr_raw + r.idr_rev <= 1.0 + 1e-12
    assert r.g_active == round(r.p_active * r.n_pairs)
    if r.g_active:
        assert np.isclose(r.idr_cond * r.p_active, r.idr_raw)
    else:
        assert r.idr_cond is None
    assert r.jacc_neu == sum(a == 1 for a, _ in pairs) / len(pairs)
