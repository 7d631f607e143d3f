"""Rebuild a trainable checkpoint from the shipped int8 ONNX verifier.

Usage::

    python -m training.from_onnx --out build/shipped/best.pt     # then: training.train --resume it

Training checkpoints (``best.pt``) live in ``build/``, which git does not keep, so a later
session would have to retrain the shipped weights from nothing (about 90 minutes on the 2-core
CPU) before it could continue them. The shipped ONNX file holds every weight: each encoder and
head matrix as per-channel int8 (``MatMulInteger`` with a scale and zero point per output
column), biases and layer norms in fp32. Dequantised, ``(q - zero_point) * scale``, they are the
trained fp32 weights to within half a quantisation step. The embeddings were frozen in training,
so they are taken from the base model exactly (the int8 copy is checked to agree with them).

The rebuilt model is checked against the ONNX file it came from: argmax agreement and the largest
logit difference on a few held-out-style pairs are printed, and a low agreement is an error.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import torch

from training.data import Pair
from training.model import (
    INSTALL_DIR,
    MODEL_FILE,
    CrossEncoder,
    collate,
    encode,
    load_tokenizer,
    model_dir,
)

_MATMUL = re.compile(r"^/(bert/encoder/layer\.\d+/.+|head)/(?:MatMul|Gemm_MatMul)_quant$")
_EMBEDDINGS = ("word_embeddings", "position_embeddings", "token_type_embeddings")


def _dequantize(q: np.ndarray, scale: np.ndarray, zero: np.ndarray) -> np.ndarray:
    return (q.astype(np.float32) - zero.astype(np.float32)) * scale.astype(np.float32)


def state_dict_from_onnx(path: Path) -> dict[str, torch.Tensor]:
    """The CrossEncoder state dict that the int8 ONNX graph at ``path`` computes."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    model = CrossEncoder(model_dir())
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    for name in state:
        if name in inits:  # biases and layer norms are stored as they are
            state[name] = torch.from_numpy(inits[name].copy())
    found = 0
    for node in graph.node:
        m = _MATMUL.match(node.name)
        if node.op_type != "MatMulInteger" or m is None:
            continue
        weight = next(i for i in node.input if i.endswith("_quantized") and i in inits)
        base = weight[: -len("_quantized")]
        matrix = _dequantize(inits[weight], inits[base + "_scale"], inits[base + "_zero_point"])
        key = m.group(1).replace("/", ".") + ".weight"
        if key not in state or tuple(state[key].shape) != matrix.T.shape:
            raise ValueError(f"{node.name}: no parameter {key} of shape {matrix.T.shape}")
        state[key] = torch.from_numpy(np.ascontiguousarray(matrix.T))
        found += 1
    expected = sum(1 for k in state if k.endswith(".weight") and state[k].dim() == 2) - len(
        _EMBEDDINGS
    )
    if found != expected:
        raise ValueError(f"found {found} int8 matrices, expected {expected}")
    for emb in _EMBEDDINGS:
        key = f"bert.embeddings.{emb}.weight"
        q = inits[key + "_quantized"]
        approx = _dequantize(q, inits[key + "_scale"], inits[key + "_zero_point"])
        step = float(inits[key + "_scale"])
        if float(np.abs(approx - state[key].numpy()).max()) > step:
            raise ValueError(f"{key}: the shipped embeddings are not the base model's (frozen)")
    return state


def check(state: dict[str, torch.Tensor], path: Path) -> tuple[float, float]:
    """Argmax agreement and largest logit difference of the rebuilt model vs the ONNX file."""
    from groundwatch.judges.verifier import ClaimVerifier

    pairs = [
        ("Annual plans can be refunded within 30 days of purchase.", "Refunds take 90 days."),
        ("The museum opens at 9 am and closes at 5 pm daily.", "The museum opens at 9 am."),
        ("Paris is the capital of France.", "Berlin has a large population."),
        ("The drug is not approved for children under 12.", "Children can take the drug."),
        ("Revenue rose 12% to $4.1 billion in 2021.", "Revenue grew in 2021."),
        ("A man is playing a guitar on stage.", "A woman is playing a guitar."),
        ("Bags over 23 kg incur a fee of USD 75.", "Heavy bags cost extra."),
        ("The bridge was completed in 1932 after six years.", "The bridge opened in 1952."),
    ]
    model = CrossEncoder(model_dir())
    model.load_state_dict(state)
    model.eval()
    onnx_logits = ClaimVerifier(path, expected_sha256=None, temperature=1.0).logits(pairs)
    tok = load_tokenizer()
    enc = encode(tok, [Pair(p, c, frozenset(), "check", "check") for p, c in pairs])
    with torch.no_grad():
        torch_logits = model(**collate(enc, torch.device("cpu"))).numpy()
    agree = float((torch_logits.argmax(1) == onnx_logits.argmax(1)).mean())
    return agree, float(np.abs(torch_logits - onnx_logits).max())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--onnx", default=str(INSTALL_DIR / MODEL_FILE))
    ap.add_argument("--out", default="build/shipped/best.pt")
    args = ap.parse_args()
    state = state_dict_from_onnx(Path(args.onnx))
    agree, diff = check(state, Path(args.onnx))
    print(f"rebuilt from {args.onnx}: argmax agreement {agree:.3f}, max logit diff {diff:.3f}")
    if agree < 0.75:
        raise SystemExit("the rebuilt model does not reproduce the ONNX file")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
