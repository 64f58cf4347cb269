"""``hf:PATH_OR_ID``: a transformers image-text-to-text model, batched greedy decoding.

``AutoProcessor`` + ``AutoModelForImageTextToText``; each request becomes one user turn with
one image placeholder per image followed by the prompt, rendered by the model's own chat
template. Requests are batched (same max-token budget per batch) with left padding, so every
row's generation starts right after its prompt. On a GPU the model is placed with
``device_map="auto"`` (accelerate); on CPU it runs in float32.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from gridwm_judge.judges.base import (
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
    Usage,
    require,
    status_for,
)


def chat_messages(req: JudgeRequest) -> list[dict]:
    """One user turn: an image placeholder per image, then the prompt text."""
    content = [{"type": "image"} for _ in req.images]
    content.append({"type": "text", "text": req.prompt})
    return [{"role": "user", "content": content}]


def limit_pixels(image, max_pixels: int | None):
    """Scale an image down (never up, aspect kept) to at most ``max_pixels`` pixels.

    Model-agnostic, unlike processor-specific pixel kwargs; recorded in the judge settings.
    """
    if not max_pixels or image.width * image.height <= max_pixels:
        return image
    scale = (max_pixels / (image.width * image.height)) ** 0.5
    size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
    return image.resize(size, resample=3)  # bicubic


def batches(requests: Iterable[JudgeRequest], size: int) -> Iterator[list[JudgeRequest]]:
    """Consecutive batches of at most ``size`` requests sharing one max-token budget."""
    batch: list[JudgeRequest] = []
    for req in requests:
        if batch and (len(batch) >= size or req.max_tokens != batch[0].max_tokens):
            yield batch
            batch = []
        batch.append(req)
    if batch:
        yield batch


class HFJudge:
    needs_gold = False

    def __init__(self, model_id: str, options: JudgeOptions, spec: str):
        self.torch = require("torch", "hf")
        transformers = require("transformers", "hf")
        self.spec, self.model_id, self.options = spec, model_id, options
        cuda = self.torch.cuda.is_available()
        self.device = options.device or ("cuda" if cuda else "cpu")
        try:
            self.processor = transformers.AutoProcessor.from_pretrained(model_id)
        except OSError as exc:  # not a local folder and not a reachable Hub id
            raise ValueError(
                f"cannot load the hf judge model {model_id!r}: give a local folder with "
                f"config, weights and processor files, or a Hub model id ({exc})"
            ) from exc
        tokenizer = getattr(self.processor, "tokenizer", None)
        if tokenizer is not None:
            tokenizer.padding_side = "left"
            if tokenizer.pad_token is None:
                tokenizer.pad_token = tokenizer.eos_token
        kwargs: dict = {}
        if self.device.startswith("cuda"):
            require("accelerate", "hf")
            kwargs.update(
                device_map="auto" if options.device is None else self.device, dtype="auto"
            )
        else:
            kwargs.update(dtype=self.torch.float32)
        model_cls = transformers.AutoModelForImageTextToText
        self.model = model_cls.from_pretrained(model_id, **kwargs).eval()
        if not self.device.startswith("cuda"):
            self.model.to(self.device)
        self.tokenizer = tokenizer
        self.eos_ids = _eos_ids(self.model, tokenizer)

    def settings(self) -> dict:
        return {
            "backend": "hf",
            "model": self.model_id,
            "decoding": "greedy",
            "max_pixels": self.options.max_pixels,
        }

    def judge(self, requests: Iterable[JudgeRequest]) -> Iterator[JudgeResponse]:
        for batch in batches(requests, max(1, self.options.batch_size)):
            start = time.perf_counter()
            try:
                results = self._generate(batch)
            except Exception as exc:  # OOM, a bad image, a template error: record, go on
                elapsed = time.perf_counter() - start
                for req in batch:
                    yield JudgeResponse(
                        req.uid, None, "error", elapsed, error=f"{type(exc).__name__}: {exc}"
                    )
                continue
            elapsed = time.perf_counter() - start
            for req, (text, truncated, usage) in zip(batch, results, strict=True):
                yield JudgeResponse(req.uid, text, status_for(text, truncated), elapsed, usage)

    def _generate(self, batch: list[JudgeRequest]) -> list[tuple[str, bool, Usage]]:
        torch = self.torch
        texts = [
            self.processor.apply_chat_template(chat_messages(r), add_generation_prompt=True)
            for r in batch
        ]
        images = [[limit_pixels(im, self.options.max_pixels) for im in r.images] for r in batch]
        enc = self.processor(
            text=texts,
            images=images if any(images) else None,
            return_tensors="pt",
            padding=True,
        )
        enc = enc.to(self.model.device)
        budget = batch[0].max_tokens
        with torch.inference_mode():
            out = self.model.generate(
                **enc,
                max_new_tokens=budget,
                do_sample=False,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        prompt_len = enc["input_ids"].shape[1]
        prompt_tokens = enc["attention_mask"].sum(dim=1).tolist()
        results = []
        for row, n_prompt in zip(out[:, prompt_len:].tolist(), prompt_tokens, strict=True):
            cut = next((i for i, tok in enumerate(row) if tok in self.eos_ids), None)
            generated = row if cut is None else row[:cut]
            truncated = cut is None and len(row) >= budget
            text = self.tokenizer.decode(generated, skip_special_tokens=True)
            results.append((text, truncated, Usage(int(n_prompt), len(generated))))
        return results

    def close(self) -> None:
        self.model = None
        if self.torch.cuda.is_available():
            self.torch.cuda.empty_cache()


def _eos_ids(model, tokenizer) -> set[int]:
    ids: set[int] = set()
    gen = getattr(model, "generation_config", None)
    for value in (getattr(gen, "eos_token_id", None), getattr(tokenizer, "eos_token_id", None)):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, (list, tuple)):
            ids.update(int(v) for v in value)
    return ids


def create(name: str, options: JudgeOptions, spec: str) -> HFJudge:
    return HFJudge(name, options, spec)
