import zoneinfo

from django.utils import timezone


class UserTimezoneMiddleware:
    """Show times in the signed-in user's own time zone."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        tz_name = getattr(getattr(request, "user", None), "timezone", None)
        if tz_name:
            try:
                timezone.activate(zoneinfo.ZoneInfo(tz_name))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
        else:
            timezone.deactivate()
        return self.get_response(request)
