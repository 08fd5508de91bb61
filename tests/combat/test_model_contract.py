"""Every registered combat model against the one contract (combat/rules/contract.py, combat/tables/base.py).

The engine has every member of `Engine`, its functions take the parameters Fray calls them with, its state is
what Fray reads of any state; every command has a name, a label and a `who` the services understand, every event
a kind of its own, and the codec round-trips a sample of each through JSON; the table is a `Table` with its
template and partials, and every command its templates post is one of the model's own (or the generic `undo`).

Then a toy model from tests/combat/toy_model/, registered only while a test runs, is played the way the README
(combat/rules/README.md) says a new model is added: a rules module, a table, a template folder and one registry
line, and not one production file knows it.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import types
import typing
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.template.loader import get_template
from django.urls import reverse

from campaigns.models import Character
from combat import fragments, review, services, store, tables
from combat.models import Encounter
from combat.rules import registry
from combat.rules.contract import WHO, Combatant, Engine, GameState
from combat.rules.core import MARKERS, Command, Event, RuleError, from_json, to_json
from combat.rules.dice import ScriptedDice
from combat.tables.base import Table
from tests.combat.test_consumers import receive, receive_update, sockets  # noqa: F401  (fixture)
from tests.combat.toy_model import rules as toy_rules

BUILT_IN = sorted(registry.MODELS)  # read when the tests are collected: the toy model is not among them
GENERIC_COMMANDS = {services.UNDO, services.END}
TOY_TEMPLATES = Path(__file__).parent / "toy_model" / "templates"


# --- the checks, one function each, run on every registered model and on the toy model ------------------------------


def _members(protocol: type) -> set[str]:
    """The names a protocol declares (typing.get_protocol_members, but Python 3.12 has not got it)."""
    return {name for name in vars(protocol) if not name.startswith("_")}


def _parameters(function) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(function).parameters.values() if p.name != "self"]


def check_engine(engine) -> None:
    """Every member of the protocol, functions called as Fray calls them, a state Fray can read."""
    for name in _members(Engine):
        assert hasattr(engine, name), f"the engine has no {name}"
    for name in ("decide", "evolve", "describe", "fighter_from_sheet", "write_back", "outcome"):
        wanted, given = _parameters(getattr(Engine, name)), _parameters(getattr(engine, name))
        assert [p.name for p in given[: len(wanted)]] == [p.name for p in wanted], name
        given_defaults = [g.default is not g.empty for g in given[: len(wanted)]]
        assert all(has for w, has in zip(wanted, given_defaults, strict=True) if w.default is not w.empty), name
        assert all(p.default is not p.empty for p in given[len(wanted) :]), f"{name} takes more than Fray gives"
    assert callable(engine.initial_state)
    state = engine.State
    assert dataclasses.is_dataclass(state) and state.__dataclass_params__.frozen
    fields = {f.name for f in dataclasses.fields(state)}
    for name in _members(GameState):
        assert name in fields or hasattr(state, name), f"the state has no {name}"
    fighter = typing.get_type_hints(state)["fighters"]
    assert typing.get_origin(fighter) is tuple, "fighters is a tuple of frozen dataclasses"
    fighter_fields = {f.name for f in dataclasses.fields(typing.get_args(fighter)[0])}
    assert _members(Combatant) <= fighter_fields
    assert engine.KEY in registry.MODELS and registry.get(engine.KEY).engine is engine


def check_commands_and_events(engine) -> None:
    names = [c.name for c in engine.COMMANDS]
    kinds = [e.kind for e in engine.EVENTS]
    assert all(names) and len(set(names)) == len(names), names
    assert all(kinds) and len(set(kinds)) == len(kinds), kinds
    assert not {m.kind for m in MARKERS} & set(kinds), "an event may not take the kind of the log's own markers"
    assert not GENERIC_COMMANDS & set(names), "undo and end_encounter are every model's, run by the services"
    for command in engine.COMMANDS:
        assert issubclass(command, Command) and dataclasses.is_dataclass(command), command
        assert command.label, f"{command.__name__} has no label"
        assert command.who in WHO, f"{command.__name__}: who={command.who!r}"
        if command.who == "owner":  # the services check the player against the command's actor
            assert "actor" in {f.name for f in dataclasses.fields(command)}, command.__name__
    for event in engine.EVENTS:
        assert issubclass(event, Event) and dataclasses.is_dataclass(event), event
        # An event whose audience depends on its data (a free roll: free_roll.DiceRolled) works it out in a property.
        assert isinstance(event.audience, property) or event.audience in ("public", "gm"), event.__name__
    assert engine.CODEC.commands == {c.name: c for c in engine.COMMANDS}
    assert set(engine.CODEC.events) == set(kinds) | {m.kind for m in MARKERS}


def sample(tp):
    """A value of type `tp` with nothing left at its default, so a field the codec drops would show."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return sample(next(a for a in args if a is not type(None)))
    if origin is tuple:
        return (sample(args[0]), sample(args[0])) if args[-1] is Ellipsis else tuple(sample(a) for a in args)
    if origin is dict:
        return {"k": sample(args[1])}
    if origin is typing.Literal:
        return args[-1]
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: sample(hints[f.name]) for f in dataclasses.fields(tp) if f.init})
    return {bool: True, int: 7, float: 0.5, str: "s7", typing.Any: "s7"}[tp]


