from django.contrib import admin
from django.urls import include, path

from config.health import healthz
from config.service_worker import service_worker

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("sw.js", service_worker, name="service_worker"),
    path("", include("campaigns.urls")),
    path("", include("ships.urls")),
    path("", include("combat.urls")),
]
