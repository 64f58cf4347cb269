"""The hf: backend across eleven judge architectures, with tiny random models built here.

Per architecture (built once per session by :mod:`tiny_archs`, real transformers classes and
the Hub repos' chat templates): the judge loads, its prompt token ids equal transformers' own
chat path (``processor.apply_chat_template(..., tokenize=True)``) one by one and batched,
there is at most one BOS, each image becomes the expected number of image tokens, batched
greedy output equals one-by-one output, and ``gridwm-judge eval`` runs end to end.

No torchvision imports here (a CPU-only torch); the backend builds processors without their
video part, and Pixtral's processor module gets its one torchvision-module helper from the PIL
module (``tiny_archs.pixtral_without_torchvision``).
"""

from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import tiny_archs  # noqa: E402
from PIL import Image  # noqa: E402
from smoke_data import write_smoke_dataset  # noqa: E402
from tiny_parts import P, S, torchvision_imports  # noqa: E402
from tiny_templates import PALIGEMMA_TEMPLATE  # noqa: E402

from gridwm_judge.cli import main as cli_main  # noqa: E402
from gridwm_judge.judges import JudgeOptions, JudgeRequest, make_judge  # noqa: E402

PROMPT = "Did the agent reach the goal? Answer Yes or No."
SIZES = [(40, 36), (48, 30), (30, 44)]  # small, different shapes: aspect handling shows


def _requests() -> list[JudgeRequest]:
    """Three requests with 1, 2 and 3 images of different sizes, and different prompt lengths."""
    out = []
    for i in range(3):
        images = tuple(
            Image.new("RGB", SIZES[(i + k) % 3], (60 * k, 120, 40 * i)) for k in range(i + 1)
        )
        out.append(JudgeRequest(f"u{i}", "C", PROMPT + " Be brief." * i, images, 3))
    return out


class Built:
    """One architecture: its folder, the judge loaded from it, and the reference processor."""

    def __init__(self, name, root):
        import transformers

        self.name = name
        self.dir, self.reference = tiny_archs.build_arch_and_processor(name, root / name)
        if name == "paligemma":  # as on the Hub: no chat template; the documented fallback
            self.no_template_dir = self.dir
            self.dir = root / "paligemma-with-template"
            shutil.copytree(self.no_template_dir, self.dir)
            (self.dir / "chat_template.jinja").write_text(PALIGEMMA_TEMPLATE)
            self.reference.chat_template = PALIGEMMA_TEMPLATE
        self.judge = make_judge(f"hf:{self.dir}", JudgeOptions(batch_size=3))
        self.transformers = transformers


_BUILT: dict[str, Built] = {}


def _get(name: str, tmp_path_factory) -> Built:
    if name not in _BUILT:
        _BUILT[name] = Built(name, tmp_path_factory.mktemp("archs"))
    return _BUILT[name]


