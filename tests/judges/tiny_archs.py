"""Tiny random-weight models of the eleven judge architectures, built on the spot (no downloads).

Each is built from the real transformers config, model and processor classes (PIL image
processors, so no torchvision is needed), with a byte-level BPE tokenizer trained here on the
prompt texts plus the architecture's special tokens, and the chat template written as the
model's Hub repo has it (``CHAT_TEMPLATES``; for Qwen3-VL, Llama 3.2 Vision and Mistral 3 the
branches for tools are left out, since a judge never sends tools, and long default system
texts are shortened). PaliGemma has no chat template, as on the Hub.

    build_arch("gemma3", out_dir) -> out_dir   # then --judge hf:out_dir
"""

from __future__ import annotations

from pathlib import Path

from tiny_parts import (
    QWEN_TOK,
    H,
    P,
    S,
    Tok,
    _ids,
    _mrope,
    _siglip,
    _text,
    _v4_rope,
    pixtral_without_torchvision,
    tokenizer,
)
from tiny_templates import (
    _GEMMA3,
    _IDEFICS3,
    _INTERNVL,
    _LLAVA_OV,
    _MISTRAL3,
    _MLLAMA,
    _PIXTRAL,
    _QWEN3_VL,
    _QWEN25_VL,
    _SMOLVLM,
)

from gridwm_judge.testing.tiny_model import pil_image_processor


def _qwen25_vl(T):
    tok = tokenizer(QWEN_TOK)
    ip = pil_image_processor(
        "qwen2_vl",
        "Qwen2VLImageProcessor",
        min_pixels=28 * 28 * 4,
        max_pixels=28 * 28 * 4,
        patch_size=14,
        merge_size=2,
    )
    proc = T.Qwen2_5_VLProcessor(image_processor=ip, tokenizer=tok, chat_template=_QWEN25_VL)
    img, vid, vs, ve = _ids(
        tok, "<|image_pad|>", "<|video_pad|>", "<|vision_start|>", "<|vision_end|>"
    )
    cfg = T.Qwen2_5_VLConfig(
        text_config=_text(tok, **_mrope(1e6)),
        vision_config={
            "depth": 1,
            "hidden_size": H,
            "intermediate_size": 2 * H,
            "num_heads": 2,
            "out_hidden_size": H,
            "patch_size": 14,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "fullatt_block_indexes": [0],
            "window_size": 56,
        },
        image_token_id=img,
        video_token_id=vid,
        vision_start_token_id=vs,
        vision_end_token_id=ve,
    )
    return cfg, proc


def _qwen3_vl(T):
    tok = tokenizer(QWEN_TOK)
    ip = pil_image_processor(
        "qwen2_vl",
        "Qwen2VLImageProcessor",
        min_pixels=32 * 32 * 4,
        max_pixels=32 * 32 * 4,
        patch_size=16,
        merge_size=2,
    )
    proc = T.Qwen3VLProcessor(image_processor=ip, tokenizer=tok, chat_template=_QWEN3_VL)
    img, vid, vs, ve = _ids(
        tok, "<|image_pad|>", "<|video_pad|>", "<|vision_start|>", "<|vision_end|>"
    )
    cfg = T.Qwen3VLConfig(
        text_config=_text(tok, head_dim=16, **_mrope(5e5, mrope_interleaved=True)),
        vision_config={
            "depth": 1,
            "hidden_size": H,
            "intermediate_size": 2 * H,
            "num_heads": 2,
            "out_hidden_size": H,
            "patch_size": 16,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "num_position_embeddings": 16,
            "deepstack_visual_indexes": [0],
        },
        image_token_id=img,
        video_token_id=vid,
        vision_start_token_id=vs,
        vision_end_token_id=ve,
    )
    return cfg, proc


_IDEFICS_SPECIALS = ("<fake_token_around_image>", "<image>", "<end_of_utterance>", "<global-img>")
_IDEFICS_SPECIALS += tuple(f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7))


