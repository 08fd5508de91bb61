"""Revealing an unseen combatant, in the rules core of every model that hides combatants.

An enemy outside every PC's `aware_of` is "someone unseen" to players. The GM may reveal it at any time (a
`Reveal` command, a `Revealed` event in the log, undoable like any other), and the rules reveal an unseen
attacker when it attacks if the GM's `attack_reveals` setting (on by default) says so.
"""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.rules import burn_bryte as bb
from combat.rules import expanse as ex
from combat.rules import hero as h
from combat.rules.core import (
    Logged,
    Reveal,
    Revealed,
    RuleError,
    Sight,
    Undone,
    clean_settings,
    replay,
    to_json,
    wording,
)
from combat.rules.dice import ScriptedDice


class Log:
    """Runs commands through one engine's decide/evolve and keeps the log, like the service does."""

    def __init__(self, engine, state):
        self.engine = engine
        self.initial = state
        self.state = state
        self.log: list[Logged] = []
        self.batches: list[tuple[int, ...]] = []

    def do(self, command, faces=()):
        events = self.engine.decide(self.state, command, ScriptedDice(faces))
        seqs = []
        for event in events:
            seqs.append(len(self.log) + 1)
            self.log.append(Logged(seq=seqs[-1], event=event))
            self.state = self.engine.evolve(self.state, event)
        self.batches.append(tuple(seqs))
        return events

    def undo_last(self):
        self.log.append(Logged(seq=len(self.log) + 1, event=Undone(seqs=self.batches.pop())))
        self.state = replay(self.engine.evolve, self.initial, self.log)


def unseen(state, fid):
    return Sight(state.fighters, gm=False).unseen(fid)


def players_words(engine, state, event):
    return wording(engine.describe, state, event)[1]


# --- Burn Bryte ---------------------------------------------------------------------------------------------------


def bb_start(**settings_):
    pcs = tuple(
        bb.Fighter(id=k, name=n, side="pc", owner=o, skills={"Melee": 8, "Ranged": 10}, aware_of=("boss",))
        for k, n, o in (("luwe", "Luwe", 1), ("balla", "Ballallanava", 2), ("furo", "Furo", 3))
    )
    enemies = (
        bb.Fighter(id="boss", name="Nivick boss", side="enemy", health=3, health_max=3, aware_of=("luwe", "balla")),
        bb.Fighter(id="sniper", name="Nivick sniper", side="enemy", aware_of=("luwe", "balla", "furo")),
    )
    return bb.initial_state(pcs + enemies, livability=3, settings=clean_settings(bb.SETTINGS, settings_))


def test_burn_bryte_gm_reveals_an_unseen_enemy_and_undoes_it():
    """Rules notes (burn-bryte.md): "PCs may only target enemies they are aware of." The sniper starts unseen; the
    GM's reveal makes every PC aware of it, the players' log names it, and undo hides it again."""
    t = Log(bb, bb_start())
    assert unseen(t.state, "sniper")
    before = t.state
    [event] = t.do(Reveal(fighter="sniper"))
    assert event == Revealed(fighter="sniper")
    assert players_words(bb, before, event) == "Nivick sniper is revealed."
    assert not unseen(t.state, "sniper")
    assert all("sniper" in f.aware_of for f in t.state.pcs())
    t.undo_last()
    assert t.state == before


def test_burn_bryte_reveal_refuses_a_combatant_in_sight():
    state = bb_start()
    with pytest.raises(RuleError, match="already in sight"):
        bb.decide(state, Reveal(fighter="boss"), ScriptedDice(()))
    with pytest.raises(RuleError, match="not in this encounter"):
        bb.decide(state, Reveal(fighter="nobody"), ScriptedDice(()))


def test_burn_bryte_a_revealed_enemy_can_be_attacked():
    """Seed 000, Phase 2: "Player characters can only target enemies they are aware of." Once revealed, they are."""
    t = Log(bb, bb_start())
    t.do(bb.Declare(enemy="boss", target="luwe"))
    t.do(bb.Declare(enemy="sniper", target="furo", text="long rifle"))
    t.do(bb.StartPlayers())
    t.do(bb.ClaimTurn(actor="luwe"))
    with pytest.raises(RuleError, match="not aware of"):
        bb.decide(
            t.state, bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="sniper"), ScriptedDice(())
        )
    t.do(Reveal(fighter="sniper"))
    [rolled] = t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="sniper"), faces=[1, 7])
    assert rolled.roll.succeeded and t.state.fighter("sniper").health == 2


def _to_phase_three(t):
    t.do(bb.Declare(enemy="boss", target="luwe"))
    t.do(bb.Declare(enemy="sniper", target="furo", text="long rifle"))
    t.do(bb.StartPlayers())
    for pc in ("luwe", "balla", "furo"):
        t.do(bb.ClaimTurn(actor=pc))
        t.do(bb.EndTurn(actor=pc))
    t.do(bb.StartEnemies())


