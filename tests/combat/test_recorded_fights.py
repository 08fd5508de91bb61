"""The scripted fights behind the stored-log fixtures still play out as they were recorded: today's `decide`
makes the same events from the same commands and dice. (test_stored_logs checks that evolve and describe
rebuild the same state and words from the stored events.)"""

import json

import pytest

from combat.rules import registry
from combat.rules.core import to_json
from tests.combat import record_burn_bryte_logs, record_hero_logs
from tests.combat.stored_logs import FIXTURES, as_stored

RECORDERS = {"hero": record_hero_logs, "burn_bryte": record_burn_bryte_logs}
CASES = [(model, name) for model, recorder in RECORDERS.items() for name in recorder.FIGHTS]


@pytest.mark.parametrize("model,name", CASES, ids=[f"{model}-{name}" for model, name in CASES])
def test_a_recorded_fight_decides_the_same_events_today(model, name):
    stored = json.loads((FIXTURES / f"{model}-{name}.json").read_text())
    fight = RECORDERS[model].FIGHTS[name]()
    codec = registry.get(model).engine.CODEC
    state_type = registry.get(model).engine.State
    defaults = {setting.key: setting.default for setting in registry.get(model).engine.SETTINGS}
    assert as_stored(state_type, to_json(fight.initial), stored["initial"], defaults) == stored["initial"]
    # Compared as events: a field added since with its default (Undone.gm_only) reads the same.
    played = [(item.seq, item.event) for item in fight.log]
    assert played == [(e["seq"], codec.event_from_json(e["payload"])) for e in stored["events"]]