def through_json(value):
    return json.loads(json.dumps(value))


def check_codec(engine) -> None:
    codec = engine.CODEC
    for event_class in engine.EVENTS:
        event = sample(event_class)
        assert codec.event_from_json(through_json(codec.event_to_json(event))) == event, event_class.__name__
    for command_class in engine.COMMANDS:
        command = sample(command_class)
        assert codec.command_from_json(command.name, through_json(to_json(command))) == command, command.name
    state = sample(engine.State)
    assert from_json(engine.State, through_json(to_json(state))) == state


INCLUDE = re.compile(r'{%\s*include\s+"([^"]+)"(.*?)%}', re.S)
TAG = re.compile(r"<[a-z]+\b[^>]*>", re.S)
ATTRIBUTE = re.compile(r'([\w:-]+)="([^"]*)"')


def posted_commands(template_name: str, seen: set[str] | None = None) -> tuple[set[str], list[str]]:
    """(the commands the template and every template it includes post, problems): a form's
    `name="command" value="…"`, or an include's `with command="…"` (combat/act_button.html posts its `command`)."""
    seen = set() if seen is None else seen
    seen.add(template_name)
    source = Path(get_template(template_name).origin.name).read_text()
    found: set[str] = set()
    problems: list[str] = []
    for tag in TAG.findall(source):
        attributes = dict(ATTRIBUTE.findall(tag))
        if attributes.get("name") != "command":
            continue
        value = attributes.get("value", "")
        if "{{" not in value:
            found.add(value)
        elif value.replace(" ", "") != "{{command}}":  # only an include's `with command="…"` may fill it in
            problems.append(f"{template_name} posts a command worked out at render time: {value}")
    for name, rest in INCLUDE.findall(source):
        found.update(re.findall(r'\bcommand="([^"]*)"', rest))
        if name not in seen:
            more, trouble = posted_commands(name, seen)
            found |= more
            problems += trouble
    return found, problems


def check_table(model) -> None:
    table = tables.get(model.key)
    assert isinstance(table, Table) and type(table) is not Table and table.model is model
    assert table.template == f"combat/{model.key}/fragments.html"
    for part in ("table", "gm", "me"):
        get_template(f"{table.template}#{part}")  # TemplateDoesNotExist if a partial is missing
    assert table.PERSISTS.strip().endswith(".")
    commands, problems = posted_commands(table.template)
    assert problems == []
    assert commands, "no command found: the parser no longer reads these templates"
    unknown = commands - {c.name for c in model.engine.COMMANDS} - GENERIC_COMMANDS
    assert unknown == set(), f"{model.key}'s templates post commands it does not have"


@pytest.mark.parametrize("key", BUILT_IN)
def test_the_engine_keeps_the_protocol(key):
    check_engine(registry.get(key).engine)


@pytest.mark.parametrize("key", BUILT_IN)
def test_every_command_is_named_labelled_and_says_who_and_every_event_has_its_own_kind(key):
    check_commands_and_events(registry.get(key).engine)


@pytest.mark.parametrize("key", BUILT_IN)
def test_the_codec_round_trips_a_sample_of_every_event_command_and_the_state(key):
    check_codec(registry.get(key).engine)


@pytest.mark.parametrize("key", BUILT_IN)
def test_the_table_has_its_template_and_posts_only_its_own_commands(key):
    check_table(registry.get(key))


