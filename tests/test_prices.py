"""What a run costs: the prices file, each provider's image rule, run.json's cost from the
usage the server reported, `plan --judges` before a run and the report's cost table after."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judges.smoke_data import write_smoke_dataset

from gridwm_judge.cli import main
from gridwm_judge.formats import fusd
from gridwm_judge.prices import PriceTable, image_tokens, run_cost
from gridwm_judge.testing.stub_server import StubServer


def test_prices_are_per_million_tokens_with_a_batch_discount():
    table = PriceTable.load()
    price = table.for_judge("openai:gpt-4o")
    assert price is not None and price.read and price.source.startswith("https://")
    assert price.cost(1_000_000, 100_000) == pytest.approx(price.input + price.output / 10)
    assert price.batch_cost(1_000_000, 0) == pytest.approx(
        price.input * (1 - (price.batch_discount or 0)))
    assert table.for_judge("openai:no-such-model") is None
    assert table.for_judge("hf:Qwen/Qwen2.5-VL-3B-Instruct") is None
    assert table.for_judge("baseline:oracle") is None


def test_a_prices_file_off_its_form_names_the_entry(tmp_path):
    bad = tmp_path / "prices.json"
    bad.write_text(json.dumps({"format": "gridwm-judge-prices/1",
                               "models": {"m": {"provider": "openai", "input": 1.0}}}))
    with pytest.raises(ValueError, match="model 'm'"):
        PriceTable.load(bad)
    bad.write_text("{}")
    with pytest.raises(ValueError, match="not a prices file"):
        PriceTable.load(bad)


@pytest.mark.parametrize(("provider", "size", "tokens"), [
    ("openai", (512, 512), 85 + 170), ("openai", (1024, 512), 85 + 2 * 170),
    ("openai", (1024, 1024), 765), ("openai", (2048, 4096), 1105),  # OpenAI's own examples
    ("openai", (4096, 1024), 85 + 170 * 4),  # fit 2048: 2048 x 512, never scaled up
    ("anthropic", (750, 100), 100), ("anthropic", (3136, 1568), 1568 * 784 / 750),
    ("gemini", (384, 200), 258), ("gemini", (1000, 700), 258 * 2),
])
def test_each_providers_image_rule(provider, size, tokens):
    got, exact = image_tokens(provider, *size)
    assert got == pytest.approx(tokens) and exact


def test_an_unpriced_model_has_cost_unknown_never_guessed():
    table = PriceTable.load()
    usage = {"rows": 3, "prompt_tokens": 30, "completion_tokens": 6}
    known = run_cost("openai:gpt-4o", usage, table)
    price = table.for_judge("openai:gpt-4o")
    assert price is not None and known["usd"] == pytest.approx(round(price.cost(30, 6), 4))
    assert run_cost("openai:mine", usage, table)["usd"] is None
    assert "no price for 'mine'" in run_cost("openai:mine", usage, table)["why"]
    assert run_cost("vllm:Qwen/X", usage, table)["usd"] is None


def test_batch_rows_are_counted_whatever_their_price(tmp_path):
    usage = {"rows": 3, "prompt_tokens": 30, "completion_tokens": 6}
    batched = {"rows": 2, "prompt_tokens": 20, "completion_tokens": 4}
    table = PriceTable.load()
    assert run_cost("openai:mine", usage, table, batched)["batch_rows"] == 2  # unpriced
    gpt = run_cost("openai:gpt-4o", usage, table, batched)
    assert gpt["batch_rows"] == 2 and "batch_priced_online" not in gpt
    no_tier = tmp_path / "prices.json"
    no_tier.write_text(json.dumps({"format": "gridwm-judge-prices/1", "models": {
        "m": {"provider": "openai", "input": 1.0, "output": 2.0, "read": "2026-12-05",
              "source": "https://x"}}}))
    cost = run_cost("openai:m", usage, PriceTable.load(no_tier), batched)
    assert cost["batch_priced_online"] is True  # no discount known: priced online, and said
    assert cost["usd"] == pytest.approx(round((30 * 1.0 + 6 * 2.0) / 1e6, 4))


def test_run_json_records_the_cost_of_what_the_server_reported(tmp_path, capsys):
    smoke = write_smoke_dataset(tmp_path / "smoke", configs=("task_c",))
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"format": "gridwm-judge-prices/1", "models": {
        "stub-vlm": {"provider": "openai", "input": 1000.0, "output": 2000.0,
                     "batch_discount": 0.5, "read": "2026-12-05", "source": "https://x"}}}))
    with StubServer(default_reply="Yes") as server:
        for model, extra in (("stub-vlm", ["--prices", str(prices)]), ("other", [])):
            code = main(["eval", "--dataset", str(smoke), "--tasks", "c", "--judge",
                         f"openai:{model}", "--base-url", server.base_url, "--no-progress",
                         "--out", str(tmp_path / model), *extra])
            assert code == 0, capsys.readouterr().err
    run = json.loads((tmp_path / "stub-vlm" / "run.json").read_text())
    usage = run["usage"]
    assert usage["rows"] > 0 and usage["prompt_tokens"] == 11 * usage["rows"]
    want = (usage["prompt_tokens"] * 1000 + usage["completion_tokens"] * 2000) / 1e6
    assert run["cost"] == {"usd": round(want, 4), "model": "stub-vlm", "rows": usage["rows"],
                           "prices_read": "2026-12-05", "source": "https://x"}
    other = json.loads((tmp_path / "other" / "run.json").read_text())
    assert other["cost"]["usd"] is None and "no price for 'other'" in other["cost"]["why"]
    # the report's cost table
    for model in ("stub-vlm", "other"):
        assert main(["score", "--dataset", str(smoke), "--n-resamples", "50", "--predictions",
                     str(tmp_path / model / "predictions.jsonl"), "--out",
                     str(tmp_path / model)]) == 0
    assert main(["report", str(tmp_path / "stub-vlm"), str(tmp_path / "other"), "--out",
                 str(tmp_path / "report")]) == 0
    md = (tmp_path / "report" / "tables" / "cost.md").read_text()
    assert f"| 0 | {fusd(round(want, 4))} | 2026-12-05 |" in md  # no batch rows
    assert "unknown (no price for 'other'" in md


@pytest.mark.parametrize(("usd", "shown"), [
    (0.0, "0.00"), (0.104, "0.10"), (1234.5, "1,234.50"), (0.0017, "0.0017"),
    (0.00012, "0.00012"), (0.00001, "1.0e-05")])
def test_a_small_cost_never_reads_as_nothing(usd, shown):
    assert fusd(usd) == shown


def test_plan_prices_a_profile_per_judge(capsys):
    code = main(["plan", "--profile", "smoke", "--judges",
                 "openai:gpt-4o,gemini:gemini-2.5-flash-lite,vllm:Qwen/Qwen2.5-VL-7B-Instruct",
                 "--json"])
    assert code == 0
    costs = {c["judge"]: c for c in json.loads(capsys.readouterr().out)["judge_costs"]}
    gpt, gemini, local = (costs[j] for j in ("openai:gpt-4o", "gemini:gemini-2.5-flash-lite",
                                             "vllm:Qwen/Qwen2.5-VL-7B-Instruct"))
    assert gpt["requests"] == gemini["requests"] == local["requests"] > 0
    assert gpt["online_usd"] > 0 and gpt["batch_usd"] == pytest.approx(gpt["online_usd"] / 2,
                                                                     abs=0.011)
    assert gpt["exact_images"] and not local["exact_images"]
    assert local["online_usd"] is None and "not a priced API" in local["why"]
    assert Path(PriceTable.load().path).name == "prices.json"
