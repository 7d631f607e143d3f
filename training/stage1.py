"""Verifier v2, stage 1: natural entailment from human-written sentence pairs, resumable.

Usage::

    python -m training.stage1 --out build/stage1 --seed 13            # starts or resumes
    python -m training.stage1 --out build/stage1 --epochs 2 --threads 2
    python -m training.stage1 --out /tmp/s1 --limit 2000 --epochs 1   # a quick try

From the all-MiniLM-L6-v2 base weights: ``train/natural_nli.jsonl`` (three classes),
``train/natural_binary.jsonl`` and ``train/fever_nli.jsonl`` (two classes; ``unsupported``
allows contradicted or not found, the set-valued loss of :mod:`training.train`). QNLI rows are
turned round so the passage sentence is the premise and the question is the claim (the shape a
relevance check has at inference: passage, question; the premise is what gets truncated).

5 % of every source is held out by premise group (``source:premise``; SNLI reuses one premise
for several hypotheses, so a split by row would leak). The held-out figures and a SICK sample
(``dev/``, never trained on) are printed every ``--eval-every`` steps; the best held-out
checkpoint is kept as ``best.pt`` (the same state-dict format as :mod:`training.train`, so
``training.export`` reads it).

Resumable: every ``--save-every`` steps ``resume.pt`` holds the model, optimiser, schedule,
step and RNG states (written to a temporary file, then renamed, so a kill never leaves half a
checkpoint). The batch order is a function of the seed alone, so a resumed run continues with
exactly the batch it would have taken next. Running the same command again resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import torch

from training.data import LABELS, NATURAL_HELD_OUT, TARGETS, Pair, load_natural, split_by_group
from training.model import (
    CrossEncoder,
    collate,
    encode,
    held_report,
    load_tokenizer,
    model_dir,
    predict,
    set_loss,
    target_mask,
)


def load_dev(root: Path, name: str, limit: int, seed: int) -> list[Pair]:
    rows = [json.loads(x) for x in (root / "dev" / f"{name}.jsonl").read_text().splitlines() if x]
    random.Random(seed).shuffle(rows)
    return [
        Pair(str(r["premise"]), str(r["hypothesis"]), TARGETS[str(r["label"])], name, str(r["id"]))
        for r in rows[:limit]
    ]


def plan_batches(train: list[Pair], batch: int, epochs: int, seed: int) -> list[list[int]]:
    """Length-bucketed batches for every epoch, fixed by the seed: chunks of 50 batches sorted
    by length (dynamic padding stays short), the batches of an epoch shuffled."""
    rng = random.Random(seed)
    out: list[list[int]] = []
    for _ in range(epochs):
        order = list(range(len(train)))
        rng.shuffle(order)
        chunk = batch * 50
        epoch: list[list[int]] = []
        for i in range(0, len(order), chunk):
            part = sorted(
                order[i : i + chunk], key=lambda j: len(train[j].premise) + len(train[j].claim)
            )
            epoch += [part[k : k + batch] for k in range(0, len(part), batch)]
        rng.shuffle(epoch)
        out += epoch
    return out


def sick_report(probs: np.ndarray, pairs: list[Pair]) -> dict[str, float]:
    gold = [min(p.target) for p in pairs]
    pred = [int(np.argmax(x)) for x in probs]
    per_class = []
    for c in range(3):
        idx = [i for i, g in enumerate(gold) if g == c]
        if idx:
            per_class.append(float(np.mean([pred[i] == c for i in idx])))
    said = [i for i, y in enumerate(pred) if y == 1]
    return {
        "sick/acc": float(np.mean([a == b for a, b in zip(gold, pred, strict=True)])),
        "sick/bal_acc": float(np.mean(per_class)),
        "sick/contra_precision": float(np.mean([gold[i] == 1 for i in said])) if said else 0.0,
    }


def save_atomic(obj: Any, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="../shared/data/verifier")
    ap.add_argument("--out", default="build/stage1")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--eval-pairs", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=0, help="rows per file (a quick try)")
    ap.add_argument("--stop-step", type=int, default=0, help="stop after this step (0 = all)")
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu":
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    root = Path(args.data)

    train, held = split_by_group(load_natural(root, args.limit), NATURAL_HELD_OUT)
    tc = Counter((p.source, "/".join(LABELS[c] for c in sorted(p.target))) for p in train)
    hc = Counter((p.source, "/".join(LABELS[c] for c in sorted(p.target))) for p in held)
    print("data (train / held-out):", flush=True)
    for key in sorted(tc):
        print(f"  {key[0]:<20} {key[1]:<24} {tc[key]:>6} / {hc.get(key, 0):>5}", flush=True)
    eval_set = random.Random(args.seed).sample(held, min(args.eval_pairs, len(held)))
    sick = load_dev(root, "sick", 1000, args.seed)

    tok = load_tokenizer()
    model = CrossEncoder(model_dir()).to(device)
    model.bert.embeddings.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    batches = plan_batches(train, args.batch, args.epochs, args.seed)
    steps = len(batches)
    warm = max(1, int(steps * args.warmup))

    def lr_at(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        return max(0.0, (steps - step) / max(1, steps - warm))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    start, best, history = 0, -1.0, []
    resume = out / "resume.pt"
    if resume.exists():
        state = torch.load(resume, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        start, best, history = state["step"], state["best"], state["history"]
        torch.set_rng_state(state["torch_rng"])
        print(f"resumed at step {start}/{steps} (best {best:.4f})", flush=True)
    print(f"{len(train)} training pairs, {args.epochs} epochs, {steps} steps", flush=True)

    def snapshot(step: int) -> None:
        save_atomic(
            {
                "model": model.state_dict(),
                "opt": opt.state_dict(),
                "sched": sched.state_dict(),
                "step": step,
                "best": best,
                "history": history,
                "torch_rng": torch.get_rng_state(),
                "args": vars(args),
            },
            resume,
        )

    model.train()
    began = time.monotonic()
    running, seen = 0.0, 0
    for step in range(start, steps):
        batch = [train[j] for j in batches[step]]
        logits = model(**collate(encode(tok, batch), device))
        loss = set_loss(logits, target_mask(batch, device))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        running += float(loss.detach())
        seen += 1
        done = step + 1
        last = done in (steps, args.stop_step)
        if done % 50 == 0:
            minutes = (time.monotonic() - began) / 60
            rate = (done - start) * args.batch / max(1e-9, minutes * 60)
            print(
                f"step {done}/{steps} epoch {done * args.epochs / steps:.2f} loss "
                f"{running / seen:.4f} lr {sched.get_last_lr()[0]:.2e} {rate:.1f} pairs/s "
                f"{minutes:.1f} min",
                flush=True,
            )
            running, seen = 0.0, 0
        if done % args.eval_every == 0 or last:
            report = held_report(eval_set, predict(model, tok, eval_set, device))
            report.update(sick_report(predict(model, tok, sick, device), sick))
            history.append({"step": done, **{k: round(v, 4) for k, v in report.items()}})
            print("eval", json.dumps(history[-1]), flush=True)
            if report["score"] > best:
                best = report["score"]
                save_atomic(model.state_dict(), out / "best.pt")
                print(f"  best held-out so far ({best:.4f}), saved best.pt", flush=True)
            (out / "history.json").write_text(json.dumps(history, indent=1))
        if done % args.save_every == 0 or last:
            snapshot(done)
        if last:
            break
    print(f"stage 1 at step {min(steps, args.stop_step or steps)}/{steps}, best {best:.4f}")


if __name__ == "__main__":
    main()
