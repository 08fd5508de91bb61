from django.urls import path

from combat import review_views, views, watch_views

urlpatterns = [
    path("campaigns/<int:campaign_id>/encounters/", views.encounter_list, name="encounters"),
    path("campaigns/<int:campaign_id>/archive/", views.archive, name="archive"),
    path(
        "campaigns/<int:campaign_id>/archive/sessions/<int:session_id>/recap.md",
        views.session_recap_download,
        name="session_recap_download",
    ),
    path("campaigns/<int:campaign_id>/encounters/import/", review_views.encounter_import, name="encounter_import"),
    path("campaigns/<int:campaign_id>/encounters/new/", views.encounter_create, name="encounter_create"),
    path("campaigns/<int:campaign_id>/encounters/<int:encounter_id>/", views.encounter_detail, name="encounter"),
    path("campaigns/<int:campaign_id>/encounters/<int:encounter_id>/act/", views.encounter_act, name="encounter_act"),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/start/",
        views.encounter_start,
        name="encounter_start",
    ),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/delete/",
        views.encounter_delete,
        name="encounter_delete",
    ),
    path("campaigns/<int:campaign_id>/encounters/<int:encounter_id>/end/", views.encounter_end, name="encounter_end"),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/log/",
        review_views.encounter_log,
        name="encounter_log",
    ),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/log/reveal/",
        review_views.encounter_log_reveal,
        name="encounter_log_reveal",
    ),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/log/share/",
        review_views.share_create,
        name="share_create",
    ),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/log/share/<int:link_id>/revoke/",
        review_views.share_revoke,
        name="share_revoke",
    ),
    path("shared/<str:token>/", review_views.shared_review, name="shared_review"),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/log/watch/",
        watch_views.watch_create,
        name="watch_create",
    ),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/log/watch/<int:link_id>/revoke/",
        watch_views.watch_revoke,
        name="watch_revoke",
    ),
    path("watch/<str:token>/", watch_views.watch, name="watch"),
    path("watch/<str:token>/overlay/", watch_views.watch_overlay, name="watch_overlay"),
    path(
        "campaigns/<int:campaign_id>/encounters/<int:encounter_id>/log/export/",
        review_views.export_start,
        name="export_start",
    ),
    path("campaigns/<int:campaign_id>/exports/<int:job_id>/", review_views.export_status, name="export_status"),
    path(
        "campaigns/<int:campaign_id>/exports/<int:job_id>/download/",
        review_views.export_download,
        name="export_download",
    ),
    path("campaigns/<int:campaign_id>/exports/<int:job_id>/retry/", review_views.export_retry, name="export_retry"),
]
