"""Train the claim verifier: a MiniLM cross-encoder, (evidence window, claim) -> 3 classes.

Usage::

    python -m training.train --seed 13 --out build/verifier          # CPU or CUDA
    python -m training.train --max-minutes 5 --pairs 2000 --out /tmp/v   # a quick try

One command, one seed: builds the recipe's data (``training.recipes``: the training-eligible
sources, synthetic pairs, a held-out split of every source by document), prints the data mix,
trains the model of ``training.model`` with a set-valued loss (binary ``unsupported`` labels
allow both contradicted and not found), prints the loss curve and held-out figures every ``--eval-every`` steps, keeps the
best checkpoint and exports it (``training.export``) to int8 ONNX.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from training.data import LABELS, SUPPORTED, Pair
from training.model import (
    CrossEncoder,
    collate,
    encode,
    held_out_report,
    load_tokenizer,
    model_dir,
    predict,
    set_loss,
    target_mask,
)
from training.recipes import DEFAULT_MIX, add_written_args, build_data


def twin_loss(logits: torch.Tensor, batch: list[Pair], margin: float) -> torch.Tensor:
    """Ranking within a document: a supported claim's log P(supported) above that of an
    unsupported claim of the same document (same ``group``) by ``margin``, for every such twin
    in the batch (0 when there is none). It teaches what a near-topic wrong claim lacks, against
    its own right twin, instead of against other documents' claims."""
    logp_sup = torch.log_softmax(logits, dim=-1)[:, SUPPORTED]
    terms = []
    for i, a in enumerate(batch):
        if a.target != frozenset({SUPPORTED}):
            continue
        for j, b in enumerate(batch):
            if b.group == a.group and SUPPORTED not in b.target:
                terms.append(torch.nn.functional.softplus(margin - (logp_sup[i] - logp_sup[j])))
    if not terms:
        return logits.sum() * 0.0
    return torch.stack(terms).mean()