def test_the_template_check_catches_a_command_the_model_does_not_have(tmp_path, settings):
    (tmp_path / "combat" / "broken").mkdir(parents=True)
    (tmp_path / "combat" / "broken" / "fragments.html").write_text(
        '<input type="hidden" name="command" value="fly">\n'
        '{% include "combat/act_button.html" with command="teleport" label="Go" %}\n'
        '<input name="command" value="{{ m.command }}">'
    )
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}]
    commands, problems = posted_commands("combat/broken/fragments.html")
    assert commands == {"fly", "teleport"}
    assert problems == ["combat/broken/fragments.html posts a command worked out at render time: {{ m.command }}"]


@dataclasses.dataclass(frozen=True)
class Shout(Command):
    name: typing.ClassVar[str] = "shout"
    label: typing.ClassVar[str] = "Shout"
    who: typing.ClassVar[str] = "anyone"  # the services would treat it as the GM's


@dataclasses.dataclass(frozen=True)
class Echo(Event):
    kind: typing.ClassVar[str] = "turn_passed"  # taken by the toy's TurnPassed


def _toy_with(**changes):
    """The toy rules with some names changed (None: left out)."""
    names = {**vars(toy_rules), **changes}
    return types.SimpleNamespace(**{k: v for k, v in names.items() if v is not None})


@pytest.mark.parametrize(
    "check, engine, message",
    [
        (check_engine, _toy_with(outcome=None), "the engine has no outcome"),
        (check_engine, _toy_with(decide=lambda state, order, dice: []), "decide"),
        (check_engine, _toy_with(describe=lambda state, event, gm: ""), "describe"),
        (check_commands_and_events, _toy_with(COMMANDS=(*toy_rules.COMMANDS, Shout)), "Shout: who='anyone'"),
        (check_commands_and_events, _toy_with(EVENTS=(*toy_rules.EVENTS, Echo)), "turn_passed"),
    ],
)
def test_the_checks_catch_a_model_that_breaks_the_contract(check, engine, message):
    with pytest.raises(AssertionError, match=re.escape(message)):
        check(engine)


# --- the toy model: added from the test folder, registered only while a test runs -----------------------------------

TOY = registry.CombatModel(
    "toy",
    "Toy tracker",
    "Highest initiative first.",
    toy_rules.STATS,
    toy_rules.SUMMARY,
    toy_rules,
    "tests.combat.toy_model.table.ToyTable",
)


@pytest.fixture
def toy(settings):
    """The toy model registered (the one registry line) with its template folder found, for one test."""
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], TOY_TEMPLATES]}]
    registry.register(TOY)
    yield TOY
    registry.unregister(TOY.key)


def test_the_toy_model_keeps_the_contract(toy):
    check_engine(toy.engine)
    check_commands_and_events(toy.engine)
    check_codec(toy.engine)
    check_table(toy)


def test_registering_a_model_needs_no_migration(toy, db):
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)  # exits (SystemExit) on a change


def test_the_forms_offer_a_registered_model_and_refuse_it_once_it_is_gone(toy, client, gm, campaign):
    client.force_login(gm)
    builder = client.get(reverse("encounter_create", args=[campaign.pk]), {"model": "toy"}).content.decode()
    assert '<option value="toy" selected>Toy tracker</option>' in builder and "Initiative die" in builder
    created = client.post(
        reverse("character_create", args=[campaign.pk]),
        {
            "name": "Pip",
            "system": "toy",
            "kind": "pc",
            "quantity": "1",
            "s_health": "4",
            "s_health_max": "6",
            "s_initiative_mod": "2",
        },
    )
    assert created.status_code == 302
    assert Character.objects.get(name="Pip").full_stats() == {"health": 4, "health_max": 6, "initiative_mod": 2}
    registry.unregister("toy")
    refused = client.post(reverse("character_create", args=[campaign.pk]), {"name": "Pop", "system": "toy"})
    assert refused.status_code == 400 and "Choose one of the four combat models." in refused.content.decode()
    assert not Character.objects.filter(name="Pop").exists()
    with pytest.raises(RuleError, match="Choose one of the combat models Fray plays."):
        services.create_encounter(campaign, gm, name="Gone", model="toy", pcs=[], enemies=[])


def toy_characters(campaign, player):
    pc = Character.objects.create(
        campaign=campaign,
        name="Pip",
        owner=player,
        system="toy",
        stats={"health": 6, "health_max": 6, "initiative_mod": 2},
    )
    npc = Character.objects.create(
        campaign=campaign,
        name="Grub",
        kind="npc",
        system="toy",
        stats={"health": 7, "health_max": 9, "initiative_mod": 5},
    )
    return pc, npc


