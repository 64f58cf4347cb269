"""``hf:PATH_OR_ID``: a transformers image-text-to-text model, batched greedy decoding.

The model's processor + ``AutoModelForImageTextToText``; each request becomes one user turn
(its images, then the prompt) that transformers' own chat path turns into token ids
(``processor.apply_chat_template(..., tokenize=True)``: the template places the images and
writes the BOS, so there is exactly one). Requests are batched (same max-token budget per
batch) with left padding, so every row's generation starts right after its prompt; decoding
is :data:`~.decoding.GREEDY`, overriding the model's ``generation_config.json``. On a GPU the
model is placed with ``device_map="auto"`` (accelerate); on CPU it runs in float32.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator, Sequence

from gridwm_judge.install import install_line
from gridwm_judge.judges.base import (
    JudgeOptions,
    JudgeRequest,
    JudgeResponse,
    MissingDependencyError,
    Usage,
    check_local_path,
    looks_like_path,
    refuse_api_options,
    require,
    respond_batch,
    status_for,
)
from gridwm_judge.judges.decoding import GREEDY, hf_generate_kwargs
from gridwm_judge.judges.hub_access import cache_only, offline_line
from gridwm_judge.judges.images import fit_pixels
from gridwm_judge.parsing import split_reasoning


def chat_messages(req: JudgeRequest, max_pixels: int | None = None) -> list[dict]:
    """One user turn: every image (scaled by ``fit_pixels``), then the prompt text.

    The model's chat template decides where the image placeholders go.
    """
    content = [{"type": "image", "image": fit_pixels(im, max_pixels)} for im in req.images]
    content.append({"type": "text", "text": req.prompt})
    return [{"role": "user", "content": content}]


class _NoVideoProcessor:
    """Stands where a video processor would be: no frame sampling defaults, no videos."""

    num_frames = None
    fps = None

    def __call__(self, *args, **kwargs):
        raise ValueError("this judge's processor was built without its video processor")


def without_video(processor_cls):
    """``processor_cls`` minus its video processor: a subclass whose sub-processors exclude video.

    Why: a judge sends images only, and in transformers 5 every video processor needs
    torchvision, which does not import beside a CPU-only torch build. The subclass keeps the
    class name, so it saves and loads like the original.
    """
    every = _attributes(processor_cls)
    attrs = [a for a in every if "video" not in a]
    if len(attrs) == len(every):
        return processor_cls

    # some __init__s (SmolVLM) take the video processor as a required argument: it is given
    # as None on both paths transformers builds a processor by (from_args_and_dict up to 5.24,
    # from_dict from 5.25)
    def from_args_and_dict(cls, args, processor_dict, **kwargs):
        processor_dict = {**processor_dict, "video_processor": None}
        return super(subclass, cls).from_args_and_dict(args, processor_dict, **kwargs)

    def from_dict(cls, processor_dict, **kwargs):
        processor_dict = {**processor_dict, "video_processor": None}
        return super(subclass, cls).from_dict(processor_dict, **kwargs)

    namespace = {
        "from_args_and_dict": classmethod(from_args_and_dict),
        "from_dict": classmethod(from_dict),
        "video_processor": _NoVideoProcessor(),
    }
    if "get_attributes" in dir(processor_cls):  # transformers >= 5
        namespace["get_attributes"] = classmethod(lambda c: list(attrs))
    else:  # 4.x: a class attribute
        namespace["attributes"] = attrs
    subclass = type(processor_cls.__name__, (processor_cls,), namespace)
    return subclass


def _attributes(processor_cls) -> list[str]:
    if "get_attributes" in dir(processor_cls):
        return list(processor_cls.get_attributes())
    return list(processor_cls.attributes)


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
        refuse_api_options(options, spec)
        check_local_path(model_id, "hf")
        self.torch = require("torch", "hf")
        transformers = require("transformers", "hf")
        local_only = cache_only(model_id, "hf")  # no Hub: fail in seconds, or read the cache
        self.spec, self.model_id, self.options = spec, model_id, options
        cuda = self.torch.cuda.is_available()
        self.device = options.device or ("cuda" if cuda else "cpu")
        self.processor = load_processor(transformers, model_id, local_only=local_only)
        tokenizer = getattr(self.processor, "tokenizer", None)
        if tokenizer is None:
            raise ValueError(f"the hf judge model {model_id!r} has a processor without a tokenizer")
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        kwargs: dict = {"local_files_only": True} if local_only else {}
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
        self._generate_extra = _generate_compat(self.model)
        forward = inspect.signature(self.model.forward).parameters
        self._takes_token_types = "token_type_ids" in forward

    def settings(self) -> dict:
        return {
            "backend": "hf",
            "model": self.model_id,
            "decoding": GREEDY.settings(),
            "max_pixels": self.options.max_pixels,
            # PIL and torchvision image processors differ slightly in pixels
            "image_processor": type(getattr(self.processor, "image_processor", None)).__name__,
        }

    def sending(self) -> dict:
        """What every ``generate`` call carries (run.json ``as_sent``)."""
        fields = {**hf_generate_kwargs(1, GREEDY), **self._generate_extra}
        return {"fields": {**fields, "max_new_tokens": "task budget"}, "not_sent": []}

    def judge(self, requests: Iterable[JudgeRequest]) -> Iterator[JudgeResponse]:
        for batch in batches(requests, max(1, self.options.batch_size)):
            yield from respond_batch(batch, self._generate, _response)

    def encode(self, batch: Sequence[JudgeRequest]):
        """The batch as model inputs, through transformers' own chat path (one BOS, left pad)."""
        convs = [chat_messages(r, self.options.max_pixels) for r in batch]
        return self.processor.apply_chat_template(
            convs,
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
            **_padding_kwargs(self.processor),
        )

    def _generate(self, batch: Sequence[JudgeRequest]) -> list[tuple]:
        torch, model = self.torch, self.model
        assert model is not None, "judge used after close()"
        enc = self.encode(batch).to(model.device)
        if "token_type_ids" in enc and not self._takes_token_types:
            del enc["token_type_ids"]  # some tokenizers add them; generate rejects unused inputs
        budget = batch[0].max_tokens
        with torch.inference_mode():
            out = model.generate(
                **enc,
                **hf_generate_kwargs(budget),
                eos_token_id=sorted(self.eos_ids) or None,
                pad_token_id=self.tokenizer.pad_token_id,
                **self._generate_extra,
            )
        prompt_len = enc["input_ids"].shape[1]
        prompt_tokens = enc["attention_mask"].sum(dim=1).tolist()
        results = []
        for row, n_prompt in zip(out[:, prompt_len:].tolist(), prompt_tokens, strict=True):
            cut = next((i for i, tok in enumerate(row) if tok in self.eos_ids), None)
            generated = row if cut is None else row[:cut]
            truncated = cut is None and len(row) >= budget
            text = self.tokenizer.decode(generated, skip_special_tokens=True)
            reasoning, answer = split_reasoning(text)
            usage = Usage(
                int(n_prompt), len(generated), self._reasoning_tokens(generated, reasoning)
            )
            results.append((answer, reasoning, truncated, usage))
        return results

    def _reasoning_tokens(self, generated: list[int], reasoning: str | None) -> int | None:
        """Tokens up to and with ``</think>`` (all of them if the budget ran out thinking)."""
        if reasoning is None:
            return None
        end = self.tokenizer.convert_tokens_to_ids("</think>")
        if isinstance(end, int) and end != self.tokenizer.unk_token_id:
            return generated.index(end) + 1 if end in generated else len(generated)
        return len(self.tokenizer(reasoning, add_special_tokens=False)["input_ids"])

    def close(self) -> None:
        self.model = None
        if self.torch.cuda.is_available():
            self.torch.cuda.empty_cache()