def grouped_batches(train: list[Pair], batch: int, rng: random.Random) -> list[list[int]]:
    """Batches that keep a document's pairs together (so twins meet in one batch): documents
    in shuffled order, chunks of about 50 batches sorted by premise length, then the batches
    shuffled."""
    by_group: dict[str, list[int]] = {}
    for i, p in enumerate(train):
        by_group.setdefault(p.group, []).append(i)
    groups = list(by_group.values())
    rng.shuffle(groups)
    out: list[list[int]] = []
    chunk: list[list[int]] = []
    size = 0
    for g in [*groups, []]:
        if g:
            chunk.append(g[:batch])  # a huge group (many claims of one page) is capped
            size += len(chunk[-1])
        if size >= batch * 50 or (not g and chunk):
            chunk.sort(key=lambda items: len(train[items[0]].premise))
            flat = [i for items in chunk for i in items]
            out += [flat[k : k + batch] for k in range(0, len(flat), batch)]
            chunk, size = [], 0
    rng.shuffle(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="../shared/data/verifier")
    ap.add_argument("--halueval-wheel", default="")
    ap.add_argument("--halueval-limit", type=int, default=5000)
    ap.add_argument("--restate-share", type=float, default=0.5)
    ap.add_argument("--held-out", type=float, default=0.06)
    ap.add_argument("--mix", default=DEFAULT_MIX, help="most training pairs per source")
    ap.add_argument("--pairs", type=int, default=10**9, help="at most this many pairs (one pass)")
    add_written_args(ap)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--warmup", type=float, default=0.06)
    ap.add_argument("--freeze-layers", type=int, default=1)
    ap.add_argument("--eval-every", type=int, default=400)
    ap.add_argument("--eval-pairs", type=int, default=1500)
    ap.add_argument("--max-minutes", type=float, default=90.0)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", default="build/verifier")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0 = torch default)")
    ap.add_argument("--resume", default="", help="start from these weights (a best.pt)")
    ap.add_argument("--order-seed", type=int, default=0, help="reshuffle pairs (resumed runs)")
    ap.add_argument("--stop-step", type=int, default=0, help="stop after this step (0 = all)")
    ap.add_argument(
        "--twin-weight", type=float, default=0.0, help="weight of the within-document ranking loss"
    )
    ap.add_argument("--twin-margin", type=float, default=1.0)
    ap.add_argument(
        "--anchor",
        type=float,
        default=0.0,
        help="L2 pull toward the starting weights (--resume), per parameter, summed",
    )
    args = ap.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cpu" and args.threads:
        # One thread per process is robust on a shared machine: with more, OpenMP threads
        # wait at every barrier for a preempted sibling (measured here: 10x slower under load).
        torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    train, held = build_data(args)
    print("data mix (train / held-out):", flush=True)
    tc = Counter((p.source, "/".join(LABELS[c] for c in sorted(p.target))) for p in train)
    hc = Counter((p.source, "/".join(LABELS[c] for c in sorted(p.target))) for p in held)
    for key in sorted(tc):
        print(f"  {key[0]:<24} {key[1]:<24} {tc[key]:>6} / {hc.get(key, 0):>5}", flush=True)
    rng = random.Random(args.seed)
    if args.order_seed:
        random.Random(args.order_seed).shuffle(train)
    train = train[: args.pairs]
    eval_set = rng.sample(held, min(args.eval_pairs, len(held)))
    print(f"training on {len(train)} pairs, held-out eval {len(eval_set)}", flush=True)

    tok = load_tokenizer()
    model = CrossEncoder(model_dir()).to(device)
    if args.resume:
        model.load_state_dict(torch.load(args.resume, map_location=device))
        print(f"resumed from {args.resume}", flush=True)
    model.bert.embeddings.requires_grad_(False)
    for layer in model.bert.encoder.layer[: args.freeze_layers]:
        layer.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    start_weights = [p.detach().clone() for p in params] if args.anchor else []
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = math.ceil(len(train) / args.batch)
    warm = max(1, int(steps * args.warmup))

    def lr_at(step: int) -> float:
        if step < warm:
            return (step + 1) / warm
        return max(0.0, (steps - step) / max(1, steps - warm))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    # length-bucketed batches: sort chunks of 50 batches by length, then shuffle the batches
    order = list(range(len(train)))
    chunk = args.batch * 50
    batches: list[list[int]] = []
    if args.twin_weight:
        batches = grouped_batches(train, args.batch, rng)
        steps = len(batches)
    else:
        for i in range(0, len(order), chunk):
            part = sorted(order[i : i + chunk], key=lambda j: len(train[j].premise))
            batches += [part[k : k + args.batch] for k in range(0, len(part), args.batch)]
        rng.shuffle(batches)

    started = time.monotonic()
    best = -1.0
    history = []
    running = 0.0
    seen = 0
    for step, batch_idx in enumerate(batches):
        batch = [train[j] for j in batch_idx]
        logits = model(**collate(encode(tok, batch), device))
        loss = set_loss(logits, target_mask(batch, device))
        if args.twin_weight:
            loss = loss + args.twin_weight * twin_loss(logits, batch, args.twin_margin)
        if args.anchor:
            drift = sum(((p - p0) ** 2).sum() for p, p0 in zip(params, start_weights, strict=True))
            loss = loss + args.anchor * drift
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        running += float(loss.detach())
        seen += 1
        elapsed = (time.monotonic() - started) / 60
        last = step == len(batches) - 1 or elapsed > args.max_minutes or step + 1 == args.stop_step
        if (step + 1) % 50 == 0:
            rate = (step + 1) * args.batch / (elapsed * 60)
            print(
                f"step {step + 1}/{steps} loss {running / seen:.4f} lr {sched.get_last_lr()[0]:.2e}"
                f" {rate:.1f} pairs/s {elapsed:.1f} min",
                flush=True,
            )
            running, seen = 0.0, 0
        if (step + 1) % args.eval_every == 0 or last:
            report = held_out_report(eval_set, predict(model, tok, eval_set, device))
            history.append({"step": step + 1, "minutes": round(elapsed, 1), **report})
            print("held-out", json.dumps({k: round(v, 4) for k, v in report.items()}), flush=True)
            if report["score"] > best:
                best = report["score"]
                torch.save(model.state_dict(), out / "best.pt")
                print(f"  best so far ({best:.4f}), saved", flush=True)
        if last:
            break
    (out / "history.json").write_text(json.dumps(history, indent=1))
    (out / "held_out_ids.json").write_text(
        json.dumps(sorted({p.group for p in held})[:100000], indent=0)
    )
    print(f"training done in {(time.monotonic() - started) / 60:.1f} min, best {best:.4f}")


if __name__ == "__main__":
    main()
