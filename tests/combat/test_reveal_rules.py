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
