"""GET /sw.js: Fray's service worker (static/js/sw.js), which shows the "your turn" notifications.

Served from the site's root rather than /static/ because a worker's scope is the folder it is served from: this one
covers every page. No login: the browser fetches it again on its own to look for a new version, and it holds nothing
but code. Never cached, so a new version reaches the players' phones on their next visit.
"""

from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

WORKER = settings.BASE_DIR / "static" / "js" / "sw.js"


@never_cache
@require_safe
def service_worker(request):
    return HttpResponse(WORKER.read_bytes(), content_type="application/javascript")
