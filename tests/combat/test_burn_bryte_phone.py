"""A Burn Bryte player's own section on the phone: a one-tap attack with the likeliest skill at the likeliest
target, never an ally, a downed enemy or one the party has not seen; when it is not their turn, a line saying who
acts and what the table waits for, and what they may do meanwhile (Nova points, the party's Advantages)."""

import re

import pytest

from campaigns.models import Character, Membership
from combat import fragments, services, store
from combat.rules.dice import ScriptedDice
from tests.combat.helpers import combatant_key as key
from tests.combat.helpers import state_of, valid_sheet

pytestmark = pytest.mark.django_db


@pytest.fixture
def luwe(campaign, player):
    return Character.objects.create(
        campaign=campaign,
        name="Luwe",
        owner=player,
        system="burn_bryte",
        stats=valid_sheet("burn_bryte", skill_ranged=8, skill_melee=6, nova_points=1),
    )


@pytest.fixture
def furo(campaign, other_player):
    return Character.objects.create(
        campaign=campaign,
        name="Furo",
        owner=other_player,
        system="burn_bryte",
        stats=valid_sheet("burn_bryte", skill_melee=10),
    )


@pytest.fixture
def sniper(campaign):
    return Character.objects.create(
        campaign=campaign, name="Hidden sniper", kind="npc", system="burn_bryte", is_template=True, quantity=1
    )


@pytest.fixture
def enc(campaign, gm, luwe, furo, npc, sniper):
    """Luwe and Furo against two Nivicks in sight and a sniper the party has not seen (listed first)."""
    encounter = services.create_encounter(
        campaign,
        gm,
        name="Gantry",
        model="burn_bryte",
        pcs=[luwe, furo],
        enemies=[(sniper, 1), (npc, 2)],
        hidden={sniper.pk},
    )
    return services.start_encounter(encounter, gm)


def go(enc, user, name, faces=(), **data):
    """Run a command as a phone's form sends it (every value a string), with these faces for the server's dice."""
    go.n = getattr(go, "n", 0) + 1
    data = {k: str(v) for k, v in data.items()}
    result = services.submit(enc.pk, user, name, data, f"p{go.n}", from_form=True, dice=ScriptedDice(faces))
    assert result.ok, result.error


def me(enc, user) -> str:
    enc.refresh_from_db()
    return fragments.me_html(enc, store.load_state(enc), user.pk)


def quick_attacks(html: str) -> list[str]:
    """The one-tap attack buttons, in order ("primary" marks the default)."""
    block = html.split('class="quick-attack"')[1].split("</div>")[0] if 'class="quick-attack"' in html else ""
    return re.findall(r'<button type="submit"( class="primary")?>Attack ([^<]+)</button>', block)


def waiting(html: str) -> str:
    found = re.search(r'<p class="waiting card">(.*?)</p>', html, re.S)
    return re.sub(r"<[^>]+>", "", found.group(1)) if found else ""


def to_phase_2(enc, gm, npc, luwe, furo):
    """Phase 1's declarations: Nivick 1 claws at Furo, Nivick 2 shoots at Luwe, the unseen sniper aims at Luwe."""
    go(enc, gm, "declare", enemy=key(npc, 1), target=key(furo), text="claws")
    go(enc, gm, "declare", enemy=key(npc, 2), target=key(luwe), text="shoots")
    sniper = next(f for f in store.load_state(enc).enemies() if f.name == "Hidden sniper")
    go(enc, gm, "declare", enemy=sniper.id, target=key(luwe), text="SECRET long rifle")


def test_the_default_attack_is_one_tap_at_the_enemy_aiming_at_me_with_my_likeliest_skill(
    enc, gm, player, luwe, furo, npc
):
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    page = me(enc, player)
    # Nivick 2 declared against Luwe, so it is the default; the sniper no one has seen is never offered.
    assert quick_attacks(page) == [(' class="primary"', "Nivick 2"), ("", "Nivick 1")]
    assert "Hidden sniper" not in page and "SECRET" not in page and "Attack Furo" not in page  # nor an ally
    assert "One tap rolls Ranged: 2d8, <strong>88%</strong> to hit for 1 damage." in page
    # The full form starts from the same defaults.
    assert re.search(r'value="Ranged" required checked>', page)
    assert f'<option value="{key(npc, 2)}" selected>Attack Nivick 2</option>' in page
    assert waiting(page) == ""  # it is Luwe's turn: the banner says so

    # One tap rolls Ranged at Nivick 2 (faces 3 and 5: no doubles, a hit), the next ends the turn.
    quick = re.search(r"<form[^>]*>(?:(?!</form>).)*>Attack Nivick 2</button>", page, re.S).group(0)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', quick))
    data = {k: v for k, v in fields.items() if k not in ("command", "key", "csrfmiddlewaretoken")}
    go(enc, player, fields["command"], faces=[3, 5], **data)
    state = state_of(enc)
    assert state.fighter(key(npc, 2)).health == state.fighter(key(npc, 2)).health_max - 1
    go(enc, player, "end_turn", actor=key(luwe))
    assert state_of(enc).fighter(key(luwe)).took_turn


