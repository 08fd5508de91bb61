from django.contrib.auth import views as auth_views
from django.urls import path

from campaigns import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
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
    path("campaigns/<int:campaign_id>/characters/<int:character_id>/edit/", views.character_edit,
         name="character_edit"),
    path("campaigns/<int:campaign_id>/characters/<int:character_id>/delete/", views.character_delete,
         name="character_delete"),
]