@pytest.fixture(scope="module", params=tiny_archs.ARCHS)
def built(request, tmp_path_factory):
    import transformers

    if request.param == "qwen3_vl" and not hasattr(transformers, "Qwen3VLConfig"):
        pytest.skip(f"Qwen3-VL needs transformers >= 4.57 (this is {transformers.__version__})")
    return _get(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return write_smoke_dataset(tmp_path_factory.mktemp("smoke"), configs=("task_c", "task_d"))


def _reference_ids(built: Built, req: JudgeRequest) -> list[int]:
    """transformers' own chat path, on the processor object built in memory (not our loader)."""
    content = [{"type": "image", "image": im} for im in req.images]
    content.append({"type": "text", "text": req.prompt})
    enc = built.reference.apply_chat_template(
        [{"role": "user", "content": content}],
        add_generation_prompt=True,
        tokenize=True,
        return_dict=True,
    )
    ids = enc["input_ids"]
    ids = ids.tolist() if hasattr(ids, "tolist") else ids
    return list(ids[0] if isinstance(ids[0], list) else ids)


def _unpadded(enc, row: int) -> list[int]:
    ids, mask = enc["input_ids"][row].tolist(), enc["attention_mask"][row].tolist()
    return [t for t, m in zip(ids, mask, strict=True) if m]


def test_prompt_ids_equal_transformers_chat_path_one_by_one_and_batched(built):
    reqs = _requests()
    batched = built.judge.encode(reqs)
    for row, req in enumerate(reqs):
        reference = _reference_ids(built, req)
        assert _unpadded(built.judge.encode([req]), 0) == reference
        assert _unpadded(batched, row) == reference  # left padding only adds pad positions
    assert batched["attention_mask"][:, -1].tolist() == [1, 1, 1]  # padded on the left


def test_exactly_one_bos(built):
    tok = built.judge.tokenizer
    for req in _requests():
        ids = _unpadded(built.judge.encode([req]), 0)
        if tok.bos_token_id is None:  # Qwen, LLaVA-OneVision (Qwen2), InternVL: no BOS token
            continue
        assert ids.count(tok.bos_token_id) == 1, tok.decode(ids[:8])
        if built.name != "paligemma":  # PaliGemma's processor puts BOS after the images
            assert ids[0] == tok.bos_token_id


def _expected_image_tokens(built: Built, image, n_images: int) -> int:
    """How many image tokens one image becomes, from the tiny configs in tiny_archs."""
    name, proc = built.name, built.reference
    if name in ("qwen2_5_vl", "qwen3_vl"):
        grid = proc.image_processor(images=[image], return_tensors="pt")["image_grid_thw"][0]
        return int(grid.prod()) // 4  # 2x2 patches merged into one token
    if name in ("smolvlm", "idefics3", "gemma3"):
        return 4  # (32 / 8)^2 patches, 2x2 pixel shuffle / pooled to 4
    if name == "internvl":  # tiles (crop_to_patches, InternVL's processor default) x 4 tokens
        tiles = proc.image_processor(images=[image], crop_to_patches=True)["num_patches"][0]
        return 4 * int(tiles)
    if name == "mllama":
        return 1  # cross-attention: one <|image|> per image
    if name == "paligemma":
        return 16  # (32 / 8)^2
    if name in ("pixtral", "mistral3"):
        h, w = proc.image_processor(images=[image], return_tensors="pt")["image_sizes"][0]
        step = 8 * (2 if name == "mistral3" else 1)  # patch size x spatial merge
        return -(-int(h) // step) * -(-int(w) // step)  # rows x columns of [IMG]
    if name == "llava_onevision":
        if n_images > 1:  # several images: base resolution only, plus one newline token
            return (S // P) ** 2 + 1
        # one image: anyres, base grid + the unpadded high-res grid + newlines
        return proc._get_number_of_features(image.height, image.width, S, S)
    raise AssertionError(f"no expectation for {name}")


def test_each_image_becomes_the_expected_image_tokens(built):
    tok = built.judge.tokenizer  # Gemma 3 / PaliGemma name their image token on the tokenizer
    image_token = getattr(tok, "image_token", None) or built.reference.image_token
    image_id = tok.convert_tokens_to_ids(image_token)
    for req in _requests():
        ids = _unpadded(built.judge.encode([req]), 0)
        expected = sum(_expected_image_tokens(built, im, len(req.images)) for im in req.images)
        assert ids.count(image_id) == expected, (built.name, req.uid)


def test_batched_greedy_output_equals_one_by_one(built):
    reqs = _requests()
    batched = {r.uid: r for r in built.judge.judge(reqs)}
    # one request per call: a batch of one, as batch_size=1 gives (without loading it again)
    single = {r.uid: r for req in reqs for r in built.judge.judge([req])}
    for uid, resp in batched.items():
        assert resp.status in ("ok", "truncated", "empty"), resp.error
        assert resp.raw == single[uid].raw
        assert resp.usage.prompt_tokens == single[uid].usage.prompt_tokens > 0
        assert resp.usage.completion_tokens <= 3


def test_eval_end_to_end(built, smoke, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["eval", "--dataset", str(smoke), "--tasks", "c,d", "--judge", f"hf:{built.dir}"]
    argv += ["--out", str(out), "--limit", "2", "--max-tokens-c", "3", "--max-tokens-d", "3"]
    assert cli_main([*argv, "--no-progress", "--batch-size", "2"]) == 0
    records = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(records) == 4 and {r["task"] for r in records} == {"C", "D"}
    for r in records:
        assert r["status"] in ("ok", "truncated", "empty"), r.get("error")
        assert r["usage"]["prompt_tokens"] > 0
    settings = json.loads((out / "run.json").read_text())["judge_settings"]
    assert settings["decoding"]["strategy"] == "greedy"


def test_paligemma_without_chat_template_fails_at_load_in_one_line(
    tmp_path_factory, smoke, tmp_path, capsys
):
    built = _get("paligemma", tmp_path_factory)
    argv = ["eval", "--dataset", str(smoke), "--tasks", "c", "--out", str(tmp_path / "run")]
    argv += ["--judge", f"hf:{built.no_template_dir}", "--limit", "1", "--no-progress"]
    assert cli_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has no chat template" in err
    assert not (tmp_path / "run" / "predictions.jsonl").exists()


def test_pixtral_without_torchvision_is_one_line_naming_it(tmp_path_factory, smoke, tmp_path):
    """A fresh process (no test stand-in module): transformers 5's Pixtral processor needs
    torchvision, and eval says so in one line at load, with the pip command."""
    import subprocess
    import sys

    if torchvision_imports():
        pytest.skip("torchvision imports here; the Pixtral processor loads normally")
    import transformers

    if int(transformers.__version__.split(".")[0]) < 5:
        pytest.skip("transformers 4.x's Pixtral processor does not import torchvision")
    built = _get("pixtral", tmp_path_factory)
    argv = ["eval", "--dataset", str(smoke), "--tasks", "c", "--out", str(tmp_path / "run")]
    argv += ["--judge", f"hf:{built.dir}", "--limit", "1", "--no-progress"]
    proc = subprocess.run(
        [sys.executable, "-m", "gridwm_judge", *argv], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 2
    err = [line for line in proc.stderr.splitlines() if "error" in line]
    assert len(err) == 1 and "pip install torchvision" in err[0], proc.stderr[-2000:]
