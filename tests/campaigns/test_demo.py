import pytest
from django.core.management import call_command

from campaigns.management.commands.load_demo import DEMO_PASSWORD
from campaigns.models import Campaign, Character, Membership, User
from combat.rules import registry
from ships.models import CrewAssignment, Ship

pytestmark = pytest.mark.django_db


def _counts():
    from combat.models import Encounter

    return (
        Encounter.objects.count(),
        User.objects.count(),
        Campaign.objects.count(),
        Membership.objects.count(),
        Character.objects.count(),
        Ship.objects.count(),
        CrewAssignment.objects.count(),
    )


def test_demo_has_a_gm_three_players_all_models_and_two_ships(capsys):
    call_command("load_demo")
    out = capsys.readouterr().out
    for username in ("gm", "ana", "ben", "cleo"):
        assert f"{username} / {DEMO_PASSWORD}" in out
        assert User.objects.get(username=username).check_password(DEMO_PASSWORD)
    campaign = Campaign.objects.get()
    assert Membership.objects.get(campaign=campaign, user__username="gm").role == "gm"
    assert Membership.objects.filter(campaign=campaign, role="player").count() == 3
    pcs = Character.objects.filter(campaign=campaign, kind="pc")
    assert {c.system for c in pcs} == set(registry.MODELS)
    for character in Character.objects.all():
        character.full_clean()  # every demo sheet is valid under its model's rules
    assert Ship.objects.filter(campaign=campaign).count() == 2
    for ship in Ship.objects.all():
        ship.full_clean()
    assert CrewAssignment.objects.filter(station="pilot").count() == 2  # Tess Varro; Captain Vrask (Red Talon)
    assert Ship.objects.get(name="Red Talon").side == Ship.Side.NPC  # SW5e's enemy ship: the GM's alone
    from combat.models import Encounter

    fight = Encounter.objects.get()
    assert fight.status == "active" and fight.model == "burn_bryte" and fight.combatants.count() == 5


def test_demo_runs_again_without_duplicating_or_overwriting(capsys):
    call_command("load_demo")
    luwe = Character.objects.get(name="Luwe")
    luwe.stats["health"] = 1
    luwe.save()
    before = _counts()
    call_command("load_demo")
    assert _counts() == before
    luwe.refresh_from_db()
    assert luwe.stats["health"] == 1
