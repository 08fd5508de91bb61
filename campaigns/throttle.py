"""Throttles on Django's cache: too many tries counted against any one key (a user, a client address, an e-mail
address) within a window refuse every further try until that window ends.

The limits live in settings.FRAY_THROTTLES. The cache is Redis when REDIS_URL is set, so every web process shares
one count; the embedded default runs one web process and keeps the counts in its memory (config/settings.py).
A cache that cannot be reached counts nothing and refuses nothing (logged): a Redis outage must not turn every
join or password reset into a server error.
"""

import hashlib
import logging
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from redis.exceptions import RedisError

log = logging.getLogger(__name__)
CACHE_DOWN = (RedisError, OSError)


def client_address(request: HttpRequest) -> str | None:
    """The client's address: REMOTE_ADDR alone, as daphne sets it (from the proxy's forwarded header when it runs
    behind the proxy). A header the client sends itself (X-Forwarded-For, X-Real-IP) could name anyone.
    None without one (django-axes stores it in an IP address column, which takes no placeholder word)."""
    return request.META.get("REMOTE_ADDR") or None


def too_many(what: str, minutes: int) -> str:
    return f"Too many {what}; try again in {minutes} minute{'' if minutes == 1 else 's'}."


class Throttle:
    """One throttle, named after its entry in settings.FRAY_THROTTLES: {"minutes": window, kind: limit, ...}."""

    def __init__(self, name: str):
        self.name = name

    def _config(self) -> tuple[int, dict[str, int]]:
        config = dict(settings.FRAY_THROTTLES[self.name])
        return config.pop("minutes") * 60, config

    def _key(self, kind: str, value: object) -> str:
        # Hashed: an e-mail address or an IPv6 address would not be a safe cache key as it stands.
        digest = hashlib.sha256(str(value).encode()).hexdigest()[:32]
        return f"throttle:{self.name}:{kind}:{digest}"

    def minutes_left(self, **idents: object) -> int:
        """0 when none of the keys has reached its limit, else the whole minutes until the last of them is free."""
        window, limits = self._config()
        keys = {self._key(kind, value): limits[kind] for kind, value in idents.items()}
        try:
            stored = cache.get_many([*keys, *(key + ":ends" for key in keys)])
        except CACHE_DOWN:
            log.warning("throttle %s: the cache is unreachable; not throttling", self.name, exc_info=True)
            return 0
        now = time.time()
        wait = 0.0
        for key, limit in keys.items():
            if stored.get(key, 0) >= limit:
                wait = max(wait, stored.get(key + ":ends", now + window) - now)
        return math.ceil(wait / 60) if wait > 0 else 0

    def hit(self, **idents: object) -> None:
        """Count one try against each key. A key's window starts at its first try and ends `minutes` later."""
        window, _ = self._config()
        try:
            for kind, value in idents.items():
                self._count(self._key(kind, value), window)
        except CACHE_DOWN:
            log.warning("throttle %s: the cache is unreachable; this try is not counted", self.name, exc_info=True)

    @staticmethod
    def _count(key: str, window: int) -> None:
        if cache.add(key, 1, window):
            cache.set(key + ":ends", time.time() + window, window)
            return
        try:
            cache.incr(key)
        except ValueError:  # the window ended between add() and incr(): this try opens the next one
            cache.set(key, 1, window)
            cache.set(key + ":ends", time.time() + window, window)


JOIN_CODES = Throttle("join_code")
PASSWORD_RESETS = Throttle("password_reset")
