from django.urls import path

from ships import views

urlpatterns = [
    path("campaigns/<int:campaign_id>/ships/new/", views.ship_create, name="ship_create"),
    path("campaigns/<int:campaign_id>/ships/<int:ship_id>/", views.ship_detail, name="ship"),
    path("campaigns/<int:campaign_id>/ships/<int:ship_id>/edit/", views.ship_edit, name="ship_edit"),
    path("campaigns/<int:campaign_id>/ships/<int:ship_id>/delete/", views.ship_delete, name="ship_delete"),
    path("campaigns/<int:campaign_id>/ships/<int:ship_id>/crew/", views.crew_add, name="crew_add"),
    path("campaigns/<int:campaign_id>/ships/<int:ship_id>/recover/", views.ship_recover, name="ship_recover"),
    path(
        "campaigns/<int:campaign_id>/ships/<int:ship_id>/crew/<int:post_id>/remove/",
        views.crew_remove,
        name="crew_remove",
    ),
]
