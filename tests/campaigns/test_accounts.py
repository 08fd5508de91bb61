import pytest
from django.urls import reverse

from campaigns.models import User
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_sign_up_logs_in_and_keeps_time_zone(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "gemma",
            "email": "",
            "timezone": "Europe/Paris",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    user = User.objects.get(username="gemma")
    assert user.timezone == "Europe/Paris"
    assert client.get(reverse("home")).context["user"] == user


def test_sign_up_refuses_weak_password_with_a_sentence(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "gemma",
            "timezone": "UTC",
            "password1": "12345678",
            "password2": "12345678",
        },
    )
    assert response.status_code == 400
    assert "This password is too common." in response.content.decode()
    assert not User.objects.filter(username="gemma").exists()


def test_sign_up_returns_to_the_invite_it_came_from(client):
    response = client.post(
        reverse("signup") + "?next=/join/abc/",
        {
            "username": "ana",
            "timezone": "UTC",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": "/join/abc/",
        },
    )
    assert response["Location"] == "/join/abc/"


def test_sign_up_ignores_an_offsite_next(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "ana",
            "timezone": "UTC",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": "https://evil.example.com/",
        },
    )
    assert response["Location"] == reverse("home")


def test_log_in_and_log_out(client, gm):
    response = client.post(reverse("login"), {"username": "gemma", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("home")).context["user"] == gm
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert not client.get(reverse("home")).context["user"].is_authenticated


def test_wrong_password_says_so(client, gm):
    response = client.post(reverse("login"), {"username": "gemma", "password": "nope"})
    assert response.status_code == 400
    assert "Please enter a correct username and password" in response.content.decode()


def test_failed_logins_are_rate_limited(client, gm, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(reverse("login"), {"username": "gemma", "password": "wrong"})
    # Even the right password is refused while locked out.
    response = client.post(reverse("login"), {"username": "gemma", "password": PASSWORD})
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert not client.get(reverse("home")).context["user"].is_authenticated


def test_lockout_is_per_account(client, gm, player):
    for _ in range(5):
        client.post(reverse("login"), {"username": "gemma", "password": "wrong"})
    response = client.post(reverse("login"), {"username": "ana", "password": PASSWORD})
    assert response.status_code == 302


def test_an_over_long_username_gets_a_sentence_and_records_nothing(client, gm):
    from axes.models import AccessAttempt

    response = client.post(reverse("login"), {"username": "😀" * 256, "password": "x"})
    assert response.status_code == 400
    assert "Usernames are at most 150 characters." in response.content.decode()
    assert not AccessAttempt.objects.exists()


def test_failed_attempts_are_recorded_under_a_username_that_fits_its_column():
    from axes.models import AccessAttempt

    from campaigns.forms import axes_username

    column = AccessAttempt._meta.get_field("username").max_length
    assert len(axes_username(None, {"username": "x" * 1000})) <= column
    assert axes_username(None, {"username": "gemma"}) == "gemma"


def test_password_change_needs_the_old_password(client, gm):
    client.force_login(gm)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "wrong",
            "new_password1": "another-Long-secret-77",
            "new_password2": "another-Long-secret-77",
        },
    )
    assert response.status_code == 400
    assert "Your old password was entered incorrectly" in response.content.decode()
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "another-Long-secret-77",
            "new_password2": "another-Long-secret-77",
        },
    )
    assert response.status_code == 302
    gm.refresh_from_db()
    assert gm.check_password("another-Long-secret-77")


def test_profile_time_zone_must_be_real(client, gm):
    client.force_login(gm)
    response = client.post(reverse("profile"), {"first_name": "Gemma", "email": "", "timezone": "Mars/Olympus"})
    assert response.status_code == 400
    assert "“Mars/Olympus” is not a time zone Fray knows." in response.content.decode()
    gm.refresh_from_db()
    assert gm.timezone == "UTC"


def test_forms_carry_csrf_tokens(client):
    for name in ("signup", "login"):
        assert "csrfmiddlewaretoken" in client.get(reverse(name)).content.decode()


def test_posts_without_csrf_are_refused(gm):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(gm)
    response = strict.post(reverse("campaign_create"), {"name": "X", "combat_model": "hero"})
    assert response.status_code == 403


# --- the login lockout reads the address daphne gave, and one address cannot lock out another ------------------------

GM_HOME = "198.51.100.7"
ATTACKER = "203.0.113.66"


def test_lockout_counts_the_connecting_address_whatever_headers_claim(client, gm, settings):
    for n in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            reverse("login"),
            {"username": "gemma", "password": "wrong"},
            REMOTE_ADDR=ATTACKER,
            headers={"X-Forwarded-For": f"192.0.2.{n}", "X-Real-IP": f"192.0.2.{n}"},
        )
    # A fresh forwarded header does not make a fresh client: the attacker's address stays locked.
    response = client.post(
        reverse("login"),
        {"username": "gemma", "password": PASSWORD},
        REMOTE_ADDR=ATTACKER,
        headers={"X-Forwarded-For": "192.0.2.200", "X-Real-IP": "192.0.2.200"},
    )
    assert response.status_code == 429
    assert not client.get(reverse("home")).context["user"].is_authenticated


def test_failures_from_another_address_never_lock_the_gm_out(client, gm, settings):
    from django.test import Client

    for _ in range(settings.AXES_FAILURE_LIMIT * 3):
        # Even claiming to come from the GM's own address.
        client.post(
            reverse("login"),
            {"username": "gemma", "password": "wrong"},
            REMOTE_ADDR=ATTACKER,
            headers={"X-Forwarded-For": GM_HOME, "X-Real-IP": GM_HOME},
        )
    assert (
        client.post(reverse("login"), {"username": "gemma", "password": PASSWORD}, REMOTE_ADDR=ATTACKER).status_code
        == 429
    )
    at_home = Client()
    response = at_home.post(reverse("login"), {"username": "gemma", "password": PASSWORD}, REMOTE_ADDR=GM_HOME)
    assert response.status_code == 302
    assert at_home.get(reverse("home")).context["user"] == gm


def test_the_sign_up_page_asks_the_browser_for_the_time_zone(client):
    page = client.get(reverse("signup")).content.decode()
    assert "data-browser-timezone" in page and "/static/js/timezone" in page
    assert "<script>" not in page and "onload" not in page  # no inline code: the CSP forbids it


def test_sign_up_refuses_an_unknown_time_zone_with_a_sentence(client):
    response = client.post(
        reverse("signup"),
        {"username": "gemma", "timezone": "Mars/Olympus", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "“Mars/Olympus” is not a time zone Fray knows. Choose yours from the list, such as Europe/Paris." in page
    assert "data-browser-timezone" not in page  # the refused form keeps what was sent, never the browser's zone
    assert not User.objects.filter(username="gemma").exists()