def test_burn_bryte_an_unseen_attacker_is_revealed_when_its_attack_resolves():
    """Seed 000, Phase 3: the enemies' declared actions resolve; an attack gives the attacker away when the GM's
    setting "An unseen combatant is revealed when it attacks" is on (the default; the notes leave it open)."""
    t = Log(bb, bb_start())
    _to_phase_three(t)
    before = t.state
    events = t.do(bb.Resolve(declaration=2, outcome="hit", damage=1))
    assert events[0] == Revealed(fighter="sniper", cause="attack")
    assert players_words(bb, before, events[0]) == "Nivick sniper is revealed as it attacks."
    assert not unseen(t.state, "sniper") and t.state.fighter("furo").health == 2
    t.undo_last()  # the reveal came with the attack: one undo takes back both
    assert t.state == before


def test_burn_bryte_attacking_keeps_it_unseen_when_the_gm_says_so():
    t = Log(bb, bb_start(attack_reveals=False))
    _to_phase_three(t)
    events = t.do(bb.Resolve(declaration=2, outcome="hit", damage=1))
    assert [type(e) for e in events] == [bb.Resolved]
    assert unseen(t.state, "sniper")


def test_burn_bryte_the_setting_defaults_to_reveal_and_an_older_encounter_keeps_its_rules():
    """A new encounter stores the default (on); one started before the setting existed has no key: no reveal."""
    assert bb_start().settings["attack_reveals"] is True
    t = Log(bb, replace(bb_start(), settings={"surprise": "none"}))
    _to_phase_three(t)
    assert [type(e) for e in t.do(bb.Resolve(declaration=2, outcome="hit", damage=1))] == [bb.Resolved]


def test_burn_bryte_players_never_read_the_unseen_name_before_the_reveal():
    t = Log(bb, bb_start())
    _to_phase_three(t)
    t.do(Reveal(fighter="sniper"))
    states = [t.initial]
    for item in t.log:
        states.append(bb.evolve(states[-1], item.event))
    first_reveal = next(i for i, item in enumerate(t.log) if isinstance(item.event, Revealed))
    for i, item in enumerate(t.log):
        words = players_words(bb, states[i], item.event)
        assert ("Nivick sniper" in words) == (i == first_reveal), (i, words)


# --- every engine: a reveal and its undo -------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(hidden=st.sets(st.sampled_from(["boss", "sniper"]), min_size=1), which=st.data())
def test_burn_bryte_reveal_then_undo_is_the_state_before(hidden, which):
    """Design notes: undo(x) then replay == state before x, for a reveal too; and a reveal only adds awareness."""
    start = bb_start()
    pcs = tuple(replace(f, aware_of=tuple(e for e in ("boss", "sniper") if e not in hidden)) for f in start.pcs())
    state = replace(start, fighters=pcs + start.enemies())
    t = Log(bb, state)
    fid = which.draw(st.sampled_from(sorted(hidden)))
    t.do(Reveal(fighter=fid))
    assert not unseen(t.state, fid)
    assert {f.id for f in t.state.fighters if unseen(t.state, f.id)} == hidden - {fid}
    t.undo_last()
    assert to_json(t.state) == to_json(state)


# --- The Expanse --------------------------------------------------------------------------------------------------

EX_ZERO = dict.fromkeys(ex.ABILITIES, 0)


def ex_start(**settings_):
    def fighter(id, name, side, owner=None, **kw):
        abilities = {**EX_ZERO, "Accuracy": 3, "Dexterity": 2}
        return ex.Fighter(
            id=id, name=name, side=side, owner=owner, abilities=abilities, defense=11, weapons=("pistol",), **kw
        )  # the pistol in hand from the start

    fighters = (
        fighter("luwe", "Luwe", "pc", 1, aware_of=("thug",)),
        fighter("furo", "Furo", "pc", 2, aware_of=("thug",)),
        fighter("thug", "Thug", "enemy", aware_of=("luwe", "furo")),
        fighter("sniper", "Belter sniper", "enemy", aware_of=("luwe", "furo")),
    )
    state = ex.initial_state(fighters, settings_)
    order = ("sniper", "luwe", "thug", "furo")
    ranks = {fid: 20 - i for i, fid in enumerate(order)}
    state = replace(
        state,
        fighters=tuple(replace(f, initiative=ranks[f.id]) for f in state.fighters),
        order=order,
        initiative_rolled=True,
    )
    t = Log(ex, state)
    t.do(ex.NextTurn())
    return t


def ex_shot(actor, target):
    return ex.Attack(actor=actor, action="ranged_attack", weapon="pistol", target=target, distance=10)


