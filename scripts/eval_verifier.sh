#!/bin/bash
# Measures the installed verifier judge on every labelled set the model card quotes.
# usage: scripts/eval_verifier.sh OUTDIR [DATA]   (DATA: the shared data folder, ../shared/data)
# Writes one text file per set into OUTDIR: raw_* (the verifier alone, 600 pairs), judge_* (the
# verifier judge: claim-labelled traces, HaluEval QA, 300 dev pairs each). Run from anywhere.
set -eu
cd "$(dirname "$0")/.."
OUT=$(realpath -m "$1")
DATA=$(realpath -m "${2:-../shared/data}")
DEV="$DATA/verifier/dev"
PY=".venv/bin/python"
mkdir -p "$OUT"
for f in sick climate_fever summedits_podcast_sales_email anli_dev; do
  $PY benchmarks/pairs.py "$DEV/$f.jsonl" --limit 600 --raw > "$OUT/raw_$f.txt" 2>&1
done
for f in tests/heldout2_cases.jsonl tests/paraphrase_cases.jsonl tests/hard_cases.jsonl \
  tests/heldout_cases.jsonl tests/refusal_cases.jsonl "$DATA/halueval_qa_dev.jsonl"; do
  $PY benchmarks/accuracy.py "$f" --backend verifier > "$OUT/judge_$(basename "$f" .jsonl).txt" 2>&1
done
for f in sick climate_fever summedits_podcast_sales_email anli_dev; do
  $PY benchmarks/pairs.py "$DEV/$f.jsonl" --limit 300 --backend verifier > "$OUT/judge_$f.txt" 2>&1
done
grep -H -E "^3-way accuracy|^AUROC of the support|^balanced accuracy|^claim-verdict accuracy|^contradicted precision" "$OUT"/judge_*.txt
