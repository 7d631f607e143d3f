"""The absence checks of the security tests look for values that cannot occur by chance."""

from __future__ import annotations

import pytest

from tests.needles import assert_absent, distinctive

# A real exposition line: the old "secret" 4242 of test_page_leaks_no_trace_content_without_token
# is in it, although no trace text is.
METRICS = 'groundwatch_traces_received_created{source="http"} 1.7963229381474242e+09\n'


@pytest.mark.parametrize(
    "needle", ["4242", "7946", "40123", "6f1d0c2b9e8a47d3", "2026-12-04T02:24"]
)
def test_short_numbers_hex_ids_and_timestamps_are_refused(needle: str) -> None:
    assert not distinctive(needle)
    with pytest.raises(AssertionError, match="by chance"):
        assert_absent(needle, "")


def test_the_old_secret_occurs_in_metrics_by_chance() -> None:
    assert "4242" in METRICS  # why the old check failed about once in eight runs
    with pytest.raises(AssertionError):
        assert_absent("4242", METRICS)


@pytest.mark.parametrize("needle", ["qzvkrwmxtjplfbnh", "Zanzibar", "7946 0958", "jane.doe@x.io"])
def test_letters_and_spaced_values_are_distinctive(needle: str) -> None:
    assert distinctive(needle)
    assert_absent(needle, METRICS)
