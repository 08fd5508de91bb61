"""A frozen, steerable clock for tests: everything that asks django.utils.timezone.now() sees it.

def test_x(clock):          # from tests.clock import clock
    clock.advance(hours=1)
"""

from datetime import UTC, datetime, timedelta
from unittest.mock import patch

import pytest

# A winter Friday: Europe/Paris is UTC+1, so 19:00 UTC is 20:00 there.
EPOCH = datetime(2026, 1, 9, 12, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set(self, when: datetime) -> datetime:
        self.now = when
        return when


@pytest.fixture
def clock():
    c = Clock(EPOCH)
    with patch("django.utils.timezone.now", new=c):
        yield c