def _response(req: JudgeRequest, result: tuple, elapsed: float) -> JudgeResponse:
    text, reasoning, truncated, usage = result
    return JudgeResponse(
        req.uid, text, status_for(text, truncated), elapsed, usage, reasoning=reasoning
    )


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


def torchvision_usable() -> bool:
    """True if torchvision imports; False if absent; one clear error if installed but broken.

    Why: the torchvision wheel must match the torch build (a CUDA-built torchvision fails with
    "operator torchvision::nms does not exist" beside a CPU-only torch), and transformers only
    checks that it is installed, so a broken one crashes every processor that touches it.
    """
    import importlib.util

    if importlib.util.find_spec("torchvision") is None:
        return False
    try:
        import torchvision  # noqa: F401  # pyright: ignore[reportMissingImports]  # optional
    except Exception as exc:
        import torch

        raise MissingDependencyError(
            f"torchvision is installed but does not import beside torch {torch.__version__} "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); the hf "
            "judge works without it: pip uninstall -y torchvision, or install the torchvision "
            "built for this torch"
        ) from exc
    return True


def load_processor(transformers, model_id: str, *, local_only: bool = False):
    """The model's processor, which must have a chat template (``local_only``: from the local
    Hub cache, no request).

    Without a usable torchvision the processor is built without its video processor (a judge
    sends images only; video processors need torchvision), with the PIL image processor.
    """
    kwargs = {"local_files_only": True} if local_only else {}
    try:
        if torchvision_usable():
            processor = transformers.AutoProcessor.from_pretrained(model_id, **kwargs)
        else:
            cls = _processor_class(transformers, model_id, kwargs)
            processor = without_video(cls).from_pretrained(model_id, **kwargs)
    except OSError as exc:  # a folder without the files, or a Hub id the Hub or cache lacks
        raise ValueError(load_failure_line(model_id, exc)) from exc
    except MissingDependencyError:  # already one clear line (a broken torchvision)
        raise
    except ImportError as exc:  # e.g. num2words for SmolVLM
        raise MissingDependencyError(missing_package_line(model_id, exc)) from exc
    if not getattr(processor, "chat_template", None):
        raise ValueError(
            f"the hf judge model {model_id!r} has no chat template (PaliGemma and other "
            "non-chat checkpoints ship none); add a chat_template.jinja to the model folder "
            "that writes an image placeholder per image, then the text (see docs/judges.md)"
        )
    return processor