def test_expanse_the_sniper_is_revealed_when_it_attacks():
    """Issue 17: "the Expanse sniper attacked twice and stayed 'someone unseen'". With the GM's setting "An unseen
    combatant is revealed when it attacks" (on by default) its first shot gives it away, and players read its name;
    undo takes back the shot and the reveal together."""
    t = ex_start()
    before = t.state
    events = t.do(ex_shot("sniper", "luwe"), faces=[1, 2, 3])
    assert events[0] == Revealed(fighter="sniper", cause="attack")
    assert players_words(ex, before, events[0]) == "Belter sniper is revealed as it attacks."
    assert players_words(ex, t.state, events[1]).startswith("Belter sniper makes a Ranged Attack")
    assert not unseen(t.state, "sniper")
    t.undo_last()
    assert t.state == before


def test_expanse_the_sniper_stays_unseen_when_the_gm_says_attacks_do_not_reveal():
    t = ex_start(attack_reveals=False)
    before = t.state
    [event] = t.do(ex_shot("sniper", "luwe"), faces=[1, 2, 3])
    assert players_words(ex, before, event).startswith("Someone unseen makes a Ranged Attack")
    assert unseen(t.state, "sniper")


def test_expanse_a_pc_attacks_only_a_visible_enemy_until_the_gm_reveals_the_sniper():
    """Seed 004: "Ranged Attack | You fire or throw a ranged weapon at one visible enemy within range." A PC cannot
    shoot at the unseen sniper (and the refusal does not name it); once the GM reveals it, Luwe can."""
    t = ex_start(attack_reveals=False)
    t.do(ex.EndTurn(actor="sniper"))
    assert t.state.turn == "luwe"
    with pytest.raises(RuleError) as refused:
        ex.decide(t.state, ex_shot("luwe", "sniper"), ScriptedDice([1, 2, 3]))
    assert "Belter" not in str(refused.value) and "cannot see" in str(refused.value)
    [revealed] = t.do(Reveal(fighter="sniper"))
    assert players_words(ex, t.initial, revealed) == "Belter sniper is revealed."
    events = t.do(ex_shot("luwe", "sniper"), faces=[1, 2, 3])
    assert [type(e) for e in events][0] is ex.Tested and events[0].test.target == "sniper"


def test_expanse_reveal_refuses_one_in_sight():
    with pytest.raises(RuleError, match="already in sight"):
        ex.decide(ex_start().state, Reveal(fighter="thug"), ScriptedDice(()))


# --- HERO System --------------------------------------------------------------------------------------------------


def hero_start(**settings_):
    def sheet(key, name, side, owner, aware, **stats):
        base = dict(spd=3, dex=14, initiative_dex=14, con=10, rec=4, ocv=5, dcv=5, stun=25, stun_max=25)
        return h.fighter_from_sheet(key, name, side, owner, {**base, **stats}, aware)

    fighters = (
        sheet("ana", "Ana", "pc", 1, ("ogre",), dex=18, initiative_dex=18),
        sheet("bo", "Bo", "pc", 2, ("ogre",)),
        sheet("ogre", "Ogre", "enemy", None, ("ana", "bo"), dex=11, initiative_dex=11),
        sheet("lurker", "Lurker", "enemy", None, ("ana", "bo"), overrides={"initiative_dex": 30}),
    )
    t = Log(h, h.initial_state(fighters, settings_))
    t.do(h.NextSegment())  # segment 12 of turn 1: everyone acts, the Lurker first (DEX 30)
    return t


def test_hero_an_unseen_attacker_is_revealed_by_its_attack():
    """Rules notes (hero-speed-chart.md) leave hidden attackers open: the GM's setting "An unseen combatant is
    revealed when it attacks" (on by default) reveals the Lurker as it attacks; undo takes both back."""
    t = hero_start()
    assert t.state.floor == "lurker" and unseen(t.state, "lurker")
    before = t.state
    events = t.do(h.Attack(actor="lurker", target="ana", dice=1), faces=[2, 2, 2, 2])
    assert events[0] == Revealed(fighter="lurker", cause="attack")
    assert players_words(h, before, events[0]) == "Lurker is revealed as it attacks."
    assert players_words(h, t.state, events[1]).startswith("Lurker attacks Ana")
    t.undo_last()
    assert t.state == before


def test_hero_the_gm_reveals_the_lurker_before_combat_begins_and_a_pc_may_then_attack_it():
    """Notes: a character attacks only someone it is aware of; the GM's reveal makes the party aware."""
    t = hero_start(attack_reveals=False)
    events = t.do(h.Attack(actor="lurker", target="ana", dice=1), faces=[2, 2, 2, 2])
    assert not any(isinstance(e, Revealed) for e in events) and unseen(t.state, "lurker")
    [revealed] = t.do(Reveal(fighter="lurker"))
    assert revealed == Revealed(fighter="lurker")
    assert all("lurker" in f.aware_of for f in t.state.pcs())
    fresh = h.initial_state(t.initial.fighters, {})
    assert h.decide(fresh, Reveal(fighter="lurker"), ScriptedDice(())) == [Revealed(fighter="lurker")]
