from django.urls import path

from combat import views

urlpatterns = [
    path("campaigns/<int:campaign_id>/encounters/", views.encounter_list, name="encounters"),
    path("campaigns/<int:campaign_id>/encounters/new/", views.encounter_create, name="encounter_create"),
    path("campaigns/<int:campaign_id>/encounters/<int:encounter_id>/", views.encounter_detail, name="encounter"),
    path("campaigns/<int:campaign_id>/encounters/<int:encounter_id>/act/", views.encounter_act, name="encounter_act"),
]