def load_failure_line(model_id: str, exc: OSError) -> str:
    """One line for a model transformers could not load: a local folder lacks files, or a Hub
    id is neither on the Hub as asked nor in the local cache."""
    import os

    first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
    if looks_like_path(model_id) or os.path.isdir(os.path.expanduser(model_id)):
        return (f"cannot load the hf judge model folder {model_id!r}: it needs config, weights "
                f"and processor files ({first})")
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return (f"cannot load the hf judge model {model_id!r}: HF_HUB_OFFLINE is set and the "
                f"local Hub cache does not hold it; {offline_line(model_id, 'hf')}")
    return (f"cannot load the hf judge model {model_id!r} from the Hugging Face Hub ({first}); "
            f"{offline_line(model_id, 'hf')}")


TORCHVISION_CPU = (
    "pip install torchvision --index-url https://download.pytorch.org/whl/cpu (on a CPU "
    "machine: PyPI's torchvision wheel is a CUDA build that replaces the CPU torch; on a GPU "
    "machine install the torchvision built for your torch)"
)


def missing_package_line(model_id: str, exc: ImportError) -> str:
    """One line naming the package a processor needs and how to install it."""
    missing = getattr(exc, "name", None) or _package_in(str(exc))
    if missing is None:
        return (f"the hf judge model {model_id!r} needs a package that is not installed "
                f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}): "
                f"{install_line('hf')}")
    top = missing.split(".")[0]
    install = TORCHVISION_CPU if top == "torchvision" else f"pip install {top}"
    return f"the hf judge model {model_id!r} needs the package {top!r}: {install}"


def _processor_class(transformers, model_id: str, kwargs: dict):
    """The processor class AutoProcessor would pick: ``processor_config.json``, else the model type.

    Imported from its own module, not through transformers' lazy top level, which hands out a
    placeholder for any class whose declared backends (torchvision) are missing.
    """
    import importlib

    from transformers.models.auto import processing_auto

    # transformers leaves these out of processing_auto's __all__; nothing public maps them
    names = processing_auto.PROCESSOR_MAPPING_NAMES  # pyright: ignore[reportPrivateImportUsage]
    module_name = processing_auto.model_type_to_module_name  # pyright: ignore[reportPrivateImportUsage]
    name = transformers.ProcessorMixin.get_processor_dict(model_id, **kwargs)[0].get(
        "processor_class")
    model_type = None
    if not name:
        config = transformers.AutoConfig.from_pretrained(model_id, **kwargs)
        model_type = getattr(config, "model_type", None)
        name = names.get(model_type) if model_type else None
    for key, value in names.items():
        if value is None or value != name:
            continue
        module = module_name(key)
        try:
            mod = importlib.import_module(f"transformers.models.{module}.processing_{module}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith(f"transformers.models.{module}"):
                continue  # the class lives in another model's module
            raise
        if hasattr(mod, value):
            return getattr(mod, value)
    raise ValueError(
        f"the hf judge model {model_id!r} names processor {name!r} (model_type "
        f"{model_type!r}), which this transformers version does not have"
    )


def _package_in(message: str) -> str | None:
    import re

    for pattern in (r"pip install (\S+)", r"[Pp]ackage `([\w-]+)`", r"requires the (\w+) library"):
        m = re.search(pattern, message)
        if m:
            return m.group(1).strip("`'\".").lower()
    return None


def _padding_kwargs(processor) -> dict:
    """Batch padding for ``apply_chat_template``: ``processor_kwargs`` where it exists (>= 5)."""
    params = inspect.signature(processor.apply_chat_template).parameters
    if "processor_kwargs" in params:
        return {"processor_kwargs": {"padding": True}}
    return {"padding": True}


def _generate_compat(model) -> dict:
    """transformers 4.5x fills values equal to the library default from the model's config
    unless ``use_model_defaults=False``; 5.x fills only unset ones and has no such flag."""
    if "use_model_defaults" in inspect.signature(model.generate).parameters:
        return {"use_model_defaults": False}
    return {}
