"""Small helpers the combat models' table tests share."""

import html as html_lib
import re

from combat import services, store
from combat.rules import registry
from combat.rules.dice import ScriptedDice
from combat.rules.stats import OVERRIDES


def valid_sheet(model: str, **values) -> dict:
    """A character sheet for `model`: its defaults with `values` over them, checked by the model's schema.

    A value for a derived stat (Defense, initiative DEX) is the GM's override: the fight uses it as given."""
    schema = registry.get(model).stats
    clean, errors = schema.validate({**schema.defaults(), **values})
    overrides, override_errors = schema.clean_overrides(values)
    assert not errors and not override_errors, (errors, override_errors)
    return {**clean, OVERRIDES: overrides} if overrides else clean


def combatant_key(character, n=None) -> str:
    """The key a character has in an encounter: an NPC's n-th copy, or a PC."""
    return f"npc{character.pk}-{n}" if n else f"pc{character.pk}"


def state_of(encounter):
    """The encounter's state as stored now."""
    encounter.refresh_from_db()
    return store.load_state(encounter)


def submit(encounter, user, name, faces=(), **data):
    """`user` posts the command `name` as the table's forms do, the server rolling `faces`; each post its own key."""
    submit.n = getattr(submit, "n", 0) + 1  # each post its own idempotency key
    key = f"h{submit.n}"
    return services.submit(encounter.pk, user, name, data, key, from_form=True, dice=ScriptedDice(faces))


def act(encounter, user, name, faces=(), **data) -> None:
    """`submit`, which must be accepted."""
    result = submit(encounter, user, name, faces, **data)
    assert result.ok, result.error


def page_text(html: str) -> str:
    """The HTML's words, tags dropped, spaces squeezed (entities left as written)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


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
