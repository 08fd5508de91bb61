"""How the Expanse stored-log fixture `expanse-churn-effects.json` was made (issue 19): the Churn's thresholds
with their roll and the effects the GM applied, a test the Churn made fail, stunning damage past cover, a Run
that took the whole turn and an unseen enemy revealed before it was shot.

Run once with `.venv/bin/python -m tests.combat.record_expanse_churn_logs`; the JSON file it wrote is the fixture
and is never re-recorded: `tests/combat/test_stored_logs.py` checks today's engine still replays it.
"""

from __future__ import annotations

from combat.rules import expanse as ex
from combat.rules.core import Reveal
from tests.combat.record_expanse_logs import Fight, boss, furo, grunt, luwe, pistol


def churn_effects() -> Fight:
    settings = {"churn": True, "injury_penalties": "add"}
    fight = Fight(
        ex.initial_state((luwe(aware_of=("boss",)), furo(aware_of=("boss",)), boss(cover=2), grunt()), settings)
    )
    # Luwe 15 + 5, Furo 12, Boss 7, Grunt 4 + 1.
    fight.do(ex.RollInitiative(), [6, 5, 4, 3, 4, 5, 2, 2, 3, 1, 2, 1])
    fight.do(ex.AdjustChurn(change=10, reason="the chase before"), [5])  # 1d6 shows 5 at 10: a major effect
    fight.do(ex.ApplyChurn(effect="narrate", note="the dock's lights fail"))
    fight.do(ex.NextTurn())
    # Luwe's stunning shot: 12 + 5 hits the Boss in cover; 1d6 + 2 = 6, and neither Toughness nor cover stops it.
    fight.do(pistol("luwe", "boss", stunning=True), [4, 5, 3, 4])
    fight.do(ex.SpendFortune(actor="boss", points=2))
    fight.do(ex.AcceptCondition(actor="boss"), [5])
    fight.do(ex.EndTurn(actor="luwe"))
    fight.do(ex.Run(actor="furo", metres=20, cover=1))  # Run takes Furo's whole turn
    fight.do(ex.Defend(actor="boss"))
    fight.do(ex.EndTurn(actor="boss"))
    fight.do(Reveal(fighter="grunt"))
    fight.do(ex.AdjustChurn(change=10), [2])  # 1d6 shows 2 at 20: a minor effect
    fight.do(ex.ApplyChurn(effect="fail", target="grunt", note="his gun arm cramps"))
    # The Grunt's 6, 6, 6 would hit anyone: the Churn makes it fail.
    fight.do(
        ex.Attack(actor="grunt", action="ranged_attack", weapon="pistol", target="luwe", distance=5), [6, 6, 6, 1, 1]
    )
    fight.do(ex.EndTurn(actor="grunt"))
    fight.do(pistol("luwe", "grunt"), [1, 1, 3])
    return fight


def main() -> None:
    print(churn_effects().save("churn-effects"))


if __name__ == "__main__":
    main()
