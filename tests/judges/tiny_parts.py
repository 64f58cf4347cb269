"""Pieces of the tiny architecture models: tokenizer, tiny tower configs, version shims."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Tok:
    """Tokenizer roles; ``extra`` are named special tokens the processor reads as attributes."""

    bos: str | None
    eos: str
    pad: str
    specials: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)
    v4_class: str = "PreTrainedTokenizerFast"  # transformers 4.x processors check the class


QWEN_TOK = Tok(
    None,
    "<|im_end|>",
    "<|endoftext|>",
    ("<|im_start|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"),
    v4_class="Qwen2TokenizerFast",
)

H = 32  # hidden size of every tiny text and vision tower
S = 32  # image side the image processors resize to
P = 8  # vision patch size


def _text(tok, **kw) -> dict:
    out = {
        "vocab_size": len(tok),
        "hidden_size": H,
        "intermediate_size": 2 * H,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "max_position_embeddings": 4096,
        "pad_token_id": tok.pad_token_id,
        "bos_token_id": tok.bos_token_id,
        "eos_token_id": tok.eos_token_id,
        "tie_word_embeddings": False,
    }
    out.update(kw)
    return out


def _siglip(**kw) -> dict:
    out = {
        "hidden_size": H,
        "intermediate_size": 2 * H,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "image_size": S,
        "patch_size": P,
    }
    out.update(kw)
    return out


def _major() -> int:
    import transformers

    return int(transformers.__version__.split(".")[0])


def _mrope(theta: float, **extra) -> dict:
    """Multimodal RoPE settings: ``rope_parameters`` (transformers >= 5) or ``rope_scaling``."""

    section = {"mrope_section": [2, 3, 3], **extra}  # sums to head_dim / 2 = 8
    if _major() >= 5:
        return {"rope_parameters": {"rope_type": "default", "rope_theta": theta, **section}}
    return {"rope_theta": theta, "rope_scaling": {"type": "mrope", **section}}


def _v4_rope() -> dict:
    """transformers 4.x Mllama reads ``rope_scaling["rope_type"]`` unconditionally."""
    return {} if _major() >= 5 else {"rope_scaling": {"rope_type": "default"}}


def _corpus() -> list[str]:
    from gridwm_judge import prompts

    texts = [prompts.TASK_A, prompts.TASK_B, prompts.TASK_D, *prompts.TASK_E.values()]
    texts += [*prompts.TASK_C_PREAMBLE.values(), prompts.TASK_C_QUESTION, prompts.REVERSED_NOTE]
    texts += ['Yes No Success Fail A B C D {"answer": "key_yellow"} user assistant system']
    return texts * 2


def tokenizer(spec: Tok, vocab_size: int = 400):
    """A byte-level BPE trained here; special tokens are atomic, named roles set."""
    import tokenizers
    import transformers

    from gridwm_judge.testing.tiny_model import trained_bpe

    roles = [t for t in (spec.pad, spec.bos, spec.eos, "<unk>") if t]
    specials = list(dict.fromkeys([*roles, *spec.specials, *spec.extra.values()]))
    bpe = trained_bpe(specials, vocab_size, _corpus())
    if spec.bos:  # like Llama/Gemma tokenizers: a BOS is added when special tokens are
        bos_id = bpe.token_to_id(spec.bos)
        bpe.post_processor = tokenizers.processors.TemplateProcessing(
            single=f"{spec.bos} $A", pair=f"{spec.bos} $A $B", special_tokens=[(spec.bos, bos_id)]
        )
    cls = transformers.PreTrainedTokenizerFast
    if _major() < 5:
        cls = getattr(transformers, spec.v4_class)
    tok = cls(
        tokenizer_object=bpe,
        bos_token=spec.bos,
        eos_token=spec.eos,
        pad_token=spec.pad,
        unk_token="<unk>",
        extra_special_tokens=dict(spec.extra),
    )
    tok.padding_side = "left"
    return tok


def _ids(tok, *names) -> list[int]:
    return [tok.convert_tokens_to_ids(n) for n in names]


def torchvision_imports() -> bool:
    try:
        import torchvision  # noqa: F401
    except Exception:
        return False
    return True


def pixtral_without_torchvision() -> None:
    """Let ``PixtralProcessor`` import where torchvision cannot (this CI: CPU-only torch).

    transformers 5.24's ``processing_pixtral`` imports the torchvision image-processor module
    for one pure helper, ``get_resize_output_image_size``, which the PIL module defines
    identically; this registers a stand-in module holding the PIL one. Test-only: the backend
    itself reports "needs torchvision" for Pixtral-family models where it does not import.
    """
    import sys
    import types

    name = "transformers.models.pixtral.image_processing_pixtral"
    if torchvision_imports() or name in sys.modules:
        return
    try:
        from transformers.models.pixtral import image_processing_pil_pixtral as pil
    except ImportError:  # transformers 4.x: the processor does not import torchvision
        return

    stand_in = types.ModuleType(name)
    stand_in.get_resize_output_image_size = pil.get_resize_output_image_size
    sys.modules[name] = stand_in
