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

from dataclasses import dataclass, field
from pathlib import Path

from gridwm_judge.judges.tiny_model import pil_image_processor

# --- chat templates, as in the Hub repos named ----------------------------------------------

_QWEN25_VL = (  # Qwen/Qwen2.5-VL-7B-Instruct
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n{% if message['content'] is string %}"
    "{{ message['content'] }}<|im_end|>\n{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}{% if add_vision_id %}"
    "Picture {{ image_count.value }}: {% endif %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}{% if add_vision_id %}"
    "Video {{ video_count.value }}: {% endif %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_QWEN3_VL = (  # Qwen/Qwen3-VL-2B-Instruct (system/user/assistant branches)
    "{%- set image_count = namespace(value=0) %}{%- set video_count = namespace(value=0) %}"
    "{%- if messages[0].role == 'system' %}{{- '<|im_start|>system\\n' }}"
    "{%- if messages[0].content is string %}{{- messages[0].content }}{%- else %}"
    "{%- for content in messages[0].content %}{%- if 'text' in content %}{{- content.text }}"
    "{%- endif %}{%- endfor %}{%- endif %}{{- '<|im_end|>\\n' }}{%- endif %}"
    "{%- for message in messages %}{%- if message.role == 'user' or message.role == 'assistant' %}"
    "{{- '<|im_start|>' + message.role + '\\n' }}{%- if message.content is string %}"
    "{{- message.content }}{%- else %}{%- for content in message.content %}"
    "{%- if content.type == 'image' or 'image' in content or 'image_url' in content %}"
    "{%- set image_count.value = image_count.value + 1 %}"
    "{%- if add_vision_id %}Picture {{ image_count.value }}: {% endif -%}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{%- elif content.type == 'video' or 'video' in content %}"
    "{%- set video_count.value = video_count.value + 1 %}"
    "{%- if add_vision_id %}Video {{ video_count.value }}: {% endif -%}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{%- elif 'text' in content %}{{- content.text }}{%- endif %}{%- endfor %}{%- endif %}"
    "{{- '<|im_end|>\\n' }}{%- endif %}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)

_IDEFICS3_BODY = (
    "{% for message in messages %}{{message['role'] | capitalize}}"
    "{% if message['content'][0]['type'] == 'image' %}{{':'}}{% else %}{{': '}}{% endif %}"
    "{% for line in message['content'] %}{% if line['type'] == 'text' %}{{line['text']}}"
    "{% elif line['type'] == 'image' %}{{ '<image>' }}{% endif %}{% endfor %}"
    "<end_of_utterance>\n{% endfor %}{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)
_SMOLVLM = "<|im_start|>" + _IDEFICS3_BODY  # HuggingFaceTB/SmolVLM-256M-Instruct
_IDEFICS3 = "<|begin_of_text|>" + _IDEFICS3_BODY  # HuggingFaceM4/Idefics3-8B-Llama3

_LLAVA_OV = (  # llava-hf/llava-onevision-qwen2-0.5b-ov-hf
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + ' '}}"
    "{# Render all images first #}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'image') %}"
    "{{ '<image>' }}{% endfor %}"
    "{# Render all video then #}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'video') %}"
    "{{ '<video>' }}{% endfor %}"
    "{# Render all text next #}{% if message['role'] != 'assistant' %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{{ '\n' + content['text'] }}{% endfor %}{% else %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}"
    "{% generation %}{{ '\n' + content['text'] }}{% endgeneration %}{% endfor %}{% endif %}"
    "{{'<|im_end|>'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

_INTERNVL = (  # OpenGVLab/InternVL3-1B-hf
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n'}}"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for content in message['content'] %}{% if content['type'] == 'image' %}"
    "{{ '<IMG_CONTEXT>\n' }}{% elif content['type'] == 'video' %}{{ '<video>\n' }}"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}"
    "{{'<|im_end|>\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{'<|im_start|>assistant\n' }}{% endif %}"
)

