"""Production settings: the base settings plus transport security. `manage.py check --deploy` is clean."""

from django.core.exceptions import ImproperlyConfigured

from config.settings import *  # noqa: F403
from config.settings import env

DEBUG = False
SECRET_KEY = env.str("SECRET_KEY")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("fray-embedded"):
    raise ImproperlyConfigured("SECRET_KEY must be set to a random value of at least 50 characters.")

# Served behind the proxy (config/haproxy.cfg), which terminates TLS and sets X-Forwarded-Proto, replacing any the
# client sent; daphne --proxy-headers takes the client address from its X-Forwarded-For the same way.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
# Cookies only over HTTPS, out of reach of page scripts (nothing reads them: the CSRF token travels in the
# page, base.html's hx-headers), and not sent on cross-site subrequests or POSTs (tests/test_csp.py).
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# The base settings' Content-Security-Policy (SECURE_CSP, inherited above), and on an HTTPS-only site any
# stray http:// subresource is upgraded rather than loaded in the clear.
SECURE_CSP = {**SECURE_CSP, "upgrade-insecure-requests": SECURE_SSL_REDIRECT}  # noqa: F405
