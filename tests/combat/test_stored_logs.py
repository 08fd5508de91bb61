"""Every stored log replays: the logs in tests/combat/fixtures/logs were written by earlier code, and today's
engines must rebuild the same state and the same words from them (events and evolve are the stored schema)."""

import json

import pytest

from combat.rules import registry
from combat.rules.core import Logged, from_json, to_json
from tests.combat.stored_logs import as_stored, fixtures, replay_with_words

PATHS = list(fixtures())


def test_every_registered_model_keeps_stored_logs():
    kept = {json.loads(path.read_text())["model"] for path in PATHS}
    assert kept >= set(registry.MODELS)


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_a_stored_log_replays_to_its_stored_state_and_words(path):
    data = json.loads(path.read_text())
    engine = registry.get(data["model"]).engine
    initial = from_json(engine.State, data["initial"])
    log = [Logged(seq=e["seq"], event=engine.CODEC.event_from_json(e["payload"])) for e in data["events"]]
    final, words = replay_with_words(engine, initial, log)
    assert as_stored(engine.State, to_json(final), data["final"]) == data["final"]
    assert [list(pair) for pair in words] == data["words"]


def test_a_stored_log_pins_the_free_rolls_of_every_audience():
    """Issue 19's dice roller: its `dice_rolled` event as the log stores it, for everyone, for the GM, for the roller
    alone, in a player's own name and as the GM's secret roll (tests/combat/record_free_roll_logs.py)."""
    data = json.loads((PATHS[0].parent / "burn_bryte-free_rolls.json").read_text())
    rolls = [e["payload"]["data"] for e in data["events"] if e["payload"]["kind"] == "dice_rolled"]
    assert {(r["show"], bool(r["roller"]), bool(r["player"])) for r in rolls} == {
        ("all", False, False),  # the GM, for everyone
        ("gm", False, False),  # the GM's secret roll
        ("all", True, False),
        ("gm", True, False),
        ("self", True, False),
        ("all", False, True),  # a player in their own name
    }
    assert set(rolls[0]) == {"faces", "notation", "player", "roller", "show", "total"}