def test_a_downed_enemy_is_no_target_and_without_one_no_attack_is_offered(enc, gm, player, luwe, furo, npc):
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "adjust_health", target=key(npc, 2), change=-10)
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    assert quick_attacks(me(enc, player)) == [(' class="primary"', "Nivick 1")]

    go(enc, gm, "adjust_health", target=key(npc, 1), change=-10)  # every enemy in sight is down
    page = me(enc, player)
    assert quick_attacks(page) == []
    assert '<option value="attack">' not in page and "Attack Nivick" not in page
    assert '<option value="defend" selected>' in page  # Nivick 1's claw at Furo may still be defended
    assert "End my turn" in page


def test_while_waiting_a_line_says_who_acts_and_what_i_may_do(enc, gm, player, other_player, luwe, furo, npc):
    assert waiting(me(enc, player)) == (
        "Phase 1: the GM declares what each enemy will do — the party acts in "
        "Phase 2. Out of turn you may spend Nova points."
    )
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    assert waiting(me(enc, player)).startswith("Phase 2: the party picks who goes next — you can claim the next turn.")
    go(enc, other_player, "claim_turn", actor=key(furo))
    assert waiting(me(enc, player)).startswith("Phase 2: Furo is taking their turn.")
    assert waiting(me(enc, other_player)) == ""  # Furo's player sees the turn's controls instead
    go(enc, other_player, "end_turn", actor=key(furo))
    go(enc, player, "claim_turn", actor=key(luwe))
    go(enc, player, "end_turn", actor=key(luwe))
    assert waiting(me(enc, player)).startswith("Phase 2: every PC has had a turn — the GM starts Phase 3.")
    go(enc, gm, "start_enemies")
    assert waiting(me(enc, other_player)) == (
        "Phase 3: the enemies move and their declared actions resolve — then a new round."
    )


def test_after_the_gm_picks_the_finisher_picks_next(enc, gm, player, other_player, luwe, furo, npc):
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    go(enc, gm, "pick_next", next=key(furo))
    go(enc, other_player, "end_turn", actor=key(furo))
    assert waiting(me(enc, other_player)).startswith("Phase 2: you pick who goes next.")
    assert waiting(me(enc, player)).startswith("Phase 2: Furo picks who goes next.")


def test_another_pcs_failed_roll_can_be_rescued_from_the_party_pool_out_of_turn(
    enc, gm, player, other_player, luwe, furo, npc
):
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    go(enc, player, "skill_roll", faces=[1, 2], actor=key(luwe), skill="Perception", intent="advantage")
    go(enc, player, "end_turn", actor=key(luwe))  # the party has 1 Advantage
    go(enc, other_player, "claim_turn", actor=key(furo))
    assert "Reroll the" not in me(enc, player)  # nothing to rescue yet
    go(
        enc,
        other_player,
        "skill_roll",
        faces=[4, 4],
        actor=key(furo),
        skill="Melee",
        intent="attack",
        target=key(npc, 1),
    )
    page = me(enc, player)
    assert waiting(page).startswith(
        "Phase 2: Furo is taking their turn and the GM decides what follows the failed "
        "roll — Luwe has had a turn this round."
    )
    assert "Out of turn you may spend one of the party’s Advantages on Furo’s failed roll" in waiting(page)
    assert "Furo’s roll failed on doubles (4, 4)." in page
    assert page.count(">Reroll the 4</button>") == 2
    go(enc, player, "spend_advantage", faces=[9], actor=key(luwe), die=1)  # Luwe spends for Furo: 4, 9 hits
    state = state_of(enc)
    assert (state.advantages, state.pending_failure, state.turn) == (0, False, key(furo))
    assert state.fighter(key(npc, 1)).health == state.fighter(key(npc, 1)).health_max - 1
    log = [e.players_text for e in enc.events.order_by("-seq")[:1]]
    assert log == ["Luwe spends an Advantage to reroll die 2 of Furo's roll: it shows 9."]
    assert "Reroll the" not in me(enc, player)


def test_a_downed_pc_cannot_spend_the_partys_advantages(enc, gm, player, other_player, luwe, furo, npc):
    to_phase_2(enc, gm, npc, luwe, furo)
    go(enc, gm, "start_players")
    go(enc, player, "claim_turn", actor=key(luwe))
    go(enc, player, "skill_roll", faces=[1, 2], actor=key(luwe), skill="Perception", intent="advantage")
    go(enc, player, "end_turn", actor=key(luwe))
    go(enc, gm, "adjust_health", target=key(luwe), change=-3)
    go(enc, other_player, "claim_turn", actor=key(furo))
    go(enc, other_player, "skill_roll", faces=[4, 4], actor=key(furo), skill="Melee", intent="other")
    assert "Reroll the" not in me(enc, player)
    result = services.submit(
        enc.pk,
        player,
        "spend_advantage",
        {"actor": key(luwe), "die": "0"},
        "down",
        from_form=True,
        dice=ScriptedDice([1]),
    )
    assert result.error == "Luwe is at 0 Health Levels and cannot act."


def test_a_phone_reads_its_own_controls_before_the_table(enc, gm, player, campaign):
    enc.refresh_from_db()
    page = fragments.for_viewer(enc, store.load_state(enc), Membership.objects.get(campaign=campaign, user=player))
    assert page.index(f'id="enc-{enc.pk}-me"') < page.index(f'id="enc-{enc.pk}-table"')
