"""NliJudge against tiny randomly initialised BERT NLI models built inside the tests."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.base import JudgeError, TraceJudgement
from groundwatch.judges.checked import ValueCheckedJudge
from groundwatch.judges.factory import build_judge
from groundwatch.judges.remote.nli import NliJudge, NliLabels, read_nli_labels
from groundwatch.sections.judging import JudgeSettings
from tests.builders import build_rag_trace

pytest.importorskip("torch")
pytest.importorskip("transformers")

WORDS = [
    "the",
    "a",
    "an",
    "is",
    "was",
    "fee",
    "plan",
    "pro",
    "costs",
    "cost",
    "renewal",
    "discount",
    "applies",
    "from",
    "sky",
    "blue",
    "green",
    "10",
    "12",
    "dollars",
    "month",
    "per",
    "paris",
    "capital",
    "of",
    "france",
    "berlin",
    "germany",
    "it",
    "includes",
    "sso",
    "support",
]

ModelFactory = Callable[..., Path]


def _save_model(
    path: Path, id2label: dict[int, str], forced: int | None = None, seed: int = 0
) -> Path:
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 2), ("[SEP]", 3)],
    )
    PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
    ).save_pretrained(str(path))
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    torch.manual_seed(seed)
    model = BertForSequenceClassification(config)
    if forced is not None:
        # Make one output index win for every input: the verdict then depends only on what
        # id2label says that index means.
        with torch.no_grad():
            model.classifier.weight.zero_()
            bias = torch.zeros(len(id2label))
            bias[forced] = 5.0
            model.classifier.bias.copy_(bias)
    model.save_pretrained(str(path))
    return path


@pytest.fixture(scope="module")
def random_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    return _save_model(tmp_path_factory.mktemp("nli-random"), labels, seed=1)


def _trace(trace_id: str = "t1", **kw: object) -> RagTrace:
    data: dict[str, object] = {
        "question": "How much does the pro plan cost?",
        "contexts": [
            {"text": "The pro plan costs 12 dollars per month. It includes SSO.", "id": "p1"},
            {"text": "The sky is blue. Paris is the capital of France.", "id": "p2"},
        ],
        "answer": "The pro plan costs 10 dollars per month. The pro plan includes SSO.",
    }
    data.update(kw)
    return build_rag_trace(trace_id, attributes={}, **data)


def _sentences(text: str) -> list[str]:
    return [s.strip() + "." for s in text.split(".") if s.strip()]


def _judgement(result: TraceJudgement | JudgeError) -> TraceJudgement:
    assert isinstance(result, TraceJudgement), result
    return result


def _check_valid(j: TraceJudgement) -> None:
    for claim in j.claims:
        assert claim.verdict in {"supported", "contradicted", "not_found"}
        assert math.isfinite(claim.score)
        assert 0.0 <= claim.score <= 1.0
    for rel in j.context_relevance:
        assert math.isfinite(rel)
        assert 0.0 <= rel <= 1.0
    if j.answer_relevance is not None:
        assert 0.0 <= j.answer_relevance <= 1.0


@pytest.mark.parametrize(
    ("id2label", "expected"),
    [
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, NliLabels(0, 2, 1)),
        ({0: "CONTRADICTION", 1: "Neutral", 2: "ENTAILMENT"}, NliLabels(2, 0, 1)),
        ({"1": "Entailment", "0": "not_entailment"}, NliLabels(1, None, 0)),
    ],
)
def test_read_nli_labels_any_order_and_casing(
    id2label: dict[object, str], expected: NliLabels
) -> None:
    assert read_nli_labels(id2label) == expected


@pytest.mark.parametrize(
    "id2label", [{0: "LABEL_0", 1: "LABEL_1"}, {0: "neutral", 1: "contradiction"}, {}]
)
def test_read_nli_labels_rejects_non_nli_models(id2label: dict[object, str]) -> None:
    with pytest.raises(ValueError):
        read_nli_labels(id2label)


@pytest.mark.parametrize(
    ("id2label", "verdict"),
    [
        ({0: "contradiction", 1: "ENTAILMENT", 2: "neutral"}, "supported"),
        ({0: "Entailment", 1: "Contradiction", 2: "Neutral"}, "contradicted"),
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, "not_found"),
    ],
)
def test_verdict_follows_the_configured_label_order(
    tmp_path: Path, id2label: dict[int, str], verdict: str
) -> None:
    model_dir = _save_model(tmp_path, id2label, forced=1)
    judge = NliJudge(model_dir, claim_extractor=lambda q, a: [a], sentence_splitter=_sentences)
    judge.load()
    j = _judgement(judge.judge_batch([_trace(answer="The pro plan costs 10 dollars.")])[0])
    assert [c.verdict for c in j.claims] == [verdict]
    claim = j.claims[0]
    if verdict == "not_found":
        assert claim.evidence is None
    else:
        assert claim.score > 0.9
        assert claim.evidence is not None
        assert claim.evidence.context_index == 0
        assert claim.evidence.context_id == "p1"
    judge.close()


def test_batches_across_traces_and_results_do_not_depend_on_batch_size(
    random_model: Path,
) -> None:
    traces = [_trace(f"t{i}") for i in range(3)]
    small = NliJudge(random_model, batch_size=2, top_k=2, sentence_splitter=_sentences)
    large = NliJudge(random_model, batch_size=64, top_k=2, sentence_splitter=_sentences)
    small.load()
    large.load()
    a = small.judge_batch(traces)
    b = large.judge_batch(traces)
    assert small.pairs_scored == large.pairs_scored > 0
    assert small.batches_run == math.ceil(small.pairs_scored / 2)
    assert large.batches_run == 1
    for ra, rb in zip(a, b, strict=True):
        ja, jb = _judgement(ra), _judgement(rb)
        _check_valid(ja)
        assert [c.verdict for c in ja.claims] == [c.verdict for c in jb.claims]
        for ca, cb in zip(ja.claims, jb.claims, strict=True):
            assert ca.score == pytest.approx(cb.score, abs=1e-4)


def test_records_are_scored_and_never_nan(random_model: Path) -> None:
    judge = NliJudge(random_model)
    judge.load()
    assert judge.ready()
    traces = [
        _trace("full"),
        _trace("no-contexts", contexts=[]),
        _trace("no-answer", answer=None),
        _trace("refusal", answer="I'm sorry, but the documents do not mention the price."),
    ]
    records = Evaluator(judge).evaluate_batch(traces)
    assert [r.status for r in records] == ["scored"] * 4
    full, no_ctx, no_answer, refusal = records
    assert full.claims
    assert full.faithfulness is not None
    assert 0.0 <= full.faithfulness <= 1.0
    assert [c.verdict for c in no_ctx.claims] == ["not_found"] * len(no_ctx.claims)
    assert no_answer.claims == []
    assert no_answer.faithfulness_null_reason == "no_answer"
    assert refusal.refusal is True
    for record in records:
        assert record.metric_version == judge.version
        dumped = record.model_dump_json()
        assert "NaN" not in dumped


def test_thread_safe(random_model: Path) -> None:
    judge = NliJudge(random_model, batch_size=3)
    judge.load()
    expected = judge.judge_batch([_trace()])
    results: list[object] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(judge.judge_batch([_trace()]))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(r == expected for r in results)


class _HashEmbedder:
    """Deterministic bag-of-words vectors: enough to exercise the embedder code path."""

    name = "hash-bow"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, sum(map(ord, word.strip(".,?"))) % 64] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        result: npt.NDArray[np.float32] = out / np.maximum(norms, 1e-9)
        return result

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]


def test_embedder_drives_alignment_and_relevance(random_model: Path) -> None:
    judge = NliJudge(random_model, embedder=_HashEmbedder(), top_k=1)
    judge.load()
    j = _judgement(judge.judge_batch([_trace()])[0])
    _check_valid(j)
    assert j.context_relevance[0] > j.context_relevance[1]
    assert j.context_tokens == sum(len(t.split()) for t in _trace().context_texts())
    assert "emb:hash-bow" in judge.version


def test_version_names_model_and_thresholds(random_model: Path) -> None:
    judge = NliJudge(random_model, relevance_threshold=0.4, contradiction_threshold=0.7, top_k=2)
    assert judge.backend == "nli"
    assert judge.version == f"nli/{random_model.name}/k2/con0.7/rel0.4@lex/n1"


def test_load_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(JudgeError, match=r"no config\.json") as missing:
        NliJudge(tmp_path / "nowhere").load()
    assert missing.value.reason == "judge_unavailable"
    not_nli = _save_model(tmp_path / "sentiment", {0: "negative", 1: "positive"})
    with pytest.raises(JudgeError, match="unknown NLI label"):
        NliJudge(not_nli).load()
    judge = NliJudge(tmp_path / "nowhere")
    assert not judge.ready()
    with pytest.raises(JudgeError):
        judge.judge_batch([_trace()])


def test_factory_builds_nli(random_model: Path) -> None:
    judge = build_judge(JudgeSettings(backend="nli", nli_model_dir=str(random_model)))
    assert isinstance(judge, ValueCheckedJudge)  # every backend's values are checked
    assert isinstance(judge.inner, NliJudge)
    assert judge.backend == "nli"
    with pytest.raises(ValueError, match="NLI_MODEL_DIR"):
        build_judge(JudgeSettings(backend="nli"))


def test_factory_passes_the_embedder(random_model: Path) -> None:
    embedder = _HashEmbedder()
    nli = build_judge(
        JudgeSettings(backend="nli", nli_model_dir=str(random_model)), embedder=embedder
    )
    assert "emb:hash-bow" in nli.version
    embedded = build_judge(
        JudgeSettings(backend="embedded", relevance_threshold=0.5), embedder=embedder
    )
    assert embedded.backend == "embedded"
    assert "hash-bow" in embedded.version
