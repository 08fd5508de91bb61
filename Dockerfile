# Fray's production image: daphne serves HTTP and websockets; the same image runs the Celery worker and beat.
#   docker build -t fray .
#   docker compose up --scale web=3     (see docker-compose.yml)
FROM python:3.13-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    DJANGO_SETTINGS_MODULE=config.settings_production

WORKDIR /app

# Dependencies first, so code changes do not reinstall them. requirements.lock pins the whole tree.
COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock

COPY . .

# Static files are baked into the image (whitenoise serves them). The key only lets the production settings
# import: it exists for this one command and is not kept in any layer's environment.
RUN SECRET_KEY="collectstatic-only-$(python -c 'import secrets; print(secrets.token_urlsafe(64))')" \
    python manage.py collectstatic --noinput -v0

# Run unprivileged. The code and collected static files stay root-owned (read-only to the app);
# only var/ (SQLite and the filesystem Celery queue when no DATABASE_URL/REDIS_URL is given) is writable.
RUN useradd --system --user-group --uid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin fray \
    && mkdir -p /app/var/media \
    && chown -R fray:fray /app/var
USER fray

EXPOSE 8000

# Behind the proxy (config/haproxy.cfg): daphne takes the client address from its X-Forwarded-For, so the port must
# be reachable through the proxy alone.
CMD ["daphne", "--proxy-headers", "-b", "0.0.0.0", "-p", "8000", "config.asgi:application"]
