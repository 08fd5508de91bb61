"""How the SW5e stored-log fixtures (tests/combat/fixtures/logs/sw5e-*.json) were made.

Scripted fights played through the SW5e engine's `decide` and `evolve` with scripted dice, the way the service
plays them: set-up and initiative, a battle against an NPC ship whose numbers are GM-only, and a fight with public
enemy numbers and the other settings changed. Between them they write every SW5e event kind and `Undone` markers.
The committed JSON files are the fixtures; this module only shows how they came about. Running it
(`.venv/bin/python -m tests.combat.record_sw5e_logs`, no Django settings needed) overwrites them, so never run it
to make a failing replay pass: the fixtures pin what earlier code stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from combat.rules import sw5e as sw
from combat.rules.core import Command, Event, Logged, Undone, replay
from combat.rules.dice import ScriptedDice
from tests.combat.stored_logs import record


def hawk(**over: Any) -> dict[str, Any]:
    base = dict(
        id="hawk",
        name="Ebon Hawk",
        side="pc",
        size="medium",
        tier=1,
        hull=30,
        hull_max=30,
        shields=16,
        shields_max=20,
        hull_dice=6,
        shield_dice=6,
        shield_type="directional",
        reactor="power_core",
        coupling="hub_and_spoke",
        power={"central": 1},
        weapons=["laser cannons", "ion cannon"],
        con_mod=1,
        crew={"kira": "pilot", "dex": "gunner", "mira": "mechanic"},
    )
    return {**base, **over}


def frigate(**over: Any) -> dict[str, Any]:
    base = dict(
        id="frigate",
        name="Imperial frigate",
        side="npc",
        size="large",
        tier=2,
        hull=47,
        hull_max=60,
        shields=23,
        shields_max=40,
        hull_dice=9,
        shield_dice=9,
        shield_type="fortress",
        reactor="power_core",
        coupling="direct",
        power={"central": 3},
        crew={"vrask": "pilot", "tolo": "gunner"},
        initiative_mod=1,
    )
    return {**base, **over}


def interceptor(**over: Any) -> dict[str, Any]:
    base = dict(
        id="eye",
        name="TIE interceptor",
        side="npc",
        size="small",
        tier=0,
        hull=12,
        hull_max=12,
        shields=0,
        shields_max=0,
        hull_dice=1,
        shield_dice=0,
        reactor="fuel_cell",
        coupling="direct",
        crew={},
    )
    return {**base, **over}


def crew() -> tuple[sw.Fighter, ...]:
    f = sw.fighter_from_sheet
    return (
        f("kira", "Kira", "pc", 1, {"initiative_mod": 2, "bonus_action": True}),
        f("dex", "Dex", "pc", 2, {"initiative_mod": 0}),
        f("mira", "Mira", "pc", 3, {"initiative_mod": 1}),
        f("vrask", "Captain Vrask", "enemy", None, {}),
        f("tolo", "Tolo", "enemy", None, {}),
    )


@dataclass
class Fight:
    """Plays commands like the service: each command's events are one batch of the log; undo takes one back."""

    initial: sw.State
    state: sw.State = field(init=False)
    events: list[Event] = field(default_factory=list)
    batches: list[tuple[int, ...]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = self.initial

    def do(self, command: Command, faces: Sequence[int] = ()) -> list[Event]:
        dice = ScriptedDice(faces)
        new = sw.decide(self.state, command, dice)
        assert dice.left == 0, f"{command!r} left scripted dice unused"
        start = len(self.events) + 1
        for event in new:
            self.events.append(event)
            self.state = sw.evolve(self.state, event)
        self.batches.append(tuple(range(start, start + len(new))))
        return new

    def undo(self) -> None:
        self.events.append(Undone(seqs=self.batches.pop()))
        log = [Logged(seq=i, event=e) for i, e in enumerate(self.events, start=1)]
        self.state = replay(sw.evolve, self.initial, log)

    def turn(self, who: str, *commands: Command) -> None:
        """A crew turn of commands that roll no dice."""
        self.do(sw.StartCrewTurn(actor=who))
        for command in commands:
            self.do(command)
        self.do(sw.EndCrewTurn(actor=who))


def setup_and_power() -> Fight:
    """Set-up (crew moves, surprise, every way of setting initiative, tied ships) and a first round of power,
    shields, crew order, a surprised crew member and a surprised ship that loses its turn; the GM undoes a crew
    move."""
    settings = {"entered_initiative": True, "over_capacity": "lose", "surprised_ship": "skip"}
    fight = Fight(sw.initial_state([hawk(), frigate(), interceptor(surprised=True)], crew(), settings))
    fight.do(sw.AssignCrew(fighter="mira", ship="hawk", station="technician"))  # a new station aboard
    fight.do(sw.AssignCrew(fighter="tolo", ship=""))  # leaves the frigate
    fight.do(sw.AssignCrew(fighter="tolo", ship="eye", station="pilot"))  # joins the interceptor at the helm
    fight.do(sw.AssignCrew(fighter="vrask", ship="frigate", station="gunner"))
    fight.undo()  # the GM takes Vrask's move back
    fight.do(sw.SetSurprise(target="mira", surprised=True))
    fight.do(sw.SetSurprise(target="frigate", surprised=True))
    fight.do(sw.SetSurprise(target="frigate", surprised=False))
    fight.do(sw.RollInitiative(actor="kira"), faces=[12])  # 14
    fight.do(sw.RollInitiative(actor="dex", entered=13))  # 13, a physical d20
    fight.do(sw.RollInitiative(actor="mira"), faces=[15])  # 16: the Hawk goes at 13
    fight.do(sw.SetShipInitiative(ship="frigate", roll=True), faces=[12])  # 12 + 1: tied with the Hawk
    fight.do(sw.SetShipInitiative(ship="eye", value=4))
    fight.do(sw.OrderTies(order="hawk frigate"))
    fight.do(sw.StartCombat(), faces=[2])  # the Hawk's power core makes 2 dice
    fight.do(sw.DistributePower(actor="kira", central=1, shields=1))
    fight.do(sw.RegenerateShields(actor="dex"))
    fight.do(sw.SetCrewOrder(actor="dex", order="dex, mira, kira"))  # a proposal
    fight.do(sw.SetCrewOrder(actor="kira", order="mira, kira, dex"))  # the helm settles it
    fight.do(sw.StartCrewTurn(actor="mira"))  # surprised: the first turn passes at once
    fight.turn("kira", sw.TakeAction(actor="kira", action="evade"))
    fight.turn("dex", sw.TakeAction(actor="dex", action="fire", weapon="laser cannons", target="frigate"))
    fight.do(sw.EndShipTurn(actor="kira"), faces=[1])  # the frigate's power core makes 1 die
    fight.do(sw.DistributePower(weapons=1))  # a direct coupling stores no weapons dice: lost
    fight.do(sw.SetCrewOrder(order="vrask"))  # the GM
    fight.turn("vrask", sw.TakeAction(actor="vrask", action="fire", weapon="turbolasers", target="hawk"))
    fight.do(sw.EndShipTurn(), faces=[1])  # the surprised interceptor loses its turn; round 2 and the Hawk's reactor
    return fight


def hidden_enemy() -> Fight:
    """A battle against an NPC ship whose numbers stay with the GM: damage both ways, shields, patches, power dice
    spent, boosts, a bonus action and a reaction, GM corrections, an action the GM allows, and a ship disabled
    (losing its turn) then destroyed; the GM undoes a hit."""
    fight = Fight(sw.initial_state([hawk(reactor="fuel_cell"), frigate()], crew(), None))
    fight.do(sw.RollInitiative(actor="kira"), faces=[15])
    fight.do(sw.RollInitiative(actor="dex"), faces=[10])
    fight.do(sw.RollInitiative(actor="mira"), faces=[12])
    fight.do(sw.SetShipInitiative(ship="frigate", value=5))
    fight.do(sw.StartCombat())  # the Hawk's fuel cell: 1 die
    fight.do(sw.DistributePower(actor="kira", weapons=1))
    fight.do(sw.AllowAction(action="Jettison   cargo", helm=True))
    fight.turn(
        "kira",
        sw.TakeAction(actor="kira", action="boost engines"),
        sw.TakeAction(actor="kira", action="jettison cargo", slot="bonus", note="  the spice   goes "),
    )
    fight.do(sw.StartCrewTurn(actor="dex"))
    fight.do(sw.TakeAction(actor="dex", action="boost weapons"))  # a second boost: +5 DC for the next
    fight.do(sw.SpendPower(actor="dex", system="weapons", store="weapons", note="ion volley"), faces=[4])
    fight.do(sw.EndCrewTurn(actor="dex"))
    fight.do(sw.Damage(ship="frigate", amount=10, by="dex", note="ion cannon"))
    fight.do(sw.Damage(ship="frigate", amount=5, by="hawk"))
    fight.undo()  # the GM takes the second hit back
    fight.turn("mira", sw.TakeAction(actor="mira", action="detect"))
    fight.do(sw.EndShipTurn(actor="kira"), faces=[2])  # the frigate's power core makes 2 dice
    fight.do(sw.DistributePower())  # unassigned: into the central store as far as it holds, the rest lost
    fight.do(sw.RegenerateShields())  # the GM
    fight.do(sw.StartCrewTurn(actor="vrask"))
    fight.do(sw.SpendPower(actor="vrask", system="engines", count=2), faces=[3, 5])
    fight.do(sw.EndCrewTurn(actor="vrask"))
    fight.turn("tolo", sw.TakeAction(actor="tolo", action="fire", weapon="turbolasers", target="hawk"))
    fight.do(sw.Damage(ship="hawk", amount=20, by="frigate", note="turbolasers"))
    fight.do(sw.TakeAction(actor="dex", action="interfere", slot="reaction", target="frigate"))
    fight.do(sw.AdjustShip(ship="frigate", what="shield_dice", value=7))
    fight.do(sw.AdjustShip(ship="hawk", what="power_central", value=2))
    fight.do(sw.EndShipTurn())  # round 2: the Hawk's fuel cell
    fight.do(sw.DistributePower(actor="kira", engines=1))
    frigate_now = fight.state.ship("frigate")
    fight.do(sw.Damage(ship="frigate", amount=frigate_now.shields + frigate_now.hull, by="hawk"))  # disabled
    fight.do(sw.SetCrewOrder(actor="kira", order="mira, dex, kira"))
    fight.do(sw.StartCrewTurn(actor="mira"))
    fight.do(sw.TakeAction(actor="mira", action="patch"), faces=[6])
    fight.do(sw.EndCrewTurn(actor="mira"))
    fight.turn("dex")
    fight.turn("kira")
    fight.do(sw.EndShipTurn(actor="kira"))  # the disabled frigate takes no turn: round 3
    fight.do(sw.Damage(ship="frigate", amount=80, by="kira", note="ramming"))  # destroyed
    return fight


def public_numbers() -> Fight:
    """Enemy numbers public, PC ships first on ties, tier 0 power on a d4, unassigned power lost, a surprised ship
    whose crew skip their turns; the GM undoes a patch and corrects a ship's hull."""
    settings = {"enemy_numbers": "public", "ties": "pcs_first", "tier0_power": 4, "unassigned_power": "lost"}
    ships = [
        hawk(tier=0, reactor="ionization", hull=25, hull_dice=5, shield_dice=5, power={"central": 2}),
        frigate(surprised=True),
    ]
    fight = Fight(sw.initial_state(ships, crew(), settings))
    fight.do(sw.RollInitiative(actor="kira"), faces=[8])
    fight.do(sw.RollInitiative(actor="dex"), faces=[8])
    fight.do(sw.RollInitiative(actor="mira"), faces=[9])
    fight.do(sw.SetShipInitiative(ship="frigate", value=8))  # tied: PC ships first, no order needed
    fight.do(sw.StartCombat(), faces=[2])  # ionization: d2 - 1 = 1 die
    fight.do(sw.DistributePower(actor="kira"))  # unassigned: lost
    fight.turn("kira", sw.TakeAction(actor="kira", action="attack run", target="frigate"))
    fight.do(sw.StartCrewTurn(actor="dex"))
    fight.do(sw.SpendPower(actor="dex", system="weapons", count=2, note="torpedoes"), faces=[1, 4])
    fight.do(sw.EndCrewTurn(actor="dex"))
    fight.do(sw.StartCrewTurn(actor="mira"))
    fight.do(sw.TakeAction(actor="mira", action="patch"), faces=[2])
    fight.undo()  # the GM takes the patch back
    fight.do(sw.TakeAction(actor="mira", action="detect"))
    fight.do(sw.EndCrewTurn(actor="mira"))
    fight.do(sw.Damage(ship="frigate", amount=12, by="dex"))
    fight.do(sw.EndShipTurn(actor="mira"), faces=[2])  # the surprised frigate's reactor still works
    fight.do(sw.DistributePower(central=1))  # the die left over is lost
    fight.do(sw.StartCrewTurn(actor="vrask"))  # surprised with the ship: the first turn passes
    fight.do(sw.StartCrewTurn(actor="tolo"))
    fight.do(sw.AdjustShip(ship="frigate", what="hull", value=0))  # disabled by the GM's correction
    fight.do(sw.AdjustShip(ship="frigate", what="hull", value=10))  # and back
    fight.do(sw.Damage(ship="hawk", amount=45, by="vrask"))  # the Hawk is disabled
    fight.do(sw.EndShipTurn(), faces=[1])  # round 2: the Hawk takes no turn; the frigate's reactor rolls
    return fight


def weapon_fire() -> Fight:
    """Weapons with stats (issue 18): hits through reinforced armour with power dice added, a miss, a natural 20
    under the default rules, a hit that disables; power dice declared before a miss; the GM undoes a shot."""
    settings = {"fire_power": "declared"}
    ships = [
        hawk(reactor="fuel_cell", weapons=["laser cannons (+5 2d6+2)", "ion cannon (+3 1d10)"], power={"central": 2}),
        frigate(weapons=["turbolasers (+4 2d10+1)"], ac=14, armour="reinforced", hull=20, shields=5),
    ]
    fight = Fight(sw.initial_state(ships, crew(), settings))
    fight.do(sw.RollInitiative(actor="kira"), faces=[15])
    fight.do(sw.RollInitiative(actor="dex"), faces=[10])
    fight.do(sw.RollInitiative(actor="mira"), faces=[12])
    fight.do(sw.SetShipInitiative(ship="frigate", value=5))
    fight.do(sw.StartCombat())
    fight.do(sw.DistributePower(actor="kira"))  # full central store: the die is lost
    fight.do(sw.SetCrewOrder(actor="kira", order="dex mira kira"))
    fight.do(sw.StartCrewTurn(actor="dex"))
    # 12 + 5 hits AC 14; a power die d4 3; 6 + 4 + 2 + 3 - 6 = 9
    shot = sw.TakeAction(actor="dex", action="fire", weapon="laser cannons", target="frigate", power=1)
    fight.do(shot, [12, 3, 6, 4])
    fight.do(sw.EndCrewTurn(actor="dex"))
    fight.do(sw.StartCrewTurn(actor="mira"))
    fight.do(sw.TakeAction(actor="mira", action="fire", weapon="ion cannon", target="frigate", power=1), [4, 2])
    fight.undo()  # the GM takes the miss back
    fight.do(sw.TakeAction(actor="mira", action="fire", weapon="ion cannon", target="frigate"), [20, 10, 9])  # crit
    fight.do(sw.EndCrewTurn(actor="mira"))
    fight.turn("kira")
    fight.do(sw.EndShipTurn(actor="kira"), faces=[1])
    fight.do(sw.DistributePower(central=1))
    fight.do(sw.StartCrewTurn(actor="vrask"))
    fight.do(sw.TakeAction(actor="vrask", action="fire", weapon="turbolasers", target="hawk"), [3])  # a miss
    fight.do(sw.EndCrewTurn(actor="vrask"))
    fight.turn("tolo")
    fight.do(sw.EndShipTurn())  # round 2
    fight.do(sw.DistributePower(actor="kira"))
    fight.do(sw.StartCrewTurn(actor="dex"))
    fight.do(sw.TakeAction(actor="dex", action="fire", weapon="laser cannons", target="frigate"), [18, 6, 6])
    return fight


def at_zero_hull() -> Fight:
    """Ships at 0 hull points (issue 18): the Hawk disabled with system damage, damage at 0 hull, a destruction
    save as its turn starts, a crew member failing and another managing to stabilise it, a Patch above 0 that
    clears the tally; the frigate explodes at 0 under the npc_at_zero setting; the GM undoes a save's damage."""
    ships = [hawk(reactor="fuel_cell", hull=10, shields=0), frigate()]
    fight = Fight(sw.initial_state(ships, crew(), {"npc_at_zero": "destroyed"}))
    fight.do(sw.RollInitiative(actor="kira"), faces=[15])
    fight.do(sw.RollInitiative(actor="dex"), faces=[10])
    fight.do(sw.RollInitiative(actor="mira"), faces=[12])
    fight.do(sw.SetShipInitiative(ship="frigate", value=5))
    fight.do(sw.StartCombat())
    fight.do(sw.DistributePower(actor="kira"))
    fight.do(sw.Damage(ship="hawk", amount=10, by="frigate"))  # disabled: system damage level 1
    fight.turn("kira", sw.TakeAction(actor="kira", action="direct"))
    fight.do(sw.EndShipTurn(actor="kira"), faces=[1])
    fight.do(sw.DistributePower(central=1))
    fight.do(sw.Damage(ship="hawk", amount=3))  # at 0 hull: a failed save, level 2
    fight.do(sw.Damage(ship="hawk", amount=2))
    fight.undo()  # the GM takes the second hit back
    fight.turn("vrask")
    fight.turn("tolo")
    fight.do(sw.EndShipTurn(), faces=[11])  # round 2: the Hawk's destruction save, a success
    fight.do(sw.StartCrewTurn(actor="dex"))
    fight.do(sw.Stabilise(actor="dex", modifier=2), faces=[5])  # 7: not enough
    fight.do(sw.EndCrewTurn(actor="dex"))
    fight.do(sw.StartCrewTurn(actor="mira"))
    fight.do(sw.Stabilise(actor="mira", modifier=4), faces=[9])  # 13: stable
    fight.do(sw.EndCrewTurn(actor="mira"))
    fight.do(sw.StartCrewTurn(actor="kira"))
    fight.do(sw.TakeAction(actor="kira", action="patch"), faces=[5])  # 5 + 1: above 0, no longer disabled
    fight.do(sw.EndCrewTurn(actor="kira"))
    fight.do(sw.EndShipTurn(actor="kira"), faces=[2])
    fight.do(sw.Damage(ship="frigate", amount=23 + 47, by="hawk"))  # an NPC ship at 0 hull explodes
    return fight


FIGHTS = {
    "setup-and-power": setup_and_power,
    "hidden-enemy": hidden_enemy,
    "public-numbers": public_numbers,
    "weapon-fire": weapon_fire,
    "at-zero-hull": at_zero_hull,
}


def main() -> list[Path]:
    paths = []
    for name, play in FIGHTS.items():
        fight = play()
        paths.append(record(name, "sw5e", fight.initial, fight.events))
    return paths


if __name__ == "__main__":
    for path in main():
        print(path)
