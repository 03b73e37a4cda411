"""GPT-2 small, the scorer of the Enron PII prior: not a file of ours, so not a :class:`Dataset`.

:func:`prepare_gpt2` puts the model into the user's Hugging Face cache with ``transformers`` and
writes :data:`privrisk.data.enron.GPT2_MARKER` (the input the Enron rules wait for) once it loads.
Run by the ``prepare_gpt2`` rule and by ``python -m privrisk.data.prepare gpt2``.
"""

from __future__ import annotations

import json
from pathlib import Path

from .enron import GPT2_MARKER

DOC = "data/README.md (section GPT-2)"


def prepare_gpt2(marker: str | Path = GPT2_MARKER, *, model: str = "gpt2") -> Path:
    """Put GPT-2 small into the user's Hugging Face cache; write ``marker`` (JSON) when it loads.

    Raises:
        RuntimeError: ``transformers`` is missing, or the hub cannot be reached (offline) and the
            weights are not cached; the message says what to do.
    """
    try:
        from transformers import GPT2LMHeadModel, GPT2TokenizerFast
    except ImportError as err:
        raise RuntimeError(
            "GPT-2 small (the PII prior's scorer) needs transformers: pip install -e '.[real]'. "
            "Or set swanberg2025.data.enron.gpt2: false to score the Enron names by census "
            "frequencies."
        ) from err
    try:
        GPT2TokenizerFast.from_pretrained(model)
        lm = GPT2LMHeadModel.from_pretrained(model)
    except OSError as err:
        raise RuntimeError(
            f"could not get {model!r} from the Hugging Face hub nor from the local cache ({err}). "
            f"Is this machine offline? Run `python -m privrisk.data.prepare gpt2` once online (it fills "
            f"~/.cache/huggingface, or $HF_HOME), or copy that cache here; see {DOC}. Or set "
            f"swanberg2025.data.enron.gpt2: false."
        ) from err
    marker = Path(marker)
    marker.parent.mkdir(parents=True, exist_ok=True)
    info = {
        "model": model,
        "parameters": int(sum(p.numel() for p in lm.parameters())),
        "commit": getattr(lm.config, "_commit_hash", None),
    }
    marker.write_text(json.dumps(info, indent=1) + "\n")
    return marker