_GEMMA3 = (  # google/gemma-3-4b-it
    "{{ bos_token }}\n{%- if messages[0]['role'] == 'system' -%}"
    "{%- if messages[0]['content'] is string -%}"
    "{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}{%- else -%}"
    "{%- set first_user_prefix = messages[0]['content'][0]['text'] + '\n\n' -%}{%- endif -%}"
    '{%- set loop_messages = messages[1:] -%}{%- else -%}{%- set first_user_prefix = "" -%}'
    "{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    '{{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}'
    "{%- endif -%}{%- if (message['role'] == 'assistant') -%}{%- set role = \"model\" -%}"
    "{%- else -%}{%- set role = message['role'] -%}{%- endif -%}"
    "{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else \"\") }}"
    "{%- if message['content'] is string -%}{{ message['content'] | trim }}"
    "{%- elif message['content'] is iterable -%}{%- for item in message['content'] -%}"
    "{%- if item['type'] == 'image' -%}{{ '<start_of_image>' }}"
    "{%- elif item['type'] == 'text' -%}{{ item['text'] | trim }}{%- endif -%}{%- endfor -%}"
    '{%- else -%}{{ raise_exception("Invalid content type") }}{%- endif -%}'
    "{{ '<end_of_turn>\n' }}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{'<start_of_turn>model\n'}}{%- endif -%}\n"
)

_MLLAMA = (  # meta-llama/Llama-3.2-11B-Vision-Instruct (no tools)
    "{{- bos_token }}{%- if messages[0]['role'] == 'system' %}"
    "{%- set system_message = messages[0]['content']|trim %}"
    '{%- set messages = messages[1:] %}{%- else %}{%- set system_message = "" %}{%- endif %}'
    '{%- if not date_string is defined %}{%- set date_string = "26 Jul 2024" %}{%- endif %}'
    "{% set image_ns = namespace(has_images=false) %}{%- for message in messages %}"
    "{%- for content in message['content'] %}{%- if content['type'] == 'image' %}"
    "{%- set image_ns.has_images = true %}{%- endif %}{%- endfor %}{%- endfor %}"
    '{%- if image_ns.has_images and not system_message == "" %}'
    '{{- raise_exception("Prompting with images is incompatible with system messages.") }}'
    "{%- endif %}{%- if not image_ns.has_images %}"
    '{{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}'
    '{{- "Cutting Knowledge Date: December 2023\\n" }}'
    '{{- "Today Date: " + date_string + "\\n\\n" }}{{- system_message }}'
    '{{- "<|eot_id|>" }}{%- endif %}'
    "{%- for message in messages %}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}"
    "{%- if message['content'] is string %}{{- message['content'] }}{%- else %}"
    "{%- for content in message['content'] %}{%- if content['type'] == 'image' %}"
    "{{- '<|image|>' }}{%- elif content['type'] == 'text' %}{{- content['text'] }}{%- endif %}"
    "{%- endfor %}{%- endif %}{{- '<|eot_id|>' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}"
    "{%- endif %}"
)

_MISTRAL3 = (  # mistralai/Mistral-Small-3.1-24B-Instruct-2503 (default system text shortened)
    '{%- set default_system_message = "You are Mistral Small 3, a Large Language Model." %}'
    "{{- bos_token }}{%- if messages[0]['role'] == 'system' %}"
    "{%- if messages[0]['content'] is string %}{%- set system_message = messages[0]['content'] %}"
    "{%- else %}{%- set system_message = messages[0]['content'][0]['text'] %}{%- endif %}"
    "{%- set loop_messages = messages[1:] %}{%- else %}"
    "{%- set system_message = default_system_message %}{%- set loop_messages = messages %}"
    "{%- endif %}{{- '[SYSTEM_PROMPT]' + system_message + '[/SYSTEM_PROMPT]' }}"
    "{%- for message in loop_messages %}{%- if message['role'] == 'user' %}"
    "{%- if message['content'] is string %}{{- '[INST]' + message['content'] + '[/INST]' }}"
    "{%- else %}{{- '[INST]' }}{%- for block in message['content'] %}"
    "{%- if block['type'] == 'text' %}{{- block['text'] }}"
    "{%- elif block['type'] in ['image', 'image_url'] %}{{- '[IMG]' }}{%- else %}"
    "{{- raise_exception('Only text and image blocks are supported in message content!') }}"
    "{%- endif %}{%- endfor %}{{- '[/INST]' }}{%- endif %}"
    "{%- elif message['role'] == 'assistant' %}{{- message['content'] + eos_token }}"
    "{%- else %}{{- raise_exception('Only user, system and assistant roles are supported!') }}"
    "{%- endif %}{%- endfor %}"
)

