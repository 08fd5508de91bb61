"""Small helpers the combat models' table tests share."""

import html as html_lib
import re

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
    return re.sub(r'name="key" value="[^"]*"', 'name="key" value=""', html)


INLINE_FORM = re.compile(r'<form [^>]*class="inline-edit"[^>]*>(.*?)</form>', re.S)


def inline_edit(markup: str, said: str) -> dict[str, str]:
    """The fields the GM's quick edit named `said` ("STUN -1 for Ogre") posts, read from the table's HTML as a
    browser would send them: its hidden inputs (the CSRF token left out). Fails if the table has no such control."""
    found = [
        form
        for form in INLINE_FORM.findall(markup)
        if f'aria-label="{html_lib.escape(said)}"' in form or f'aria-label="{said}"' in form
    ]
    assert len(found) == 1, f"{len(found)} quick edits named {said!r}"
    fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', found[0])
    return {name: html_lib.unescape(value) for name, value in fields if name != "csrfmiddlewaretoken"}
