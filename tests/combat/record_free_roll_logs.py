"""How the free-roll stored-log fixtures (tests/combat/fixtures/logs/burn_bryte-*free_rolls.json) were made.

The table's dice roller (combat/rules/free_roll.py, issue 19) writes one event, `dice_rolled`, in every model; this
fixture pins how it is stored. One short Burn Bryte fight with scripted dice:
  free_rolls  a PC's roll for everyone, one for the GM, one for their own eyes only, a player's roll in their own
              name (no PC), the GM's public and secret rolls, a roll taken back (undone), all between skill rolls
              of a PC's turn, which the free rolls leave as they were;
and one recorded once a skill roll could be written `k+1` (the event then kept the skill's name):
  skill_free_rolls  `k+1` and `k` rolls for a PC's skills, before and during their turn, for everyone and for the GM.

The committed JSON file is the fixture: `python -m tests.combat.record_free_roll_logs` writes it only when it is
missing (a fixture is never recorded again by later code; that would hide a change in what a stored log replays to).
"""

from __future__ import annotations

from combat.rules import burn_bryte as bb
from combat.rules.free_roll import FreeRoll
from tests.combat.record_burn_bryte_logs import crew, fight
from tests.combat.scripted_fight import Fight
from tests.combat.stored_logs import FIXTURES, record


def free_rolls() -> Fight:
    t = fight(crew())
    t.do(FreeRoll(notation="1d20+2", show="all"), faces=[14])  # the GM, for everyone
    t.do(bb.Declare(enemy="boss", target="luwe", text="laser sword"))
    t.do(bb.Declare(enemy="captain", target="balla", text="laser pistol"))
    t.do(FreeRoll(notation="2d6", show="gm"), faces=[6, 6])  # the GM's secret roll
    t.do(bb.Declare(enemy="grunt", target="furo", text="knife"))
    t.do(bb.StartPlayers())
    t.do(bb.PickNext(next="luwe"))
    t.do(FreeRoll(actor="luwe", notation="3d8", show="all"), faces=[2, 5, 5])
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[1, 7])
    t.do(FreeRoll(actor="balla", notation="2d10+1", show="gm"), faces=[3, 9])
    t.do(FreeRoll(actor="furo", notation="d%", show="self"), faces=[42])
    t.do(FreeRoll(player="Dana", notation="1d4+1d6-1", show="all"), faces=[4, 1])
    t.do(FreeRoll(actor="luwe", notation="4d6", show="all"), faces=[1, 2, 3, 4])
    t.undo()
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="captain"), faces=[10, 8, 2])
    t.do(bb.EndTurn(actor="luwe"))
    return t


def skill_free_rolls() -> Fight:
    t = fight(crew())
    t.do(FreeRoll(actor="luwe", notation="k+1", skill="Stealth", show="all"), faces=[2, 6])
    for enemy, target in (("boss", "luwe"), ("captain", "balla"), ("grunt", "furo")):
        t.do(bb.Declare(enemy=enemy, target=target, text="laser pistol"))
    t.do(bb.StartPlayers())
    t.do(bb.PickNext(next="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[1, 7])
    t.do(FreeRoll(actor="luwe", notation="k+1", skill="Ranged", show="gm"), faces=[10, 8, 8])
    t.do(FreeRoll(actor="balla", notation="k", skill="Presence", show="all"), faces=[4])
    return t


FIGHTS = {"free_rolls": free_rolls, "skill_free_rolls": skill_free_rolls}


def main() -> None:
    for name, play in FIGHTS.items():
        path = FIXTURES / f"burn_bryte-{name}.json"
        if path.exists():
            print(f"{path} is kept as it is: a fixture is never recorded again.")
            continue
        t = play()
        record(name, "burn_bryte", t.initial, t.events)
        print(f"{path} written: {len(t.log)} entries of {len(t.kinds())} kinds.")


if __name__ == "__main__":
    main()
