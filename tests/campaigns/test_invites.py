import math
import re
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from campaigns import services
from campaigns.models import JOIN_CODE_ALPHABET, Invite, Membership
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def invite(campaign, gm):
    return services.regenerate_invite(campaign, gm, days=7)


def test_invite_token_is_unguessable_and_code_is_phone_friendly(invite):
    # token_urlsafe: 6 bits a character
    assert len(invite.token) * 6 >= 128
    assert len(invite.code) == 8 and set(invite.code) <= set(JOIN_CODE_ALPHABET)
    assert not set("0O1IL") & set(JOIN_CODE_ALPHABET)
    assert math.log2(len(JOIN_CODE_ALPHABET)) * 8 > 38


def test_gm_page_shows_code_link_and_qr(client, gm, campaign, invite):
    client.force_login(gm)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert invite.code_display in page
    assert f"/join/{invite.token}/" in page
    assert "<svg" in page and "QR code of the invite link" in page


def test_players_never_see_the_invite(client, player, campaign, invite):
    client.force_login(player)
    page = client.get(campaign.get_absolute_url()).content.decode()
    assert invite.token not in page and invite.code not in page and invite.code_display not in page
    assert client.post(reverse("invite_regenerate", args=[campaign.pk]), {"days": 7}).status_code == 404
    assert client.post(reverse("invite_revoke", args=[campaign.pk])).status_code == 404


def test_join_by_link_after_confirming(client, outsider, campaign, invite):
    client.force_login(outsider)
    url = reverse("join_link", args=[invite.token])
    page = client.get(url).content.decode()
    assert "Join Drift?" in page
    assert not Membership.objects.filter(user=outsider).exists()
    response = client.post(url, {"confirm": "1"})
    assert response["Location"] == campaign.get_absolute_url()
    assert Membership.objects.get(campaign=campaign, user=outsider).role == "player"
    invite.refresh_from_db()
    assert invite.uses == 1


