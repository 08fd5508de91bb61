"""How the Expanse (AGE) stored-log fixtures were made: three scripted fights played through the engine.

Run once with `.venv/bin/python -m tests.combat.record_expanse_logs` before the engine was split into a package;
the JSON files it wrote (tests/combat/fixtures/logs/expanse-*.json) are the fixtures and are never re-recorded:
`tests/combat/test_stored_logs.py` checks that today's engine still replays them to the same state and words.
Each fight plays commands through `decide` with scripted dice, as the service would, and records the events.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from combat.rules import expanse as ex
from combat.rules.core import Command, Event, Logged, Undone, replay
from combat.rules.dice import ScriptedDice
from tests.combat.stored_logs import record

ZERO = dict.fromkeys(ex.ABILITIES, 0)


def fighter(fid: str, name: str, side: str, owner: int | None, abilities: dict[str, int], **kw: Any) -> ex.Fighter:
    return ex.Fighter(id=fid, name=name, side=side, owner=owner, abilities={**ZERO, **abilities}, **kw)


def luwe(**kw: Any) -> ex.Fighter:
    return fighter(
        "luwe",
        "Luwe",
        "pc",
        1,
        {
            "Accuracy": 3,
            "Dexterity": 3,
            "Perception": 2,
            "Fighting": 1,
            "Strength": 1,
            "Constitution": 2,
            "Intelligence": 2,
        },
        **{
            "focuses": ("Accuracy (Pistols)", "Dexterity (Initiative)"),
            "defense": 13,
            "toughness": 2,
            "fortune": 16,
            "fortune_max": 20,
            "speed": 13,
            "level": 3,
            "aware_of": ("boss", "grunt"),
            **kw,
        },
    )


def furo(**kw: Any) -> ex.Fighter:
    return fighter(
        "furo",
        "Furo",
        "pc",
        2,
        {"Fighting": 3, "Strength": 3, "Dexterity": 1, "Constitution": 3},
        **{
            "focuses": ("Fighting (Brawling)", "Strength (Might)"),
            "defense": 11,
            "toughness": 3,
            "armour": "light",
            "fortune": 15,
            "fortune_max": 15,
            "speed": 11,
            "level": 2,
            "aware_of": ("boss", "grunt"),
            **kw,
        },
    )


def boss(**kw: Any) -> ex.Fighter:
    return fighter(
        "boss",
        "Boss",
        "enemy",
        None,
        {"Fighting": 3, "Accuracy": 2, "Strength": 3, "Dexterity": 2, "Perception": 1},
        **{
            "defense": 12,
            "toughness": 3,
            "armour": "medium",
            "fortune": 10,
            "fortune_max": 10,
            "speed": 10,
            "aware_of": ("luwe", "furo"),
            **kw,
        },
    )


def grunt(**kw: Any) -> ex.Fighter:
    return fighter(
        "grunt",
        "Grunt",
        "enemy",
        None,
        {"Accuracy": 1, "Dexterity": 1, "Strength": 1},
        **{"defense": 11, "toughness": 1, "fortune": 4, "fortune_max": 4, "aware_of": ("luwe", "furo"), **kw},
    )


def sniper(**kw: Any) -> ex.Fighter:
    """An enemy no PC is aware of: players never read its name."""
    return fighter(
        "sniper",
        "Sniper",
        "enemy",
        None,
        {"Accuracy": 3, "Dexterity": 2, "Perception": 2},
        **{
            "focuses": ("Accuracy (Rifles)",),
            "defense": 12,
            "toughness": 1,
            "fortune": 6,
            "fortune_max": 6,
            "aware_of": ("luwe", "furo"),
            **kw,
        },
    )


class Fight:
    """Plays commands like the service does: decide with scripted dice, append the events, keep the state."""

    def __init__(self, initial: ex.State) -> None:
        self.initial = initial
        self.state = initial
        self.events: list[Event] = []

    def do(self, command: Command, faces: tuple[int, ...] | list[int] = ()) -> list[Event]:
        dice = ScriptedDice(faces)
        events = ex.decide(self.state, command, dice)
        assert dice.left == 0, f"{command}: {dice.left} scripted dice left over"
        for event in events:
            self.events.append(event)
            self.state = ex.evolve(self.state, event)
        return events

    def undo_last(self) -> None:
        """The GM takes back the last entry: an Undone marker, and the state is the replay without it."""
        self.events.append(Undone(seqs=(len(self.events),)))
        log = [Logged(seq=i, event=e) for i, e in enumerate(self.events, start=1)]
        self.state = replay(ex.evolve, self.initial, log)

    def save(self, name: str) -> Path:
        return record(name, "expanse", self.initial, self.events)


def pistol(actor: str, target: str, **kw: Any) -> ex.Attack:
    return ex.Attack(
        actor=actor,
        action=kw.pop("action", "ranged_attack"),
        weapon="pistol",
        target=target,
        distance=kw.pop("distance", 10),
        **kw,
    )


def punch(actor: str, target: str, **kw: Any) -> ex.Attack:
    return ex.Attack(actor=actor, action=kw.pop("action", "melee_attack"), weapon="unarmed", target=target, **kw)


def ambush() -> Fight:
    """An unseen sniper, a tie the GM breaks, hits, Fortune, injuries, a changed die, stunts, an undo."""
    fight = Fight(ex.initial_state((luwe(aware_of=("boss",)), furo(aware_of=("boss",)), boss(), sniper()), {}))
    # Luwe 12 + 5, Furo 10 + 0 (Drama Die 4), Boss 10 + 0 (Drama Die 4), Sniper 13 + 2.
    fight.do(ex.RollInitiative(), [4, 3, 5, 3, 3, 4, 2, 4, 4, 5, 5, 3])
    fight.do(ex.BreakTie(first="boss", second="furo"))
    fight.do(ex.NextTurn())
    # Luwe aims, then shoots the Boss: 11 + 6 = 17 against 12 with doubles (5 SP); 2d6 + 2 = 13 damage.
    fight.do(ex.Aim(actor="luwe"))
    fight.do(pistol("luwe", "boss"), [3, 3, 5, 6, 5])
    fight.do(ex.SpendStunt(actor="luwe", stunt="Knock Prone"))
    fight.do(ex.SpendStunt(actor="luwe", stunt="Adrenaline Rush", points=3))  # the turn ends by itself
    fight.do(ex.SpendFortune(actor="boss", points=2))
    fight.do(ex.AcceptCondition(actor="boss"), [4])
    # The unseen sniper's rifle: 11 + 5 = 16 against Luwe's 13; 3d6 + 2 = 13 damage, 11 past Toughness.
    fight.do(
        ex.Attack(actor="sniper", action="ranged_attack", weapon="rifle", target="luwe", distance=80),
        [5, 4, 2, 4, 4, 3],
    )
    fight.do(ex.SpendFortune(actor="luwe", points=6))
    fight.do(ex.AcceptCondition(actor="luwe"), [2])
    fight.do(ex.AcceptCondition(actor="luwe"), [6])
    fight.do(ex.AdjustFortune(target="sniper", change=-2))
    fight.do(ex.EndTurn(actor="sniper"))
    # The prone, injured Boss stands up and swings at Furo: 8 + 2 misses; 3 Fortune turn the Drama Die to 4.
    fight.do(ex.Move(actor="boss", metres=2, stand_up=True))
    fight.do(ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="furo"), [2, 5, 1])
    fight.do(ex.ChangeDie(actor="boss", die=2, face=4), [3, 3])
    fight.do(ex.AcceptCondition(actor="furo"), [4])  # no Fortune: the turn passes to Furo
    fight.do(ex.Move(actor="furo", metres=3, cover=1))
    fight.undo_last()
    fight.do(ex.SetCover(target="furo", rating=1))
    # Furo punches the Boss: 14 + 4 = 18 with doubles (6 SP); 1d3 + 3 = 6 does not pass Toughness 7 ...
    fight.do(punch("furo", "boss"), [4, 4, 6, 3])
    fight.do(ex.SpendStunt(actor="furo", stunt="Overcome Toughness"))  # ... until the damage ignores it
    fight.do(ex.SpendStunt(actor="furo", stunt="Lightning Attack"))
    fight.do(ex.AcceptCondition(actor="boss", choice="taken_out"))
    fight.do(ex.EndTurn(actor="furo"))
    # Round 2: Luwe looks for the shooter (a test), and the GM takes it back.
    fight.do(ex.AbilityTest(actor="luwe", ability="Perception", tn=13, note="spot the shooter"), [5, 5, 4])
    fight.undo_last()
    fight.do(ex.AbilityTest(actor="luwe", ability="Perception", tn=13, note="spot the shooter"), [1, 2, 3])
    return fight


def churn() -> Fight:
    """Churn with typed-in dice: a scattered grenade, a Guardian Angel, Double-Team, a GM's jam, Stand Firm,
    a roll over and breathers."""
    fight = Fight(ex.initial_state((luwe(), furo(), boss(), grunt()), {"churn": True, "entered_dice": True}))
    # Luwe 15 + 5, Furo 12, Boss 7, Grunt 4 + 1.
    fight.do(ex.RollInitiative(), [6, 5, 4, 3, 4, 5, 2, 2, 3, 1, 2, 1])
    fight.do(ex.AdjustChurn(change=8, reason="earlier scenes"))
    fight.do(ex.NextTurn())
    fight.do(ex.Ready(actor="luwe", item="grenade", stow="pistol"))
    # Typed in: 1, 2 and 3 + 3 = 9 misses TN 11; it lands 4 m off and the GM places the blast.
    fight.do(ex.ThrowGrenade(actor="luwe", targets="boss, grunt", distance=8, entered=(1, 2, 3)), [4])
    fight.do(ex.Blast(targets="grunt, furo", direction="behind the crates"), [2, 3, 4])
    fight.do(ex.AcceptCondition(actor="grunt", choice="taken_out"))
    fight.do(ex.SpendFortune(actor="furo", points=4))
    # Furo's typed-in punch: 16 + 5 with Drama Die 6 (6 SP, Churn 9); 3 + 3 damage stops at Toughness.
    # His Double-Team lets Luwe shoot at once; she misses, and the GM spends Churn to jam her pistol.
    fight.do(punch("furo", "boss", entered=(5, 5, 6), damage_entered=(3,)))
    fight.do(ex.SpendStunt(actor="furo", stunt="Guardian Angel", points=2, ally="luwe"))
    fight.do(ex.SpendStunt(actor="furo", stunt="Double-Team", ally="luwe"))
    fight.do(pistol("luwe", "boss", free=True), [2, 2, 1])
    fight.do(ex.ChurnJam(fighter="luwe"))
    fight.do(ex.EndTurn(actor="furo"))
    # The Boss: 15 + 3 hits Luwe with Drama Die 6 (Churn 9); 2d6 + 3 = 14, 12 past Toughness.
    fight.do(ex.Attack(actor="boss", action="melee_attack", weapon="heavy_melee", target="luwe"), [4, 5, 6, 6, 5])
    fight.do(ex.SpendFortune(actor="luwe", points=2))
    fight.do(ex.AcceptCondition(actor="luwe"), [6])
    fight.do(ex.RollOver(actor="luwe", condition="Wounded"))
    fight.do(ex.ApproveRollOver(fighter="luwe"))
    fight.do(ex.AcceptCondition(actor="furo"), [3])
    fight.do(ex.StandFirm(actor="boss", ability="Strength"))
    # Round 2: Furo's punch earns 2 SP; Knock Prone meets Stand Firm (13 against 20) and the Boss holds.
    fight.do(punch("furo", "boss"), [3, 3, 2, 2])
    fight.do(ex.SpendStunt(actor="furo", stunt="Knock Prone"), [2, 3, 4, 6, 6, 5])
    fight.do(ex.Breathers(), [1, 2, 3, 4])  # the end of the encounter: Churn reaches 10
    return fight


def manoeuvres() -> Fight:
    """The minor actions and the GM's tools: prepare and interrupt, press and pursue, guard up, jams, GM stunts,
    conditions, cover and Fortune set by hand, a refused roll over."""
    state = ex.initial_state(
        (luwe(), furo(), boss(), grunt()), {"prepare_interrupt": "player", "extra_stunts": "Called Shot 4; Feint 1-3"}
    )
    fight = Fight(state)
    # Luwe 13 + 5, Boss 12, Furo 9, Grunt 5 + 1.
    fight.do(ex.RollInitiative(), [4, 4, 5, 3, 3, 3, 4, 4, 4, 1, 2, 2])
    fight.do(ex.AddStunt(stunt="Hamstring", cost=2, max_cost=2, text="The target's Speed is halved."))
    fight.do(ex.NextTurn())
    fight.do(ex.Prepare(actor="luwe", action="ranged_attack"))  # the turn ends by itself
    fight.do(ex.Move(actor="boss", metres=3, cover=1))
    fight.do(ex.InterruptSelf(actor="luwe"))
    fight.do(pistol("luwe", "boss", modifier=-4), [1, 1, 6])  # a miss with Drama Die 6: the pistol jams
    fight.do(ex.Defend(actor="boss"))
    fight.do(ex.GuardUp(actor="furo", bonus=2))
    fight.do(punch("furo", "boss"), [5, 2, 6, 2])  # 13 + 3 against the defending Boss's 14
    fight.do(ex.EndTurn(actor="furo"))
    fight.do(ex.Run(actor="grunt", metres=10, cover=2))
    fight.do(ex.Activate(actor="grunt", what="a distress beacon"))
    # Round 2.
    fight.do(ex.ClearJam(actor="luwe"))
    fight.do(ex.AbilityTest(actor="luwe", ability="Intelligence", tn=11, note="jam the beacon"), [4, 4, 5])
    fight.do(ex.SpendStunt(actor="luwe", stunt="Feint", points=2, note="a false signal"))
    fight.do(ex.SpendStunt(actor="luwe", stunt="Take Cover", points=2))
    fight.do(ex.SpendStunt(actor="luwe", stunt="Momentum", points=1))
    fight.do(ex.Prepare(actor="boss", action="melee_attack"))
    fight.do(punch("furo", "grunt"), [3, 4, 5, 1])
    fight.do(ex.AcceptCondition(actor="grunt"), [5])
    fight.do(ex.PressTheAttack(actor="furo", target="grunt"))
    fight.do(ex.Interrupt(fighter="boss"))
    fight.do(ex.Interrupt())  # the GM calls it off
    fight.do(ex.Move(actor="grunt", metres=5))
    fight.do(ex.Pursue(actor="furo", target="grunt", metres=5))
    fight.do(ex.Ready(actor="grunt", item="riot_shield"))
    # Round 3: Luwe's grenade lands (14 + 1 with doubles, 6 SP) and catches the Boss and the Grunt in cover.
    fight.do(ex.Ready(actor="luwe", item="grenade"))
    fight.do(ex.ThrowGrenade(actor="luwe", targets="boss, grunt", distance=9), [4, 4, 6, 5, 5, 5])
    fight.do(ex.SpendStunt(actor="luwe", stunt="Skirmish", points=2, moves="self"))
    fight.do(ex.SpendStunt(actor="luwe", stunt="Whatever's Handy"))
    fight.do(ex.SpendStunt(actor="luwe", stunt="Duck and Weave", points=1))
    fight.do(ex.SpendStunt(actor="luwe", stunt="Group Tactics", points=2, ally="furo"))
    fight.do(ex.SpendFortune(actor="boss", points=6))
    fight.do(ex.AcceptCondition(actor="grunt"), [2])  # wounded, and what is left takes the Grunt out
    fight.do(ex.AbilityTest(actor="furo", ability="Constitution", tn=9, action="free", resist=True), [3, 3, 3])
    fight.do(ex.SetCondition(target="furo", condition="Fatigued"))
    fight.do(ex.SetCondition(target="furo", condition="Fatigued", on=False))
    fight.do(ex.AdjustFortune(target="luwe", change=3))
    fight.do(ex.AdjustFortune(target="boss", change=-3))
    fight.do(ex.RollOver(actor="boss", condition="Wounded"))
    fight.do(ex.ApproveRollOver(fighter="boss", approve=False))
    # The Boss's stunning all-out attack knocks Furo out cold.
    fight.do(
        ex.Attack(actor="boss", action="all_out_attack", weapon="heavy_melee", target="furo", stunning=True),
        [5, 5, 3, 6],
    )
    fight.do(ex.AcceptCondition(actor="furo", choice="taken_out"))
    fight.do(ex.NextTurn())
    # Round 4: Luwe shoots a small object (TN 13).
    fight.do(ex.Attack(actor="luwe", action="ranged_attack", weapon="pistol", object_size="small"), [4, 3, 3])
    fight.do(ex.SpendStunt(actor="luwe", stunt="Hamstring"))
    return fight


FIGHTS = {"ambush": ambush, "churn": churn, "manoeuvres": manoeuvres}


def main() -> None:
    for name, play in FIGHTS.items():
        print(play().save(name))


if __name__ == "__main__":
    main()
