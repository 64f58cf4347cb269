"""Build a tiny, randomly initialised Idefics3-style VLM on the spot (no downloads).

For tests, benchmarks and smoke runs of the ``hf:`` backend on any machine: a byte-level BPE
tokenizer trained here on the prompt texts, an Idefics3 processor with the PIL image
processor (no torchvision) and a model of a few layers with hidden size 32-64. Its answers are
noise; what it proves is that the whole path (chat template with several images, batching,
left padding, generation, decoding, parsing, persistence) works.

    python -m gridwm_judge.testing.tiny_model OUT_DIR   # then --judge hf:OUT_DIR
"""

from __future__ import annotations

from pathlib import Path

from gridwm_judge import prompts
from gridwm_judge.judges.base import require

CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] | capitalize }}:"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}<image>"
    "{% else %}{{ part['text'] }}{% endif %}{% endfor %}<end_of_utterance>\n{% endfor %}"
    "{% if add_generation_prompt %}Assistant:{% endif %}"
)


def _corpus() -> list[str]:
    texts = [prompts.TASK_A, prompts.TASK_B, prompts.TASK_D, *prompts.TASK_E.values()]
    texts += [*prompts.TASK_C_PREAMBLE.values(), prompts.TASK_C_QUESTION, prompts.REVERSED_NOTE]
    texts += ['Yes No Success Fail A B C D {"answer": "key_yellow"} holding dropped']
    return texts * 4


def trained_bpe(specials: list[str], vocab_size: int, corpus: list[str]):
    """A byte-level BPE tokenizer trained here on ``corpus`` (nothing downloaded), each of
    ``specials`` one atomic token."""
    tokenizers = require("tokenizers", "hf")
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(corpus, trainer)
    return bpe


def pil_image_processor(model: str, name: str, **kwargs):
    """The PIL (no torchvision) image processor ``name`` of ``transformers.models.<model>``.

    transformers >= 5 names it ``<name>Pil`` in ``image_processing_pil_<model>``; 4.x has
    the PIL one under the plain name (the torchvision one is ``<name>Fast``).
    """
    import importlib

    package = f"transformers.models.{model}"
    try:
        module = importlib.import_module(f"{package}.image_processing_pil_{model}")
        cls = getattr(module, name + "Pil")
    except ModuleNotFoundError:
        module = importlib.import_module(f"{package}.image_processing_{model}")
        cls = getattr(module, name)
    return cls(**kwargs)


def build_tiny_vlm(
    out_dir: str | Path,
    *,
    hidden_size: int = 32,
    layers: int = 2,
    image_size: int = 32,
    vocab_size: int = 400,
    seed: int = 0,
) -> Path:
    """Write a tiny Idefics3 model + processor to ``out_dir`` and return the path."""
    torch = require("torch", "hf")
    transformers = require("transformers", "hf")
    from transformers.models.idefics3 import Idefics3Processor

    out = Path(out_dir)
    specials = ["<pad>", "<s>", "</s>", "<unk>", "<fake_token_around_image>", "<image>"]
    specials += ["<end_of_utterance>", "<global-img>"]
    specials += [f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)]
    bpe = trained_bpe(specials, vocab_size, _corpus())
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
        unk_token="<unk>",
    )
    tok.padding_side = "left"
    image_processor = pil_image_processor(
        "idefics3",
        "Idefics3ImageProcessor",
        size={"longest_edge": image_size},
        max_image_size={"longest_edge": image_size},
        do_image_splitting=False,
    )
    patch = max(4, image_size // 4)
    scale = 2
    seq_len = ((image_size // patch) ** 2) // (scale**2)
    processor = Idefics3Processor(
        image_processor=image_processor,
        tokenizer=tok,
        image_seq_len=seq_len,
        chat_template=CHAT_TEMPLATE,
    )
    heads = 2
    config = transformers.Idefics3Config(
        text_config={
            "model_type": "llama",
            "vocab_size": len(tok),
            "hidden_size": hidden_size,
            "intermediate_size": 2 * hidden_size,
            "num_hidden_layers": layers,
            "num_attention_heads": heads,
            "num_key_value_heads": heads,
            "max_position_embeddings": 4096,
            "pad_token_id": tok.pad_token_id,
            "bos_token_id": tok.bos_token_id,
            "eos_token_id": tok.eos_token_id,
        },
        vision_config={
            "hidden_size": hidden_size,
            "intermediate_size": 2 * hidden_size,
            "num_hidden_layers": 1,
            "num_attention_heads": heads,
            "image_size": image_size,
            "patch_size": patch,
        },
        scale_factor=scale,
        image_token_id=tok.convert_tokens_to_ids("<image>"),
        pad_token_id=tok.pad_token_id,
    )
    torch.manual_seed(seed)
    model = transformers.Idefics3ForConditionalGeneration(config).eval()
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description="write a tiny random Idefics3-style VLM",
                                allow_abbrev=False)
    p.add_argument("out_dir")
    p.add_argument("--hidden-size", type=int, default=32)
    p.add_argument("--layers", type=int, default=2)
    args = p.parse_args(argv)
    path = build_tiny_vlm(args.out_dir, hidden_size=args.hidden_size, layers=args.layers)
    print(f"tiny VLM written to {path}; use --judge hf:{path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
