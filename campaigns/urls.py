from django.contrib.auth import views as auth_views
from django.urls import path

from campaigns import session_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    # Password reset by e-mail: Django's views and forms, the mail sent by the worker (campaigns/tasks.py).
    path("accounts/password/reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/password/reset/sent/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password/reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"
    ),
    path("accounts/profile/", views.profile, name="profile"),
    path("join/", views.join_code, name="join_code"),
    path("join/<str:token>/", views.join_link, name="join_link"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("campaigns/<int:campaign_id>/", views.campaign_detail, name="campaign"),
    path("campaigns/<int:campaign_id>/edit/", views.campaign_edit, name="campaign_edit"),
    path("campaigns/<int:campaign_id>/gm-notes/", views.gm_notes, name="gm_notes"),
    path("campaigns/<int:campaign_id>/invite/", views.invite_regenerate, name="invite_regenerate"),
    path("campaigns/<int:campaign_id>/invite/revoke/", views.invite_revoke, name="invite_revoke"),
    path("campaigns/<int:campaign_id>/members/<int:member_id>/role/", views.member_role, name="member_role"),
    path("campaigns/<int:campaign_id>/members/<int:member_id>/remove/", views.member_remove, name="member_remove"),
    path("campaigns/<int:campaign_id>/characters/new/", views.character_create, name="character_create"),
    path("campaigns/<int:campaign_id>/characters/<int:character_id>/", views.character_detail, name="character"),
    path(
        "campaigns/<int:campaign_id>/characters/<int:character_id>/edit/", views.character_edit, name="character_edit"
    ),
    path(
        "campaigns/<int:campaign_id>/characters/<int:character_id>/delete/",
        views.character_delete,
        name="character_delete",
    ),
    # Game sessions, reminders, notifications and calendars (campaigns/session_views.py)
    path("campaigns/<int:campaign_id>/sessions/", session_views.session_list, name="sessions"),
    path("campaigns/<int:campaign_id>/sessions/new/", session_views.session_create, name="session_create"),
    path("campaigns/<int:campaign_id>/sessions/<int:session_id>/", session_views.session_detail, name="session"),
    path(
        "campaigns/<int:campaign_id>/sessions/<int:session_id>/edit/", session_views.session_edit, name="session_edit"
    ),
    path(
        "campaigns/<int:campaign_id>/sessions/<int:session_id>/cancel/",
        session_views.session_cancel,
        name="session_cancel",
    ),
    path(
        "campaigns/<int:campaign_id>/sessions/<int:session_id>/done/", session_views.session_done, name="session_done"
    ),
    path(
        "campaigns/<int:campaign_id>/sessions/<int:session_id>/recap/",
        session_views.session_recap,
        name="session_recap",
    ),
    path(
        "campaigns/<int:campaign_id>/sessions/<int:session_id>/rsvp/", session_views.session_rsvp, name="session_rsvp"
    ),
    path(
        "campaigns/<int:campaign_id>/sessions/<int:session_id>/session.ics",
        session_views.session_ics,
        name="session_ics",
    ),
    path("campaigns/<int:campaign_id>/reminders/", session_views.reminder_preference, name="reminder_preference"),
    path("notifications/", session_views.notifications, name="notifications"),
    path("accounts/calendar/rotate/", session_views.calendar_rotate, name="calendar_rotate"),
    path("calendar/<str:token>.ics", session_views.calendar_feed, name="calendar_feed"),
]
