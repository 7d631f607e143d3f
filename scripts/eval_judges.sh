#!/bin/bash
# Both judges (rules r5 = backend embedded, the installed verifier = backend verifier) on every
# blind set issue 32 names, plus the dev pair sets (verifier alone and judged).
# usage: scripts/eval_judges.sh OUTDIR [DATA]   (DATA: the shared data folder, ../shared/data)
#        BACKENDS="verifier" scripts/eval_judges.sh OUTDIR    (one judge only)
# Writes one text file per set and judge into OUTDIR and prints the headline lines.
set -eu
cd "$(dirname "$0")/.."
OUT=$(realpath -m "$1")
DATA=$(realpath -m "${2:-../shared/data}")
DEV="$DATA/verifier/dev"
PY="${PYTHON:-.venv/bin/python}"
mkdir -p "$OUT"
# The written pairs' held-out passages (15 % by passage hash, never trained on), whole passages.
PYTHONPATH=. $PY - "$OUT/written_heldout.jsonl" <<'PYEOF'
import json, sys
from pathlib import Path
from training.data import WRITTEN_DIR, WRITTEN_HELD_OUT, is_held_out
rows = []
for path in sorted(WRITTEN_DIR.glob("*.jsonl")):
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if is_held_out(f"written:{row['doc']}", WRITTEN_HELD_OUT):
                rows.append(row)
Path(sys.argv[1]).write_text("".join(json.dumps(r) + "\n" for r in rows))
print(f"written held-out: {len(rows)} pairs, {len({r['doc'] for r in rows})} passages")
PYEOF
for backend in ${BACKENDS:-verifier embedded}; do
  for f in tests/heldout2_cases.jsonl tests/heldout3_cases.jsonl tests/heldout4_cases.jsonl \
    tests/paraphrase_cases.jsonl tests/refusal_cases.jsonl tests/heldout_cases.jsonl \
    tests/hard_cases.jsonl "$DATA/halueval_qa_dev.jsonl"; do
    $PY benchmarks/accuracy.py "$f" --backend "$backend" > "$OUT/${backend}_$(basename "$f" .jsonl).txt" 2>&1
  done
  $PY benchmarks/pairs.py "$OUT/written_heldout.jsonl" --backend "$backend" > "$OUT/${backend}_written_heldout.txt" 2>&1
  for f in tests/units/*.jsonl; do  # values in other units (devices_energy: development)
    $PY benchmarks/pairs.py "$f" --backend "$backend" > "$OUT/${backend}_units_$(basename "$f" .jsonl).txt" 2>&1
  done
  for f in sick climate_fever summedits_podcast_sales_email; do  # the dev sets, judged
    $PY benchmarks/pairs.py "$DEV/$f.jsonl" --limit 300 --backend "$backend" > "$OUT/${backend}_dev_$f.txt" 2>&1
  done
done
for f in sick climate_fever summedits_podcast_sales_email anli_dev; do
  $PY benchmarks/pairs.py "$DEV/$f.jsonl" --limit 600 --raw > "$OUT/raw_$f.txt" 2>&1
done
grep -H -E "^3-way accuracy|^AUROC of the support|^balanced accuracy|^claim-verdict accuracy|^contradicted precision|^refusal" "$OUT"/*.txt