def _idefics_like(T, smol: bool):

    spec = (
        Tok("<|im_start|>", "<end_of_utterance>", "<|im_end|>", _IDEFICS_SPECIALS)
        if smol
        else Tok("<|begin_of_text|>", "<end_of_utterance>", "<|end_of_text|>", _IDEFICS_SPECIALS)
    )
    tok = tokenizer(spec)
    model, name = (
        ("smolvlm", "SmolVLMImageProcessor") if smol else ("idefics3", "Idefics3ImageProcessor")
    )
    ip = pil_image_processor(
        model,
        name,
        size={"longest_edge": S},
        max_image_size={"longest_edge": S},
        do_image_splitting=False,
    )
    seq_len = (S // P) ** 2 // 4
    kw = {"image_seq_len": seq_len, "chat_template": _SMOLVLM if smol else _IDEFICS3}
    if smol:
        proc = T.SmolVLMProcessor(image_processor=ip, tokenizer=tok, video_processor=None, **kw)
    else:
        proc = T.Idefics3Processor(image_processor=ip, tokenizer=tok, **kw)
    cfg_cls = T.SmolVLMConfig if smol else T.Idefics3Config
    cfg = cfg_cls(
        text_config={"model_type": "llama", **_text(tok)},
        vision_config=_siglip(),
        scale_factor=2,
        image_token_id=tok.convert_tokens_to_ids("<image>"),
        pad_token_id=tok.pad_token_id,
    )
    return cfg, proc


def _llava_ov(T):

    tok = tokenizer(
        Tok(None, "<|im_end|>", "<|endoftext|>", ("<|im_start|>", "<image>", "<video>"))
    )
    pinpoints = [[S, S], [S, 2 * S], [2 * S, S], [2 * S, 2 * S]]
    ip = pil_image_processor(
        "llava_onevision",
        "LlavaOnevisionImageProcessor",
        size={"height": S, "width": S},
        image_grid_pinpoints=pinpoints,
    )
    n = (S // P) ** 2
    proc = T.LlavaOnevisionProcessor(
        image_processor=ip,
        tokenizer=tok,
        video_processor=None,
        num_image_tokens=n,
        vision_feature_select_strategy="full",
        chat_template=_LLAVA_OV,
    )
    img, vid = _ids(tok, "<image>", "<video>")
    cfg = T.LlavaOnevisionConfig(
        text_config={"model_type": "qwen2", **_text(tok)},
        vision_config={"model_type": "siglip_vision_model", **_siglip()},
        image_token_index=img,
        video_token_index=vid,
        image_grid_pinpoints=pinpoints,
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
    )
    return cfg, proc


def _internvl(T):

    extra = {
        "start_image_token": "<img>",
        "end_image_token": "</img>",
        "context_image_token": "<IMG_CONTEXT>",
        "video_token": "<video>",
    }
    tok = tokenizer(Tok(None, "<|im_end|>", "<|endoftext|>", ("<|im_start|>",), extra))
    ip = pil_image_processor("got_ocr2", "GotOcr2ImageProcessor", size={"height": S, "width": S})
    seq = (S // P) ** 2 // 4
    proc = T.InternVLProcessor(
        image_processor=ip,
        tokenizer=tok,
        video_processor=None,
        image_seq_length=seq,
        chat_template=_INTERNVL,
    )
    cfg = T.InternVLConfig(
        vision_config={
            "hidden_size": H,
            "intermediate_size": 2 * H,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "image_size": [S, S],
            "patch_size": [P, P],
        },
        text_config={"model_type": "qwen2", **_text(tok)},
        image_token_id=tok.convert_tokens_to_ids("<IMG_CONTEXT>"),
        image_seq_length=seq,
        downsample_ratio=0.5,
    )
    return cfg, proc


def _gemma3(T):

    extra = {
        "boi_token": "<start_of_image>",
        "eoi_token": "<end_of_image>",
        "image_token": "<image_soft_token>",
    }
    specials = ("<start_of_turn>", "<end_of_turn>")
    tok = tokenizer(Tok("<bos>", "<eos>", "<pad>", specials, extra, v4_class="GemmaTokenizerFast"))
    ip = pil_image_processor("gemma3", "Gemma3ImageProcessor", size={"height": S, "width": S})
    mm = 4
    proc = T.Gemma3Processor(
        image_processor=ip, tokenizer=tok, chat_template=_GEMMA3, image_seq_length=mm
    )
    boi, eoi, img = _ids(tok, "<start_of_image>", "<end_of_image>", "<image_soft_token>")
    cfg = T.Gemma3Config(
        text_config=_text(
            tok,
            head_dim=16,
            num_key_value_heads=1,
            sliding_window=64,
            layer_types=["sliding_attention", "full_attention"],
        ),
        vision_config=_siglip(),
        mm_tokens_per_image=mm,
        boi_token_index=boi,
        eoi_token_index=eoi,
        image_token_index=img,
    )
    return cfg, proc


def _mllama(T):

    specials = ("<|image|>", "<|start_header_id|>", "<|end_header_id|>", "<|python_tag|>")
    tok = tokenizer(Tok("<|begin_of_text|>", "<|eot_id|>", "<|finetune_right_pad_id|>", specials))
    ip = pil_image_processor(
        "mllama", "MllamaImageProcessor", size={"height": S, "width": S}, max_image_tiles=2
    )
    proc = T.MllamaProcessor(image_processor=ip, tokenizer=tok, chat_template=_MLLAMA)
    cfg = T.MllamaConfig(
        vision_config={
            "hidden_size": H,
            "intermediate_size": 2 * H,
            "num_hidden_layers": 1,
            "num_global_layers": 1,
            "attention_heads": 2,
            "image_size": S,
            "patch_size": P,
            "max_num_tiles": 2,
            "intermediate_layers_indices": [0],
            "vision_output_dim": 2 * H,
            "supported_aspect_ratios": [[1, 1], [1, 2], [2, 1]],
        },
        text_config=_text(tok, cross_attention_layers=[1], **_v4_rope()),
        image_token_index=tok.convert_tokens_to_ids("<|image|>"),
    )
    return cfg, proc


_MISTRAL_SPECIALS = (
    "[INST]",
    "[/INST]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[IMG]",
    "[IMG_BREAK]",
    "[IMG_END]",
)


def _pixtral_vision() -> dict:
    return {
        "model_type": "pixtral",
        "hidden_size": H,
        "intermediate_size": 2 * H,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "head_dim": 16,
        "image_size": S,
        "patch_size": P,
    }


def _mistral_like(T, merge: int):
    pixtral_without_torchvision()
    from transformers.models.pixtral.processing_pixtral import PixtralProcessor

    tok = tokenizer(Tok("<s>", "</s>", "<pad>", _MISTRAL_SPECIALS))
    ip = pil_image_processor(
        "pixtral", "PixtralImageProcessor", size={"longest_edge": S}, patch_size=P
    )
    proc = PixtralProcessor(
        image_processor=ip,
        tokenizer=tok,
        patch_size=P,
        spatial_merge_size=merge,
        chat_template=_MISTRAL3 if merge > 1 else _PIXTRAL,
    )
    img = tok.convert_tokens_to_ids("[IMG]")
    text = {"model_type": "mistral", **_text(tok, head_dim=16)}
    if merge > 1:
        cfg = T.Mistral3Config(
            vision_config=_pixtral_vision(),
            text_config=text,
            image_token_index=img,
            spatial_merge_size=merge,
            vision_feature_layer=-1,
        )
    else:
        cfg = T.LlavaConfig(
            vision_config=_pixtral_vision(),
            text_config=text,
            image_token_index=img,
            vision_feature_layer=-1,
            vision_feature_select_strategy="full",
        )
    return cfg, proc


def _paligemma(T):

    extra = {"image_token": "<image>"}
    tok = tokenizer(
        Tok("<bos>", "<eos>", "<pad>", ("<image>",), extra, v4_class="GemmaTokenizerFast")
    )
    ip = pil_image_processor("siglip", "SiglipImageProcessor", size={"height": S, "width": S})
    ip.image_seq_length = (S // P) ** 2
    proc = T.PaliGemmaProcessor(image_processor=ip, tokenizer=tok)
    cfg = T.PaliGemmaConfig(
        vision_config=_siglip(projection_dim=H),
        text_config={"model_type": "gemma", **_text(tok, head_dim=16)},
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        projection_dim=H,
    )
    return cfg, proc


BUILDERS = {
    "qwen2_5_vl": _qwen25_vl,
    "qwen3_vl": _qwen3_vl,
    "smolvlm": lambda T: _idefics_like(T, smol=True),
    "idefics3": lambda T: _idefics_like(T, smol=False),
    "llava_onevision": _llava_ov,
    "internvl": _internvl,
    "gemma3": _gemma3,
    "mllama": _mllama,
    "mistral3": lambda T: _mistral_like(T, merge=2),
    "pixtral": lambda T: _mistral_like(T, merge=1),
    "paligemma": _paligemma,
}
ARCHS = tuple(BUILDERS)


class _NoVideo:
    """``transformers`` with each processor class minus its video part (no torchvision here)."""

    def __getattr__(self, name):
        import transformers

        from gridwm_judge.judges.hf_transformers import without_video

        obj = getattr(transformers, name)
        return without_video(obj) if name.endswith("Processor") else obj


def build_arch(name: str, out_dir: str | Path, seed: int = 0) -> Path:
    """Write a tiny random model + processor of architecture ``name`` to ``out_dir``."""
    return build_arch_and_processor(name, out_dir, seed)[0]


def build_arch_and_processor(name: str, out_dir: str | Path, seed: int = 0):
    """``(folder, processor)``: :func:`build_arch` plus the in-memory processor it saved."""
    import torch
    import transformers

    config, processor = BUILDERS[name](_NoVideo())
    torch.manual_seed(seed)
    model = transformers.AutoModelForImageTextToText.from_config(config).eval()
    tok = processor.tokenizer
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out, processor
