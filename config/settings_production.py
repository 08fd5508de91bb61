"""Production settings: the base settings plus transport security. `manage.py check --deploy` is clean."""

from django.core.exceptions import ImproperlyConfigured

from config.settings import *  # noqa: F403
from config.settings import env

DEBUG = False
SECRET_KEY = env.str("SECRET_KEY")
if len(SECRET_KEY) < 50 or SECRET_KEY.startswith("fray-embedded"):
    raise ImproperlyConfigured("SECRET_KEY must be set to a random value of at least 50 characters.")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
