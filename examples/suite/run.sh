#!/bin/sh
# The suite's worked example, offline: two configurations of the toy assistant, scored and
# compared with a gate. Writes into ${OUT:-/tmp/groundwatch-suite-example}; exits with the gate's code.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/groundwatch-suite-example}
GW=${GROUNDWATCH:-groundwatch}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
$GW suite check-evidence "$HERE/cases.jsonl" "$HERE/kb.jsonl"
for run in baseline candidate; do
  $PY "$HERE/toy_assistant.py" --config "$HERE/$run.json" -o "$OUT/traces-$run.jsonl"
  $GW suite run "$HERE/cases.jsonl" "$OUT/traces-$run.jsonl" -o "$OUT/run-$run.jsonl" \
    --config "$(cat "$HERE/$run.json")" --corpus "$HERE/kb.jsonl"
done
set +e
$GW suite compare "$OUT/run-baseline.jsonl" "$OUT/run-candidate.jsonl" \
  --metrics vital_nugget_recall,hit@3,false_refusal \
  --gate 'vital_nugget_recall,faithfulness@intent=billing' \
  --markdown "$OUT/report.md" --html "$OUT/report.html"
rc=$?
echo "reports: $OUT/report.md $OUT/report.html (gate exit code $rc)"
exit $rc
