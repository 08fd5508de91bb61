"""Reads of an encounter's rules state and log: no writes. Services, selectors, fragments and exports read
through here, so the writers (combat.services) and the readers never import each other."""

from __future__ import annotations

from combat.models import Encounter, EncounterEvent, LogCheckpoint
from combat.rules import registry
from combat.rules.contract import Engine
from combat.rules.core import Logged, RuleError, from_json


def engine_for(encounter: Encounter) -> Engine:
    try:
        return registry.get(encounter.model).engine
    except KeyError:
        raise RuleError("This encounter's combat model is not one Fray plays.") from None


def load_state(encounter: Encounter):
    return from_json(engine_for(encounter).State, encounter.state)


def load_initial(encounter: Encounter):
    return from_json(engine_for(encounter).State, encounter.initial)


def load_log(encounter: Encounter, after: int = 0, until: int | None = None) -> list[Logged]:
    """The log in order; `after`: only the entries after that seq; `until`: none after that seq."""
    codec = engine_for(encounter).CODEC
    rows = EncounterEvent.objects.filter(encounter_id=encounter.pk, seq__gt=after)
    if until is not None:
        rows = rows.filter(seq__lte=until)
    rows = rows.order_by("seq").values_list("seq", "payload")
    return [Logged(seq=seq, event=codec.event_from_json(payload)) for seq, payload in rows]


CHECKPOINT_EVERY = 100  # a LogCheckpoint each time the log passes a multiple of this many entries


def load_log_tail(encounter: Encounter, keep: int) -> tuple[object | None, list[Logged]]:
    """(the state before the first entry returned, the entries): the log after the newest checkpoint that leaves
    at least `keep` entries, else (None, the whole log): None stands for the initial state. A render replays
    only these."""
    if encounter.version >= CHECKPOINT_EVERY + keep:  # else no checkpoint can leave `keep` entries: no query
        checkpoint = (
            LogCheckpoint.objects.filter(encounter_id=encounter.pk, seq__lte=encounter.version - keep)
            .order_by("-seq")
            .values_list("seq", "state")
            .first()
        )
        if checkpoint is not None:
            seq, state = checkpoint
            return from_json(engine_for(encounter).State, state), load_log(encounter, after=seq)
    return None, load_log(encounter)
