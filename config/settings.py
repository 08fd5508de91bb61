"""Fray settings.

Everything has an embedded default so a fresh clone runs with no services: SQLite, the in-memory
channel layer, and a Celery broker on the filesystem. The environment switches to real services:
DATABASE_URL (PostgreSQL; DB_POOL_SIZE), REDIS_URL (channel layer, Celery broker and results), EMAIL_URL, SECRET_KEY,
ALLOWED_HOSTS, DEBUG. Production hardening lives in config/settings_production.py.
"""

from pathlib import Path

import environ
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("FRAY_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="fray-embedded-development-key-not-for-production-use-0000")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "axes",
    "campaigns",
    "ships",
    "combat",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "campaigns.middleware.UserTimezoneMiddleware",
    # Last, as django-axes asks: it turns lockouts into a response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.db_url("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'fray.sqlite3'}"),
}
# Serialise writers instead of failing with "database is locked" when daphne and the worker overlap.
# Write-ahead log: readers (the sockets' snapshots) never wait for a writer, and a commit is one fsync of
# the log instead of a rollback journal's several; synchronous=FULL keeps every committed action on disk.
SQLITE_OPTIONS = {
    "timeout": 20,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES["default"].setdefault("OPTIONS", {}).update(SQLITE_OPTIONS)
else:
    # Under ASGI every request's database work runs on a thread of its own, so a persistent connection
    # (CONN_MAX_AGE) would never be used again, only left open until garbage collection. Django's own pool
    # (psycopg_pool) lends each request a connection and takes it back when the request ends.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # the pool checks an idle connection before lending it
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": env.int("DB_POOL_SIZE", default=20),
        "timeout": 20,
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "campaigns.User"

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Content-Security-Policy on every response: scripts, styles and connections only from Fray itself, no inline
# code anywhere (templates carry no inline <script>, on*= handler or style= attribute: tests/test_csp.py).
# connect-src 'self' covers the table's websocket to the same host (ws: from http, wss: from https; CSP3,
# checked in Chromium by tests/e2e/test_csp.py). htmx's own indicator CSS is off (base.html's htmx-config
# meta) and lives in fray.css. The QR code and charts are inline SVG with attributes and classes only.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "object-src": [CSP.NONE],
}

LOGIN_URL = "login"
PASSWORD_RESET_TIMEOUT = 24 * 60 * 60  # a reset link works once, for a day
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Failed-login rate limit (django-axes): 5 failures for one username from one address lock it for 15 minutes.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_USERNAME_CALLABLE = "campaigns.forms.axes_username"  # never longer than its column
# The client address is REMOTE_ADDR alone (daphne sets it, from the proxy's forwarded header behind the proxy): a
# X-Forwarded-For or X-Real-IP header sent straight to the app must not pin someone else's address on a failure.
AXES_CLIENT_IP_CALLABLE = "campaigns.throttle.client_address"

# Throttles on the cache (campaigns/throttle.py): at most this many tries per key within `minutes`.
FRAY_THROTTLES = {
    # Wrong join codes, per user and per client address (a table of players may share one address).
    "join_code": {"minutes": 15, "user": 10, "client": 30},
    # Password reset requests, per e-mail address asked for and per client address.
    "password_reset": {"minutes": 60, "email": 3, "client": 10},
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(VAR_DIR / "media")))

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "config.storage.MinifiedManifestStaticFilesStorage"},
}
WHITENOISE_KEEP_ONLY_HASHED_FILES = False

REDIS_URL = env.str("REDIS_URL", default="")

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Bytes a websocket may fall behind (written by the server, not yet taken by the client) before it is dropped and
# left to resync on reconnect (combat.hub). A table frame is a few KiB to a few tens of KiB.
WS_MAX_BACKLOG = env.int("WS_MAX_BACKLOG", default=1024 * 1024)

# The cache holds the throttles. With Redis every web process counts against one total; the embedded default
# serves from one daphne process, whose own memory is enough.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "fray",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "fray"}}

# Celery: Redis when REDIS_URL is set, otherwise kombu's filesystem transport (no server needed).
CELERY_QUEUE_DIR = VAR_DIR / "celery"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    # Seconds after which Redis hands a task that a worker took but never acknowledged (acks_late: it died
    # mid-task) to another worker. Longer than any task runs (an export of 10,000 entries takes under a second, a
    # reminder sweep stops claiming after 50 s), or a running task is handed out twice; far shorter than Celery's
    # default of an hour. An export's page does not wait for it: see EXPORT_STALE_AFTER.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_BROKER_VISIBILITY_TIMEOUT", default=300)}
else:
    CELERY_BROKER_URL = "filesystem://"
    CELERY_RESULT_BACKEND = f"file://{CELERY_QUEUE_DIR / 'results'}"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_QUEUE_DIR / "queue"),
        "data_folder_out": str(CELERY_QUEUE_DIR / "queue"),
        "processed_folder": str(CELERY_QUEUE_DIR / "processed"),
        # Exchange tables (the worker's remote-control pidbox, used by `celery inspect ping`). kombu's default is
        # a relative "control" folder, which would land in whatever directory the worker was started from.
        "control_folder": str(CELERY_QUEUE_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
# A task's message is acknowledged when the task returns, not when it starts (acks late), and is handed back to
# the broker when the pool process running it dies (reject on worker lost): a lost worker's task is delivered
# again rather than dropped. Tasks are written to be delivered twice (combat/tasks.py, campaigns/reminders.py).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Seconds an export may go without progress (queued and not started, or started and not writing) before its
# page shows it failed, with a "Try again" button (combat/tasks.py).
EXPORT_STALE_AFTER = env.int("EXPORT_STALE_AFTER", default=180)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE = {
    # Session reminders and cancellation notices. Expiring unrun sweeps keeps a backlog from piling up
    # while workers are down; the next sweep catches up with everything overdue anyway.
    "send-due-reminders": {
        "task": "campaigns.tasks.send_due_reminders",
        "schedule": 60.0,
        "options": {"expires": 55},
    },
}

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Fray <fray@localhost>")
# Bounds one SMTP send, well inside the reminder sweep's claim timeout (campaigns/reminders.py).
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=30)

# Public base URL used in e-mails and invite links when there is no request (tasks).
FRAY_BASE_URL = env.str("FRAY_BASE_URL", default="http://127.0.0.1:8000")

MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
}
