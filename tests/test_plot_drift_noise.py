"""scripts/plot_drift_noise.py reads the drift-noise benchmark's printed tables and charts them."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts import plot_drift_noise as pdn

OUTPUT = """\
30 slices, 2 test days after 2 warm-up days, 100 traces, 98 drift tests per evaluation, 5 s

| rule | false alarms per slice-day (stationary slices) | slice-days |
|---|---|---|
| groundwatch | 0.000 (0/44) | 44 |
| PSI > 0.25 | 0.795 (35/44) | 44 |
| PSI > 0.1 | 0.909 (40/44) | 44 |
| Evidently (K-S / Wasserstein) | 0.886 (39/44) | 44 |

| shift | rule | detected within 24 h | median delay (h) | slices (traces/h) |
|---|---|---|---|---|
| faithfulness -0.1 | groundwatch | 1/4 | 9.5 | 4, 12, 40, 300 |
| faithfulness -0.1 | PSI > 0.25 | 4/4 | 0.2 | 4, 12, 40, 300 |
| retrieval -0.05 | groundwatch | 0/4 | - | 5, 13, 41, 310 |
| retrieval -0.05 | PSI > 0.25 | 3/4 | 0.5 | 5, 13, 41, 310 |
"""


def test_parse_reads_both_tables() -> None:
    res = pdn.parse(OUTPUT)
    assert res.header.startswith("30 slices")
    assert [(f.rule, f.rate, f.alarms, f.slice_days) for f in res.false_alarms] == [
        ("groundwatch", 0.0, 0, 44),
        ("PSI > 0.25", 0.795, 35, 44),
        ("PSI > 0.1", 0.909, 40, 44),
        ("Evidently (K-S / Wasserstein)", 0.886, 39, 44),
    ]
    assert res.detections[0] == pdn.Detection("faithfulness -0.1", "groundwatch", 1, 4, 9.5)
    assert res.detections[2].median_delay_h is None
    assert res.detections[2].detected == 0


def test_parse_rejects_other_text() -> None:
    with pytest.raises(ValueError, match="no false-alarm table"):
        pdn.parse("nothing here\n")
    with pytest.raises(ValueError, match="unexpected false-alarm row"):
        pdn.parse("| groundwatch | zero | 44 |\n")


def test_chart_is_written(tmp_path: Path) -> None:
    out = pdn.draw(pdn.parse(OUTPUT), tmp_path / "chart.png")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert 10_000 < len(data) < 300_000
    # without the power table (--no-shift) only the noise panel is drawn
    no_shift = OUTPUT.split("| shift |", maxsplit=1)[0]
    assert not pdn.parse(no_shift).detections
    assert pdn.draw(pdn.parse(no_shift), tmp_path / "noise.png").stat().st_size > 5_000
