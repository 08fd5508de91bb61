"""How the Expanse weapons stored-log fixture was made: one scripted fight with hands tracked (issue 19).

Run once with `.venv/bin/python -m tests.combat.record_expanse_weapons_log` when weapons in hand were added; the
JSON file it wrote (tests/combat/fixtures/logs/expanse-weapons.json) is the fixture and is never re-recorded:
`tests/combat/test_stored_logs.py` checks that today's engine still replays it to the same state and words.
"""

from __future__ import annotations

from combat.rules import expanse as ex
from tests.combat.record_expanse_logs import Fight, boss, fighter, grunt, luwe


def weapons() -> Fight:
    """Luwe readies her rifle (putting the pistol away) and throws a grenade; Hero's bottle breaks, the GM gives
    him a new one, and Fortune on a die takes a second break back."""
    hero = fighter("hero", "Hero", "pc", 2, {"Strength": 2}, weapons=("makeshift",), aware_of=("boss", "grunt"))
    fighters = (luwe(weapons=("pistol", "rifle", "grenade")), hero, boss(), grunt())
    fight = Fight(ex.initial_state(fighters, {"weapons_at_start": "in_hand"}))
    fight.do(ex.RollInitiative(), [6, 6, 5, 5, 5, 4, 1, 2, 3, 1, 1, 2])  # Luwe, Hero, Boss, Grunt
    fight.do(ex.NextTurn())
    fight.do(ex.Ready(actor="luwe", item="rifle"))
    fight.do(ex.Attack(actor="luwe", action="ranged_attack", weapon="rifle", target="grunt", distance=20), [1, 2, 4])
    fight.do(ex.EndTurn(actor="luwe"))
    fight.do(ex.Attack(actor="hero", weapon="makeshift", target="grunt", fragile=True), [1, 2, 3])  # it breaks
    fight.do(ex.EndTurn(actor="hero"))
    fight.do(ex.GiveWeapon(target="hero", weapon="makeshift"))
    fight.do(ex.EndTurn(actor="boss"))
    fight.do(ex.EndTurn(actor="grunt"))
    fight.do(ex.Ready(actor="luwe", item="grenade"))
    fight.do(ex.ThrowGrenade(actor="luwe", targets="boss,grunt", distance=6), [4, 5, 6, 1, 2, 3])
    fight.do(ex.EndTurn(actor="luwe"))
    fight.do(ex.Attack(actor="hero", weapon="makeshift", target="grunt", fragile=True), [1, 1, 2])  # breaks again
    fight.do(ex.ChangeDie(actor="hero", die=2, face=6))  # Drama Die 6: still a miss, but the bottle holds
    fight.do(ex.GiveWeapon(target="luwe", weapon="heavy_melee", stow=True))
    return fight


def main() -> None:
    print(weapons().save("weapons"))


if __name__ == "__main__":
    main()
