"""The Churn on the GM's Expanse table: the effect waiting to be applied (with its prompt), whose next test the
Churn makes fail, and who it may pick. All of it is the GM's alone (`GmTableView`'s gm_only fields)."""

from __future__ import annotations

from combat.rules import expanse as ex
from combat.rules.expanse import churn
from combat.tables.expanse_views import ChurnDue, Ref


def churn_fields(state: ex.State) -> dict:
    """The GM view's Churn fields: `churn_due`, `churn_marked` and `churn_targets`."""
    due = None
    if state.churn_due:
        label, prompt = churn.SEVERITIES[state.churn_due[0]]
        due = ChurnDue(label=label, prompt=prompt, more=len(state.churn_due) - 1)
    return dict(
        churn_due=due,
        churn_marked=tuple(f.name for f in state.fighters if f.churn_fail),
        churn_targets=tuple(Ref(key=f.id, name=f.name) for f in state.fighters if not f.out),
        churn_conditions=churn.CHURN_CONDITIONS,
    )
