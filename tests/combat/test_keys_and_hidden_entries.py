"""Idempotency keys tell a player nothing about what anyone else did, and a player's table is what it would be
if the entries hidden from them did not exist: no frame, no version, no undo marker, no verdict of theirs."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from combat import fragments, selectors, services, store
from combat.models import EncounterEvent
from combat.rules.dice import ScriptedDice

pytestmark = pytest.mark.django_db


@pytest.fixture
def ambush(campaign, gm, pc, other_pc, npc):
    """Two Nivicks: the first in sight, the second unseen by the party."""
    from campaigns.models import Character

    sniper = Character.objects.create(campaign=campaign, name="Hidden Sniper", kind="npc", system="burn_bryte")
    encounter = services.create_encounter(
        campaign,
        gm,
        name="Ambush",
        model="burn_bryte",
        pcs=[pc, other_pc],
        enemies=[(npc, 1), (sniper, 1)],
        hidden={sniper.pk},
    )
    encounter = services.start_encounter(encounter, gm)
    encounter.sniper = f"npc{sniper.pk}-1"
    return encounter


def act(user, encounter, **form):
    client = Client()
    client.force_login(user)
    return client.post(
        reverse("encounter_act", args=[encounter.campaign_id, encounter.pk]), form, headers={"HX-Request": "true"}
    )


def notice(response) -> str:
    found = re.search(r'-notice"[^>]*>([^<]*)</p>', response.content.decode())
    return found.group(1) if found else ""


def events(encounter):
    return list(EncounterEvent.objects.filter(encounter=encounter).values_list("seq", "kind", "idempotency_key"))


# --- keys ---------------------------------------------------------------------------------------------------------


def test_a_player_replaying_a_guessed_gm_form_learns_nothing_whether_the_gm_sent_it(ambush, gm, player):
    form = {"command": "adjust_health", "key": f"{ambush.pk}-0-health", "target": ambush.sniper, "change": "-1"}
    untouched = act(player, ambush, **form)
    assert act(gm, ambush, **form).status_code == 200
    before = events(ambush)
    after_the_gm = act(player, ambush, **form)
    assert notice(after_the_gm) == notice(untouched) == "Only the GM can do that."
    assert events(ambush) == before  # and nothing changed


def test_a_player_guessing_an_enemys_id_gets_the_same_answer_as_for_an_id_that_does_not_exist(ambush, player):
    real = act(player, ambush, command="claim_turn", key="k1", actor=ambush.sniper)
    made_up = act(player, ambush, command="claim_turn", key="k2", actor="npc999999-1")
    assert notice(real) == notice(made_up) == "You can act only for your own character."


def test_two_players_sending_the_same_key_each_act_once(ambush, gm, player, other_player, pc, other_pc, npc):
    for n, enemy in enumerate((f"npc{npc.pk}-1", ambush.sniper)):
        assert services.submit(
            ambush.pk, gm, "declare", {"enemy": enemy, "target": f"pc{pc.pk}", "text": "aim"}, f"d{n}"
        ).ok
    assert services.submit(ambush.pk, gm, "start_players", {}, "go").ok
    first = services.submit(ambush.pk, player, "claim_turn", {"actor": f"pc{pc.pk}"}, "same-key")
    services.submit(ambush.pk, player, "end_turn", {"actor": f"pc{pc.pk}"}, "end")
    second = services.submit(ambush.pk, other_player, "claim_turn", {"actor": f"pc{other_pc.pk}"}, "same-key")
    assert first.ok and second.ok and not second.duplicate
    again = services.submit(ambush.pk, other_player, "claim_turn", {"actor": f"pc{other_pc.pk}"}, "same-key")
    assert again.duplicate and again.seqs == second.seqs  # each sender's own double tap still acts once


def test_form_keys_cannot_be_guessed_from_the_table(ambush, gm):
    state = store.load_state(ambush)
    keys = [re.findall(r'name="key" value="([^"]+)"', fragments.Renderer(ambush, state).for_gm()) for _ in (1, 2)]
    assert keys[0] and len(keys[0]) == len(keys[1])
    assert not set(keys[0]) & set(keys[1])  # the same table rendered twice: no key in common
    prefix = f"{ambush.pk}-{ambush.version}-"  # 72 random bits (12 URL-safe characters, "-" among them) follow
    assert all(key.startswith(prefix) and len(key) >= len(prefix) + 12 for key in keys[0])


# --- what players never learn ------------------------------------------------------------------------------------


def players_table(encounter):
    encounter.refresh_from_db()
    return fragments.Renderer(encounter, store.load_state(encounter)).for_players()


def version_of(html) -> int:
    return int(re.search(r'data-version="(\d+)"', html).group(1))


def test_an_action_hidden_from_players_sends_them_no_frame_and_leaves_their_version(
    ambush, gm, npc, broadcasts, django_capture_on_commit_callbacks
):
    before = version_of(players_table(ambush))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.submit(ambush.pk, gm, "spend_collapse", {"enemy": ambush.sniper, "note": "aim"}, "c").ok
    assert [group for group, _ in broadcasts] == [f"enc-{ambush.pk}-gm"]
    assert version_of(players_table(ambush)) == before
    broadcasts.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.submit(ambush.pk, gm, "adjust_health", {"target": f"npc{npc.pk}-1", "change": -1}, "h").ok
    assert f"enc-{ambush.pk}-players" in [group for group, _ in broadcasts]


def test_undoing_an_entry_hidden_from_players_is_hidden_from_them_too(
    ambush, gm, player, broadcasts, django_capture_on_commit_callbacks
):
    services.submit(ambush.pk, gm, "spend_collapse", {"enemy": ambush.sniper, "note": "aim"}, "c")
    before = players_table(ambush)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.submit(ambush.pk, gm, "undo", {}, "u").ok
    assert [group for group, _ in broadcasts] == [f"enc-{ambush.pk}-gm"]
    after = players_table(ambush)
    assert "undid" not in after and version_of(after) == version_of(before)
    ambush.refresh_from_db()
    gm_log = [entry.text for entry in selectors.log_view(ambush, gm=True)]
    assert gm_log[0] == "The GM undid the last action."


def test_undoing_an_entry_players_read_is_told_to_them(ambush, gm, pc):
    services.submit(ambush.pk, gm, "adjust_health", {"target": f"pc{pc.pk}", "change": -1}, "h")
    services.submit(ambush.pk, gm, "undo", {}, "u")
    ambush.refresh_from_db()
    assert selectors.log_view(ambush, gm=False)[0].text == "The GM undid the last action."


def test_players_judge_the_fight_by_the_enemies_they_know_of(ambush, gm, player, npc):
    services.submit(
        ambush.pk, gm, "adjust_health", {"target": f"npc{npc.pk}-1", "change": -9}, "down", dice=ScriptedDice(())
    )
    ambush.refresh_from_db()
    assert ambush.outcome_for(gm=True) == "In progress"  # the sniper still stands
    assert ambush.outcome_for(gm=False) == "In progress (victory)"  # every enemy the party knows of is down
    client = Client()
    client.force_login(player)
    page = client.get(reverse("encounters", args=[ambush.campaign_id])).content.decode()
    assert "In progress (victory)" in page


def test_a_players_export_numbers_their_entries_without_the_gaps_hidden_ones_would_leave(ambush, gm, pc, npc):
    import io
    import json

    from combat import exports

    steps = [
        ("spend_collapse", {"enemy": ambush.sniper, "note": "aim"}),  # the GM's alone
        ("adjust_health", {"target": f"pc{pc.pk}", "change": -1}),
        ("adjust_health", {"target": ambush.sniper, "change": -1}),  # the unseen sniper: hidden
        ("undo", {}),  # takes back the hidden entry: hidden too
        ("adjust_health", {"target": f"npc{npc.pk}-1", "change": -1}),
        ("undo", {}),
    ]  # takes back an entry players read
    for n, (name, data) in enumerate(steps):
        assert services.submit(ambush.pk, gm, name, data, f"s{n}").ok, name
    ambush.refresh_from_db()
    out = io.StringIO()
    exports.write_json(ambush, gm_view=False, out=out)
    events = json.loads(out.getvalue())["events"]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert [e["kind"] for e in events] == ["health_adjusted", "health_adjusted", "undone"]
    assert events[2]["data"] == {"seqs": [2]} and events[1]["undone"]
    out = io.StringIO()
    exports.write_csv(ambush, gm_view=False, out=out)
    assert [line.split(",")[0] for line in out.getvalue().splitlines()[1:]] == ["1", "2", "3"]
    out = io.StringIO()
    exports.write_json(ambush, gm_view=True, out=out)
    assert [e["seq"] for e in json.loads(out.getvalue())["events"]] == [1, 2, 3, 4, 5, 6]  # the GM's: the whole log
