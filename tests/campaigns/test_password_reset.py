"""Password reset by e-mail: Django's views and forms with Fray's pages; the worker sends the mail; the answer never
tells whether an address has an account; requests are throttled per address asked for and per client."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from campaigns.models import User
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "brand-New-table-secret-58"


def reset_link(message) -> str:
    """The path of the link in a reset e-mail."""
    match = re.search(r"http://127\.0\.0\.1:8000(/accounts/password/reset/[^/\s]+/[^/\s]+/)", message.body)
    assert match, message.body
    return match.group(1)


def test_the_login_page_links_to_the_reset(client):
    page = client.get(reverse("login")).content.decode()
    assert f'href="{reverse("password_reset")}"' in page


def test_reset_by_e_mail_then_log_in_with_the_new_password(client, gm):
    form_page = client.get(reverse("password_reset"))
    assert form_page.status_code == 200 and "csrfmiddlewaretoken" in form_page.content.decode()

    response = client.post(reverse("password_reset"), {"email": "GEMMA@example.com"})
    assert response["Location"] == reverse("password_reset_done")
    assert "a link to set a new password is on its way" in client.get(response["Location"]).content.decode()
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["gemma@example.com"]
    assert mail.outbox[0].subject == "Set a new Fray password"

    # Django checks the token, keeps it in the session and moves to a URL without it.
    set_password_url = client.get(reset_link(mail.outbox[0]))["Location"]
    set_page = client.get(set_password_url).content.decode()
    assert "Set a new password" in set_page and "csrfmiddlewaretoken" in set_page
    response = client.post(set_password_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert response["Location"] == reverse("password_reset_complete")
    assert "Log in with it" in client.get(response["Location"]).content.decode()

    assert client.post(reverse("login"), {"username": "gemma", "password": PASSWORD}).status_code == 400
    assert client.post(reverse("login"), {"username": "gemma", "password": NEW_PASSWORD}).status_code == 302
    assert client.get(reverse("home")).context["user"] == gm


def test_a_link_works_once(client, gm):
    client.post(reverse("password_reset"), {"email": "gemma@example.com"})
    link = reset_link(mail.outbox[0])
    set_password_url = client.get(link)["Location"]
    client.post(set_password_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    page = client.get(link, follow=True).content.decode()
    assert "This link does not work" in page and 'name="new_password1"' not in page


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, gm):
    known = client.post(reverse("password_reset"), {"email": "gemma@example.com"})
    mail.outbox.clear()
    unknown = client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])
    assert mail.outbox == []


def test_the_worker_sends_the_mail_not_the_web_process(client, gm, monkeypatch):
    from campaigns import tasks

    queued = []
    monkeypatch.setattr(tasks.send_password_reset, "delay", queued.append)
    client.post(reverse("password_reset"), {"email": "gemma@example.com"})
    client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    # The web process queues the same task for both, whether an account has the address or not.
    assert queued == ["gemma@example.com", "nobody@example.com"] and mail.outbox == []
    for email in queued:
        tasks.send_password_reset(email)
    assert [m.to for m in mail.outbox] == [["gemma@example.com"]]


def test_the_link_points_at_fray_whatever_host_the_request_named(client, gm, settings):
    settings.FRAY_BASE_URL = "https://fray.example.com"
    client.post(reverse("password_reset"), {"email": "gemma@example.com"}, headers={"Host": "localhost"})
    assert "https://fray.example.com/accounts/password/reset/" in mail.outbox[0].body
    assert "localhost" not in mail.outbox[0].body


def test_requests_are_throttled_per_address(client, gm):
    for _ in range(3):
        assert client.post(reverse("password_reset"), {"email": "gemma@example.com"}).status_code == 302
    response = client.post(reverse("password_reset"), {"email": "Gemma@Example.com"})
    assert response.status_code == 429
    assert "Too many reset requests; try again in 60 minutes." in response.content.decode()
    assert len(mail.outbox) == 3
    # Another address from the same client is still served.
    assert client.post(reverse("password_reset"), {"email": "ana@example.com"}).status_code == 302


def test_an_address_without_an_account_is_throttled_alike(client):
    statuses = [client.post(reverse("password_reset"), {"email": "nobody@example.com"}).status_code for _ in range(4)]
    assert statuses == [302, 302, 302, 429]


def test_requests_are_throttled_per_client(client, gm):
    many = "203.0.113.7"
    for n in range(10):
        response = client.post(
            reverse("password_reset"),
            {"email": f"n{n}@example.com"},
            REMOTE_ADDR=many,
            headers={"X-Forwarded-For": f"198.51.100.{n}"},
        )
        assert response.status_code == 302
    response = client.post(
        reverse("password_reset"),
        {"email": "gemma@example.com"},
        REMOTE_ADDR=many,
        headers={"X-Forwarded-For": "198.51.100.99"},
    )
    assert response.status_code == 429 and mail.outbox == []
    elsewhere = client.post(reverse("password_reset"), {"email": "gemma@example.com"}, REMOTE_ADDR="192.0.2.1")
    assert elsewhere.status_code == 302 and len(mail.outbox) == 1


def test_a_bad_address_gets_a_sentence_and_400(client):
    response = client.post(reverse("password_reset"), {"email": "not an address"})
    assert response.status_code == 400
    assert "Enter a valid email address." in response.content.decode()


def test_a_weak_new_password_gets_a_sentence_and_400(client, gm):
    client.post(reverse("password_reset"), {"email": "gemma@example.com"})
    set_password_url = client.get(reset_link(mail.outbox[0]))["Location"]
    response = client.post(set_password_url, {"new_password1": "12345678", "new_password2": "12345678"})
    assert response.status_code == 400
    assert "This password is too common." in response.content.decode()
    assert User.objects.get(pk=gm.pk).check_password(PASSWORD)


def test_with_the_broker_down_the_page_still_answers(client, gm, monkeypatch):
    import kombu.exceptions

    from campaigns import tasks

    def down(email):
        raise kombu.exceptions.OperationalError("Connection refused")

    monkeypatch.setattr(tasks.send_password_reset, "delay", down)
    response = client.post(reverse("password_reset"), {"email": "gemma@example.com"})
    assert response["Location"] == reverse("password_reset_done")
