"""How often kept copies (the typo vocabulary, the plan statistics) are re-read: domain.pacing."""

from __future__ import annotations

from shopagent.domain.pacing import ReadPace


def test_a_quick_read_keeps_its_refresh_interval():
    # A catalog of thousands: the vocabulary reads in 20 ms; the background re-reads it at every tick,
    # and a search itself only after the 60 s it may get old.
    pace = ReadPace(60.0, took=0.02)
    assert pace.due(0.5) and not pace.due(0.3)
    assert not pace.stale(59.0) and pace.stale(60.0)


def test_a_slow_read_is_repeated_no_more_than_a_twentieth_of_the_time():
    # A million products: the vocabulary takes 6 s to read. Re-read every 30 s it kept a fifth of a core
    # busy; now every 2 minutes at the most in the background, and a search reads it itself only at 4.
    pace = ReadPace(60.0, took=6.0)
    assert not pace.due(119.0) and pace.due(120.0)
    assert not pace.stale(200.0) and pace.stale(240.0)
    never_read = ReadPace(60.0)
    assert never_read.due(0.0) and not never_read.stale(1.0)
