"""Websockets only from this site's own pages: the whole Origin (scheme, host and port) is checked.

Channels' AllowedHostsOriginValidator compares the host alone, so a page served on another port of the same host
could open the table with the visitor's cookies. Here a socket is let through when its Origin is the socket's
own origin (a ws:// socket's page is http://, a wss:// socket's https://, behind a proxy as Django tells it by
SECURE_PROXY_SSL_HEADER) on a Host in ALLOWED_HOSTS, or is one of CSRF_TRUSTED_ORIGINS: what Django's CSRF
check accepts from a form. Anything else, a missing Origin too, is closed with 4403 before the session is read.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from django.utils.http import is_same_domain

REFUSED = 4403


class SameOriginValidator:
    def __init__(self, application):
        self.application = application
        self.refuse = Refuse.as_asgi()

    async def __call__(self, scope, receive, send):
        if origin_allowed(scope):
            return await self.application(scope, receive, send)
        return await self.refuse(scope, receive, send)


class Refuse(AsyncWebsocketConsumer):
    async def connect(self):
        await self.close(code=REFUSED)


def origin_allowed(scope) -> bool:
    origin, host = _header(scope, b"origin"), _header(scope, b"host")
    if not origin or not host:
        return False
    domain, _ = split_domain_port(host)
    if domain and validate_host(domain, _allowed_hosts()):
        if origin == f"{'https' if _secure(scope) else 'http'}://{host}":
            return True
    return _trusted(origin)


def _header(scope, name: bytes) -> str | None:
    """The header's value when it is sent exactly once."""
    values = [value for key, value in scope.get("headers", []) if key == name]
    return values[0].decode("latin1") if len(values) == 1 else None


def _allowed_hosts() -> list[str]:
    if settings.DEBUG and not settings.ALLOWED_HOSTS:  # as Django's HttpRequest.get_host()
        return [".localhost", "127.0.0.1", "[::1]"]
    return settings.ALLOWED_HOSTS


def _secure(scope) -> bool:
    """As Django's HttpRequest.is_secure(): the proxy's header when SECURE_PROXY_SSL_HEADER names one and it was
    sent, else whether the socket itself is wss."""
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        value = _header(scope, meta_name.removeprefix("HTTP_").replace("_", "-").lower().encode())
        if value is not None:
            return value.split(",", 1)[0].strip() == secure_value
    return scope.get("scheme") == "wss"


def _trusted(origin: str) -> bool:
    """As Django's CSRF origin check: an exact entry of CSRF_TRUSTED_ORIGINS, or a subdomain of a `*.` one."""
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    try:
        parsed = urlsplit(origin)
    except ValueError:
        return False
    return any(
        is_same_domain(parsed.netloc, trusted.netloc.lstrip("*"))
        for trusted in map(urlsplit, settings.CSRF_TRUSTED_ORIGINS)
        if "*" in trusted.netloc and trusted.scheme == parsed.scheme
    )
