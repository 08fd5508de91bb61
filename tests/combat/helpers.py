"""Small helpers the combat models' table tests share."""

from combat import store
from combat.rules import registry


def valid_sheet(model: str, **values) -> dict:
    """A character sheet for `model`: its defaults with `values` over them, checked by the model's schema."""
    schema = registry.get(model).stats
    clean, errors = schema.validate({**schema.defaults(), **values})
    assert not errors, errors
    return clean


def combatant_key(character, n=None) -> str:
    """The key a character has in an encounter: an NPC's n-th copy, or a PC."""
    return f"npc{character.pk}-{n}" if n else f"pc{character.pk}"


def state_of(encounter):
    """The encounter's state as stored now."""
    encounter.refresh_from_db()
    return store.load_state(encounter)


def unword(encounter) -> None:
    """Forget the words stored with every entry of the log, as for a log written before entries were worded."""
    encounter.events.update(gm_text=None, players_text=None, wording=None)


def without_form_keys(html: str) -> str:
    """The fragments with each action form's idempotency key blanked: keys are random per render."""
    import re

    return re.sub(r'name="key" value="[^"]*"', 'name="key" value=""', html)