_PIXTRAL = (  # mistral-community/pixtral-12b
    '{%- if messages[0]["role"] == "system" %}'
    '{%- set system_message = messages[0]["content"] %}{%- set loop_messages = messages[1:] %}'
    "{%- else %}{%- set loop_messages = messages %}{%- endif %}\n\n{{- bos_token }}"
    "{%- for message in loop_messages %}"
    "{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{- raise_exception('After the optional system message, conversation roles must alternate "
    'user/assistant/user/assistant/...\') }}{%- endif %}{%- if message["role"] == "user" %}'
    "{%- if loop.last and system_message is defined %}"
    '{{- "[INST]" + system_message + "\\n\\n" }}{%- else %}{{- "[INST]" }}{%- endif %}'
    '{%- if message["content"] is not string %}{%- for chunk in message["content"] %}'
    '{%- if chunk["type"] == "text" %}{{- chunk["text"] }}'
    '{%- elif chunk["type"] == "image" %}{{- "[IMG]" }}{%- else %}'
    '{{- raise_exception("Unrecognized content type!") }}{%- endif %}{%- endfor %}'
    '{%- else %}{{- message["content"] }}{%- endif %}{{- "[/INST]" }}'
    '{%- elif message["role"] == "assistant" %}{{- message["content"] + eos_token}}'
    '{%- else %}{{- raise_exception("Only user and assistant roles are supported, with the '
    'exception of an initial optional system message!") }}{%- endif %}{%- endfor %}'
)

PALIGEMMA_TEMPLATE = (  # not on the Hub: the fallback the README documents (images, then text)
    "{% for message in messages %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>{% endif %}{% endfor %}"
    "{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% endif %}{% endfor %}{% endfor %}"
)


@dataclass(frozen=True)
class Tok:
    """Tokenizer roles; ``extra`` are named special tokens the processor reads as attributes."""

    bos: str | None
    eos: str
    pad: str
    specials: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)


QWEN_TOK = Tok(
    None,
    "<|im_end|>",
    "<|endoftext|>",
    ("<|im_start|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>"),
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


def _mrope(theta: float, **extra) -> dict:
    """Multimodal RoPE settings: ``rope_parameters`` (transformers >= 5) or ``rope_scaling``."""
    import transformers

    section = {"mrope_section": [2, 3, 3], **extra}  # sums to head_dim / 2 = 8
    if int(transformers.__version__.split(".")[0]) >= 5:
        return {"rope_parameters": {"rope_type": "default", "rope_theta": theta, **section}}
    return {"rope_theta": theta, "rope_scaling": {"type": "mrope", **section}}


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

    roles = [t for t in (spec.pad, spec.bos, spec.eos, "<unk>") if t]
    specials = list(dict.fromkeys([*roles, *spec.specials, *spec.extra.values()]))
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(_corpus(), trainer)
    if spec.bos:  # like Llama/Gemma tokenizers: a BOS is added when special tokens are
        bos_id = bpe.token_to_id(spec.bos)
        bpe.post_processor = tokenizers.processors.TemplateProcessing(
            single=f"{spec.bos} $A", pair=f"{spec.bos} $A $B", special_tokens=[(spec.bos, bos_id)]
        )
    tok = transformers.PreTrainedTokenizerFast(
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
        text_config=_text(
            tok,
            rope_parameters={"rope_type": "default", "rope_theta": 1e6, "mrope_section": [2, 3, 3]},
        ),
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
    tok = tokenizer(Tok("<bos>", "<eos>", "<pad>", ("<start_of_turn>", "<end_of_turn>"), extra))
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
        text_config=_text(tok, cross_attention_layers=[1]),
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

    tok = tokenizer(Tok("<bos>", "<eos>", "<pad>", ("<image>",), {"image_token": "<image>"}))
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
    from transformers.models.pixtral import image_processing_pil_pixtral as pil

    stand_in = types.ModuleType(name)
    stand_in.get_resize_output_image_size = pil.get_resize_output_image_size
    sys.modules[name] = stand_in
