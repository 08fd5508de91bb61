"""Liveness/readiness probe for load balancers and `docker compose` healthchecks.

GET /healthz answers 200 {"ok": true, "database": true} when the database answers a trivial query,
and 503 {"ok": false, "database": false} when it does not. No session, no login, no template.
"""

import logging

from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)


@never_cache
@require_safe
def healthz(request):
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.exception("healthz: database check failed")
        return JsonResponse({"ok": False, "database": False}, status=503)
    return JsonResponse({"ok": True, "database": True})