def test_a_logged_out_visitor_sees_the_campaign_and_gm_and_nothing_else(client, gm, campaign, invite, pc):
    gm.first_name = "Gemma the GM"
    gm.save()
    response = client.get(reverse("join_link", args=[invite.token]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Gemma the GM invites you to play in Drift" in " ".join(re.sub(r"<[^>]+>", " ", page).split())
    link = reverse("join_link", args=[invite.token])
    login, signup = (reverse(name) + "?next=" + quote(link) for name in ("login", "signup"))
    assert f'href="{login}"' in page and f'href="{signup}"' in page
    for secret in ("Space!", "SECRET", "Luwe", "ana", "ben", "Burn Bryte", invite.code):
        assert secret not in page, secret
    assert Membership.objects.filter(campaign=campaign).count() == 3  # the GM and the two players: nobody joined


def test_signing_up_from_an_invite_link_joins_and_lands_in_the_campaign(client, campaign, invite):
    link = reverse("join_link", args=[invite.token])
    response = client.post(
        reverse("signup") + "?next=" + quote(link),
        {"username": "dee", "timezone": "UTC", "password1": PASSWORD, "password2": PASSWORD, "next": link},
    )
    assert response.status_code == 302 and response["Location"] == campaign.get_absolute_url()
    assert Membership.objects.get(campaign=campaign, user__username="dee").role == "player"
    page = client.get(response["Location"]).content.decode()
    assert "Welcome to Drift!" in page
    invite.refresh_from_db()
    assert invite.uses == 1


def test_logging_in_from_an_invite_link_joins_and_lands_in_the_campaign(client, outsider, campaign, invite):
    link = reverse("join_link", args=[invite.token])
    response = client.post(
        reverse("login") + "?next=" + quote(link),
        {"username": outsider.username, "password": PASSWORD, "next": link},
    )
    assert response.status_code == 302 and response["Location"] == campaign.get_absolute_url()
    assert Membership.objects.get(campaign=campaign, user=outsider).role == "player"


def test_logging_in_as_a_member_from_the_link_just_opens_the_campaign(client, player, campaign, invite):
    link = reverse("join_link", args=[invite.token])
    response = client.post(reverse("login"), {"username": player.username, "password": PASSWORD, "next": link})
    assert response["Location"] == campaign.get_absolute_url()
    assert Membership.objects.filter(campaign=campaign, user=player).count() == 1
    invite.refresh_from_db()
    assert invite.uses == 0


def test_a_dead_invite_link_says_so_to_a_logged_out_visitor(client, gm, campaign, invite):
    services.revoke_invites(campaign)
    response = client.get(reverse("join_link", args=[invite.token]))
    assert response.status_code == 404
    page = response.content.decode()
    assert "That invite was withdrawn by the GM." in page and "Drift" not in page
    assert client.get("/join/not-a-token/").status_code == 404


def test_a_withdrawn_invite_after_the_visit_refuses_the_join_but_keeps_the_login(client, outsider, campaign, invite):
    link = reverse("join_link", args=[invite.token])
    Invite.objects.filter(pk=invite.pk).update(revoked_at=timezone.now())
    response = client.post(reverse("login"), {"username": outsider.username, "password": PASSWORD, "next": link})
    assert response["Location"] == link  # its page says why
    assert "That invite was withdrawn by the GM." in client.get(link).content.decode()
    assert not Membership.objects.filter(campaign=campaign, user=outsider).exists()


@pytest.mark.parametrize("typed", ["{code}", "{lower}", "{dashed}", " {dashed_lower} "])
def test_join_by_typing_the_code_however_it_is_typed(client, outsider, campaign, invite, typed):
    client.force_login(outsider)
    code = typed.format(
        code=invite.code,
        lower=invite.code.lower(),
        dashed=invite.code_display,
        dashed_lower=invite.code_display.lower(),
    )
    response = client.post(reverse("join_code"), {"code": code})
    assert response["Location"] == campaign.get_absolute_url()
    assert Membership.objects.filter(campaign=campaign, user=outsider, role="player").exists()


def test_wrong_code_gets_a_sentence(client, outsider, invite):
    client.force_login(outsider)
    response = client.post(reverse("join_code"), {"code": "ZZZZ-ZZZZ"})
    assert response.status_code == 400
    assert "That invite is not valid." in response.content.decode()
    response = client.post(reverse("join_code"), {"code": "abc"})
    assert "A join code has 8 letters and digits" in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()


def test_expired_invite_refuses(client, outsider, campaign, invite):
    Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    client.force_login(outsider)
    response = client.post(reverse("join_code"), {"code": invite.code})
    assert "That invite has expired." in response.content.decode()
    response = client.post(reverse("join_link", args=[invite.token]), {"confirm": "1"})
    assert response.status_code == 404 and "That invite has expired." in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()


def test_revoked_invite_refuses(client, gm, outsider, campaign, invite):
    client.force_login(gm)
    client.post(reverse("invite_revoke", args=[campaign.pk]))
    client.force_login(outsider)
    response = client.post(reverse("join_code"), {"code": invite.code})
    assert "That invite was withdrawn by the GM." in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()


def test_regenerating_kills_the_old_link_and_code(client, gm, outsider, campaign, invite):
    client.force_login(gm)
    client.post(reverse("invite_regenerate", args=[campaign.pk]), {"days": 1})
    fresh = Invite.objects.usable().get(campaign=campaign)
    assert fresh.pk != invite.pk and fresh.code != invite.code
    assert timedelta(hours=23) < fresh.expires_at - timezone.now() <= timedelta(days=1)
    client.force_login(outsider)
    assert "withdrawn" in client.post(reverse("join_code"), {"code": invite.code}).content.decode()
    assert client.post(reverse("join_code"), {"code": fresh.code}).status_code == 302


def test_bad_expiry_choice_is_refused(client, gm, campaign):
    client.force_login(gm)
    response = client.post(reverse("invite_regenerate", args=[campaign.pk]), {"days": 365}, follow=True)
    assert "Choose how long the invite stays valid" in response.content.decode()
    assert not Invite.objects.exists()


def test_joining_twice_changes_nothing_and_gm_stays_gm(client, gm, player, campaign, invite):
    client.force_login(player)
    client.post(reverse("join_code"), {"code": invite.code})
    client.force_login(gm)
    client.post(reverse("join_code"), {"code": invite.code})
    assert Membership.objects.filter(campaign=campaign).count() == 3
    assert Membership.objects.get(campaign=campaign, user=gm).role == "gm"
    invite.refresh_from_db()
    assert invite.uses == 0


def test_gms_get_an_email_when_a_player_joins(client, outsider, campaign, invite, django_capture_on_commit_callbacks):
    client.force_login(outsider)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("join_code"), {"code": invite.code})
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["gemma@example.com"]
    assert "zed joined Drift" in mail.outbox[0].subject


# --- wrong codes are throttled -------------------------------------------------------------------------------------


def test_wrong_codes_are_throttled_per_user(client, outsider, campaign, invite, settings):
    client.force_login(outsider)
    for n in range(settings.FRAY_THROTTLES["join_code"]["user"]):
        # From a new address each time, and with a forwarded header claiming yet another: the user is counted.
        response = client.post(
            reverse("join_code"),
            {"code": "ZZZZ-ZZZZ"},
            REMOTE_ADDR=f"203.0.113.{n}",
            headers={"X-Forwarded-For": f"198.51.100.{n}"},
        )
        assert response.status_code == 400
    # Past the limit even the right code is refused, with a sentence on the form.
    response = client.post(reverse("join_code"), {"code": invite.code}, REMOTE_ADDR="203.0.113.200")
    assert response.status_code == 429
    sentence = "Too many wrong codes; try again in 15 minutes."
    assert f'<p class="error" role="alert">{sentence}</p>' in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()
    # Someone else is not held back by it.
    from tests.conftest import make_user

    client.force_login(make_user("newcomer"))
    assert client.post(reverse("join_code"), {"code": invite.code}).status_code == 302


def test_wrong_codes_are_throttled_per_client_address(client, campaign, invite, settings):
    from tests.conftest import make_user

    settings.FRAY_THROTTLES = {**settings.FRAY_THROTTLES, "join_code": {"minutes": 15, "user": 10, "client": 3}}
    shared = "203.0.113.9"
    for n in range(3):
        client.force_login(make_user(f"guesser{n}"))
        response = client.post(
            reverse("join_code"),
            {"code": "ZZZZ-ZZZZ"},
            REMOTE_ADDR=shared,
            headers={"X-Forwarded-For": f"198.51.100.{n}", "X-Real-IP": f"198.51.100.{n}"},
        )
        assert response.status_code == 400
    newcomer = make_user("newcomer")
    client.force_login(newcomer)
    response = client.post(
        reverse("join_code"), {"code": invite.code}, REMOTE_ADDR=shared, headers={"X-Forwarded-For": "192.0.2.50"}
    )
    assert response.status_code == 429 and "Too many wrong codes" in response.content.decode()
    assert not Membership.objects.filter(user=newcomer).exists()
    # From another address the same user joins.
    assert client.post(reverse("join_code"), {"code": invite.code}, REMOTE_ADDR="192.0.2.50").status_code == 302
    assert Membership.objects.filter(user=newcomer, campaign=campaign).exists()


def test_a_right_code_is_not_counted_as_a_wrong_one(client, gm, outsider, campaign, invite, settings):
    settings.FRAY_THROTTLES = {**settings.FRAY_THROTTLES, "join_code": {"minutes": 15, "user": 1, "client": 1}}
    client.force_login(outsider)
    assert client.post(reverse("join_code"), {"code": invite.code}).status_code == 302
    other = services.create_campaign(gm, name="Second", combat_model="hero")
    second = services.regenerate_invite(other, gm, days=7)
    assert client.post(reverse("join_code"), {"code": second.code}).status_code == 302


# --- a removed member stays out ------------------------------------------------------------------------------------


def remove(client, gm, campaign, user):
    client.force_login(gm)
    member = Membership.objects.get(campaign=campaign, user=user)
    client.post(reverse("member_remove", args=[campaign.pk, member.pk]))
    assert not Membership.objects.filter(campaign=campaign, user=user).exists()


def test_a_removed_member_cannot_rejoin_with_the_link_or_code_they_had(client, gm, player, outsider, campaign, invite):
    remove(client, gm, campaign, player)
    client.force_login(player)
    link = reverse("join_link", args=[invite.token])
    for response in (
        client.get(link),
        client.post(link, {"confirm": "1"}),
        client.post(reverse("join_code"), {"code": invite.code}),
    ):
        assert response.status_code == 400
        assert "The GM removed you from this campaign after this invite was made." in response.content.decode()
        assert "Join as a player" not in response.content.decode()
    assert not Membership.objects.filter(campaign=campaign, user=player).exists()
    # The invite still works for everyone else.
    client.force_login(outsider)
    assert client.post(reverse("join_code"), {"code": invite.code}).status_code == 302


def test_a_fresh_invite_lets_a_removed_member_back(client, gm, player, campaign, invite):
    remove(client, gm, campaign, player)
    client.post(reverse("invite_regenerate", args=[campaign.pk]), {"days": 7})
    fresh = Invite.objects.usable().get(campaign=campaign)
    client.force_login(player)
    assert client.post(reverse("join_code"), {"code": fresh.code}).status_code == 302
    assert Membership.objects.get(campaign=campaign, user=player).role == "player"
    # Removed a second time, the invite they came back with is closed to them too.
    remove(client, gm, campaign, player)
    client.force_login(player)
    assert client.post(reverse("join_code"), {"code": fresh.code}).status_code == 400


def test_the_service_refuses_a_removed_member_too(gm, player, campaign, invite):
    services.remove_member(campaign, Membership.objects.get(campaign=campaign, user=player))
    with pytest.raises(services.ServiceError, match="removed you"):
        services.join_campaign(player, invite)