def toy_encounter(campaign, gm, pc, npc) -> Encounter:
    encounter = services.create_encounter(
        campaign, gm, name="Toy fight", model="toy", pcs=[pc], enemies=[(npc, 1)], settings={"die": "10"}
    )
    services.start_encounter(encounter, gm)
    encounter.refresh_from_db()
    return encounter


def act(user, encounter, name, data, key, faces=()):
    return services.submit(encounter.pk, user, name, data, key, dice=ScriptedDice(faces))


def test_the_toy_model_plays_through_the_services_and_renders_each_audience(toy, campaign, gm, player, other_player):
    pc, npc = toy_characters(campaign, player)
    encounter = toy_encounter(campaign, gm, pc, npc)
    grub, pip = f"npc{npc.pk}-1", f"pc{pc.pk}"
    assert act(gm, encounter, "roll_initiative", {}, "k1", faces=[4, 4]).ok  # Grub 4 + 5 = 9, Pip 4 + 2 = 6
    assert act(gm, encounter, "adjust_health", {"target": grub, "change": -3}, "k2").ok
    refused = act(player, encounter, "next_turn", {"actor": pip}, "k3")
    assert (refused.ok, refused.error) == (False, "It is not your turn.")
    assert act(other_player, encounter, "next_turn", {"actor": pip}, "k4").error == (
        "You can act only for your own character."
    )
    assert act(player, encounter, "adjust_health", {"target": pip, "change": 5}, "k5").error == (
        "Only the GM can do that."
    )
    assert act(gm, encounter, "next_turn", {}, "k6").ok  # Grub's turn passes to Pip
    encounter.refresh_from_db()

    state = store.load_state(encounter)
    gm_html = fragments.for_gm(encounter, state)
    assert "Grub (9)" in gm_html and "Pip (6)" in gm_html and "4/9 health" in gm_html
    assert "Round 1 · Pip's turn" in gm_html and 'value="adjust_health"' in gm_html
    players_html = fragments.for_players(encounter, state) + fragments.me_html(encounter, state, player.pk)
    assert "Pip (6)" in players_html and "Grub" in players_html and "4/9" not in players_html
    assert "Grub (9)" not in players_html
    assert "Your turn!" in players_html and "End my turn" in players_html
    assert "Your turn!" not in fragments.me_html(encounter, state, other_player.pk)

    assert act(player, encounter, "next_turn", {"actor": pip}, "k7").ok  # back to Grub: round 2
    assert act(gm, encounter, "adjust_health", {"target": pip, "change": -2}, "k8").ok
    assert act(gm, encounter, services.END, {}, "k9").ok  # the Table's own write_back: health to the sheet
    pc.refresh_from_db()
    assert pc.stats["health"] == 4
    encounter.refresh_from_db()
    log = review.build(encounter, is_gm=False)  # a model without a review module: the timeline only
    assert [e.text for e in log.entries][-3:] == [
        "Grub's turn (round 2).",
        "Pip is at 4 health.",
        "The GM ended the encounter.",
    ]
    assert "Grub is at" not in " ".join(e.text for e in log.entries)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("asgi_loaded")
async def test_a_player_socket_receives_the_toy_table_after_a_gm_action(toy, campaign, gm, player, sockets):  # noqa: F811
    pc, npc = await sync_to_async(toy_characters)(campaign, player)
    encounter = await sync_to_async(toy_encounter)(campaign, gm, pc, npc)
    phone, connected, _ = await sockets(player, encounter)
    assert connected
    [first] = await receive(phone, 1)
    assert "Waiting for initiative" in first
    assert (await sync_to_async(act)(gm, encounter, "roll_initiative", {}, "k1", faces=[4, 4])).ok
    table, mine = await receive_update(phone, encounter.pk)
    assert "Round 1 · Grub's turn" in table and "Pip (6)" in table and "Grub (9)" not in table
    assert "6/6 health" in mine and "Your turn!" not in mine
    assert (await sync_to_async(act)(gm, encounter, "next_turn", {}, "k2")).ok
    table, mine = await receive_update(phone, encounter.pk)
    assert "Round 1 · Pip's turn" in table
    assert "Your turn!" in mine and 'value="next_turn"' in mine
