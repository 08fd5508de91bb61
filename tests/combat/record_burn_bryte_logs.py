"""How the Burn Bryte stored-log fixtures (tests/combat/fixtures/logs/burn_bryte-*.json) were made.

Three scripted fights, played through the engine with scripted dice before the engine was split into a package:
  raid     declarations changed and bought with Collapse points, the GM's and the PCs' picks, attacks, defences,
           an Advantage made and spent, a free move, failures ending on a consequence and on a Collapse point,
           Nova and Collapse points spent (the latter GM-only), every outcome of a declared action, a PC dropping
           to 0 Health Levels, an enemy no PC is aware of, the GM's health and condition changes, and an undo;
  ambush   enemies surprise the PCs (Phase 2 of round 1 skipped), Nova boxes filling to a point, physical dice,
           and an undone roll;
  pcs_first the PCs surprise the enemies (Phase 3 of round 1 skipped), conditions changing complexity;
  armed    enemies' declared weapons resolving in Phase 3 (Extra Damage with Draining, a Burst area, an unarmed
           action), a PC's Draining paid on a failed roll (setting draining_on_miss), a shield absorbing and the
           GM recharging it.
and one recorded later, once combatants stood on squares (positions.py):
  grid     the GM places everyone and moves a PC, free and rolled moves to squares, an attack within reach, an
           enemy's split Phase 3 movement, a declared attack out of range confirmed as a miss and one resolved
           anyway, and an undone placement.

The committed JSON files are the fixtures: `python -m tests.combat.record_burn_bryte_logs` writes only the ones
missing (a fixture is never recorded again by later code; that would hide a change in what a stored log replays to).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from combat.rules import burn_bryte as bb
from combat.rules.burn_bryte.stats import nova_box_key, skill_key
from combat.rules.core import clean_settings
from tests.combat.scripted_fight import Fight
from tests.combat.stored_logs import FIXTURES, record

PCS_KNOW = ("boss", "captain", "grunt")


def pc(key: str, name: str, owner: int, skills: dict[str, int], **stats: Any) -> Any:
    sheet = {skill_key(skill): size for skill, size in skills.items()} | stats
    return bb.fighter_from_sheet(key, name, "pc", owner, sheet, PCS_KNOW)


def enemy(key: str, name: str, health: int, aware: tuple[str, ...] = ("luwe", "balla", "furo")) -> Any:
    return bb.fighter_from_sheet(key, name, "enemy", None, {"health": health, "health_max": health}, aware)


def crew() -> tuple[Any, ...]:
    return (
        pc("luwe", "Luwe", 1, {"Melee": 8, "Ranged": 10, "Stealth": 6, "Knowledge": 8}, nova_points=1),
        pc("balla", "Ballallanava", 2, {"Presence": 10, "Athletics": 6}),
        pc("furo", "Furo", 3, {"Athletics": 8, "Melee": 6}, speed=6),
        enemy("boss", "Nivick boss", 3),
        enemy("captain", "Pirate captain", 2),
        enemy("grunt", "Pirate grunt", 1),
    )


def fight(fighters: tuple[Any, ...], **settings: Any) -> Fight:
    return Fight(bb, bb.initial_state(fighters, 3, clean_settings(bb.SETTINGS, settings)))


def raid() -> Fight:
    sniper = enemy("sniper", "Hidden sniper", 2, aware=("luwe",))
    t = fight(crew() + (sniper,), entered_dice=True)
    t.do(bb.Declare(enemy="boss", target="balla", text="laser sword"))
    t.do(bb.Declare(enemy="captain", target="luwe", text="laser pistol"))
    t.do(bb.Declare(enemy="grunt", target="balla", text="knife"))
    t.do(bb.Declare(enemy="sniper", target="luwe", text="long rifle"))
    t.do(bb.ChangeDeclaration(declaration=2, target="furo", text="cutlass"))
    t.do(bb.Declare(enemy="boss", target="furo", text="a second swing", extra=True))
    t.do(bb.StartPlayers())
    t.do(bb.PickNext(next="balla"))
    t.do(bb.SkillRoll(actor="balla", skill="Presence", intent="advantage", note="rallies the crew"), faces=[3, 7])
    t.do(bb.SkillRoll(actor="balla", skill="Presence", intent="defend", target="3"), faces=[9, 6, 2])
    t.do(bb.FreeMove(actor="balla", squares=4))
    t.do(bb.EndTurn(actor="balla"))
    t.do(bb.PickNext(actor="balla", next="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="boss"), faces=[1, 7])
    # Recorded when a damage sent with the roll overrode the weapon's. Today it must come from the weapon, or an
    # ability's or Nova's extra damage (issue 18), so the event is logged as it was decided then.
    roll = bb.Roll("luwe", "Ranged", 10, 3, faces=(10, 8, 2), intent="attack", target="captain", damage=2, entered=True)
    t.as_decided_then(bb.SkillRolled(roll=roll))
    t.do(bb.SkillRoll(actor="luwe", skill="Stealth", intent="other"), faces=[6, 5, 5, 3])
    t.do(bb.SpendAdvantage(actor="luwe", die=2), faces=[1])
    t.do(bb.SkillRoll(actor="luwe", skill="Knowledge", intent="other"), faces=[1, 2, 3, 4, 4])
    t.do(bb.ResolveFailure(choice="consequence", note="drops her pistol"))
    t.do(bb.SpendNova(actor="luwe", points=1, note="a burst of speed"))
    t.do(bb.PickNext(actor="luwe", next="furo"))
    t.do(bb.SkillRoll(actor="furo", skill="Athletics", intent="move"), faces=[2, 5])
    t.do(bb.SkillRoll(actor="furo", skill="Melee", intent="attack", target="grunt"), faces=[1, 2, 6])
    t.do(bb.SkillRoll(actor="furo", skill="Melee", intent="attack", target="boss"), faces=[3, 3, 1, 2])
    t.do(bb.ResolveFailure(choice="collapse"))
    t.do(bb.SpendCollapse(enemy="boss", points=1, note="shield flare"))
    t.do(bb.StartEnemies())
    t.do(bb.Resolve(declaration=1, outcome="hit", damage=3))  # Ballallanava drops to 0
    t.do(bb.Resolve(declaration=2, outcome="missed"))
    t.do(bb.Resolve(declaration=3))  # the grunt is down
    t.do(bb.Resolve(declaration=4, outcome="hit", damage=1))  # the sniper no PC knows of
    t.do(bb.Resolve(declaration=5, outcome="hit", damage=1))
    t.do(bb.AdjustHealth(target="balla", change=1))
    t.do(bb.SetCondition(target="balla", slot="neg_minor", value="Presence"))
    t.do(bb.AdjustHealth(target="sniper", change=-1))
    t.do(bb.AdjustHealth(target="grunt", change=1))
    t.undo()
    t.do(bb.NextRound())
    return t


def ambush() -> Fight:
    luwe = pc(
        "luwe",
        "Luwe",
        1,
        {"Melee": 8, "Ranged": 10, "Stealth": 6, "Knowledge": 8, "Athletics": 4},
        nova_points=1,
        **{nova_box_key(size): True for size in (6, 8, 10, 12)},
    )
    t = fight((luwe,) + crew()[1:], surprise="enemies", entered_dice=True, change_cost=0)
    t.do(bb.Declare(enemy="boss", target="luwe", text="ambush from the vents"))
    t.do(bb.Declare(enemy="captain", target="furo", text="net gun"))
    t.do(bb.ChangeDeclaration(declaration=2, text="boarding hook"))
    t.do(bb.Declare(enemy="grunt", target="balla", text="knife"))
    t.do(bb.StartPlayers())  # surprised: straight to Phase 3
    t.do(bb.Resolve(declaration=1, outcome="hit", damage=1))
    t.do(bb.Resolve(declaration=2, outcome="missed"))
    t.do(bb.Resolve(declaration=3, outcome="hit", damage=0))
    t.do(bb.NextRound())
    t.do(bb.Declare(enemy="boss", target="balla", text="laser sword"))
    t.do(bb.Declare(enemy="captain", target="luwe", text="laser pistol"))
    t.do(bb.Declare(enemy="grunt", target="furo", text="knife"))
    t.do(bb.StartPlayers())
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Athletics", intent="move"), faces=[4, 1])  # the d4 fills the boxes
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="grunt"), faces=[2, 9, 9])
    t.undo()
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="grunt"), faces=[2, 9, 1])
    t.do(bb.EndTurn(actor="luwe"))
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.FreeMove(actor="furo", squares=6))
    t.do(bb.SkillRoll(actor="furo", skill="Melee", intent="attack", target="captain", entered=(3, 3)))
    t.do(bb.ResolveFailure(choice="collapse", note="ignored: a Collapse point needs no words"))
    t.do(bb.SpendNova(actor="luwe", points=2))
    # Recorded when Phase 3 could start before every PC had a turn: Ballallanava never took hers. Today the GM
    # would skip her first (issue 18), so the event is logged as it was decided then.
    t.as_decided_then(bb.PhaseStarted(round=2, phase=3))
    return t


def pcs_first() -> Fight:
    t = fight(crew(), surprise="pcs", failure_default="consequence")
    t.do(bb.SetCondition(target="luwe", slot="pos_minor", value="Melee"))
    t.do(bb.SetCondition(target="furo", slot="neg_moderate", value="Physical"))
    t.do(bb.SetCondition(target="balla", slot="neg_significant", value="yes"))
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="captain"), faces=[5, 2])
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="captain"), faces=[8, 1])
    t.do(bb.EndTurn(actor="luwe"))
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.SkillRoll(actor="furo", skill="Athletics", intent="other", note="vaults the rail"), faces=[1, 2, 3])
    t.do(bb.EndTurn(actor="furo"))
    t.do(bb.SetCondition(target="balla", slot="neg_significant", value=""))
    t.do(bb.ClaimTurn(actor="balla"))
    t.do(bb.SkillRoll(actor="balla", skill="Athletics", intent="other"), faces=[6, 6])
    t.do(bb.ResolveFailure(choice="consequence"))
    t.do(bb.StartEnemies())  # round 1's Phase 3 is skipped
    t.do(bb.Declare(enemy="boss", target="luwe", text="laser sword"))
    t.do(bb.Declare(enemy="grunt", target="luwe", text="knife"))
    t.do(bb.StartPlayers())
    return t


def armed() -> Fight:
    whip = {"weapon_name": ["drain whip"], "weapon_draining": True}
    luwe = pc("luwe", "Luwe", 1, {"Ranged": 10}, shield=1, shield_max=2, **whip)
    siphon = {"weapon_name": ["siphon cannon"], "weapon_damage": 2, "weapon_draining": True}
    boss = bb.fighter_from_sheet("boss", "Nivick boss", "enemy", None, {"health": 3, "health_max": 3, **siphon}, ())
    grenade = {"health": 2, "health_max": 2, "weapon_name": ["grenade"], "weapon_burst": 2}
    captain = bb.fighter_from_sheet("captain", "Pirate captain", "enemy", None, grenade, ())
    aware = ("luwe", "balla", "furo")
    enemies = (replace(boss, aware_of=aware), replace(captain, aware_of=aware), enemy("grunt", "Pirate grunt", 1))
    t = fight((luwe,) + crew()[1:3] + enemies, draining_on_miss=True)
    t.do(bb.Declare(enemy="boss", target="luwe", text="fires"))
    t.do(bb.Declare(enemy="captain", target="furo", text="lobs"))
    t.do(bb.Declare(enemy="grunt", target="balla", text="shoves", unarmed=True))
    t.do(bb.StartPlayers())
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.SkillRoll(actor="luwe", skill="Ranged", intent="attack", target="grunt", drain=True), faces=[3, 3])
    t.do(bb.ResolveFailure(choice="collapse"))
    t.do(bb.SkipTurn(pc="balla"))
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.EndTurn(actor="furo"))
    t.do(bb.StartEnemies())
    t.do(bb.Resolve(declaration=1, outcome="hit", drain=True))  # 2 to Luwe through her shield; the boss pays 1
    t.do(bb.Resolve(declaration=2, outcome="hit", targets=("furo", "balla", "grunt")))  # the grunt drops
    t.do(bb.Resolve(declaration=3))  # the grunt is down: its action does not happen
    t.do(bb.RechargeShield(target="luwe"))
    t.do(bb.NextRound())
    return t


def grid() -> Fight:
    t = fight(crew())
    for who, square in (("luwe", "A1"), ("balla", "A3"), ("furo", "B5"), ("boss", "H1"), ("captain", "C2")):
        t.do(bb.Place(fighter=who, to=square))
    t.do(bb.Place(fighter="grunt", to="J9"))
    t.undo()
    t.do(bb.Place(fighter="grunt", to="J8"))
    t.do(bb.Declare(enemy="boss", target="luwe", text="laser sword"))
    t.do(bb.Declare(enemy="captain", target="balla", text="cutlass"))
    t.do(bb.Declare(enemy="grunt", target="balla", text="slingshot"))
    t.do(bb.StartPlayers())
    t.do(bb.ClaimTurn(actor="luwe"))
    t.do(bb.FreeMove(actor="luwe", to="B2"))
    t.do(bb.SkillRoll(actor="luwe", skill="Melee", intent="attack", target="captain"), faces=[1, 7])
    t.do(bb.EndTurn(actor="luwe"))
    t.do(bb.ClaimTurn(actor="furo"))
    t.do(bb.SkillRoll(actor="furo", skill="Athletics", intent="move", note="sprints"), faces=[2, 5])
    t.do(bb.FreeMove(actor="furo", to="F5"))
    t.do(bb.EndTurn(actor="furo"))
    t.do(bb.SkipTurn(pc="balla"))
    t.do(bb.StartEnemies())
    t.do(bb.MoveEnemy(enemy="boss", to="I1"))  # before its action: 7 squares from Luwe
    t.do(bb.Resolve(declaration=1, outcome="missed"))  # out of range, the GM confirms
    t.do(bb.MoveEnemy(enemy="boss", to="F1"))  # after it: 4 squares of its 5 in all
    t.do(bb.Resolve(declaration=2, outcome="hit"))
    t.do(bb.Resolve(declaration=3, outcome="hit"))  # 9 squares away: the GM resolves it anyway
    t.do(bb.NextRound())
    return t


FIGHTS = {"raid": raid, "ambush": ambush, "pcs_first": pcs_first, "armed": armed, "grid": grid}


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
