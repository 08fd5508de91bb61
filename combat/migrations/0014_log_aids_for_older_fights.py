"""Fights stored before checkpoints and stored words (0006, 0007), and fights imported before imports wrote them,
gain what play writes now: each entry's words and a checkpoint every hundred entries (rules.core.log_aids), so
their review reads them instead of replaying the whole log at every step.

The rules core is pure (JSON in, JSON out, no models), so a migration may use it. A fight whose log the rules of
today cannot read is left as it was: its review words it by replaying, as before."""

from django.db import migrations

CHECKPOINT_EVERY = 100  # as combat.store.CHECKPOINT_EVERY when this was written


def fill(apps, schema_editor):
    from combat.rules import registry
    from combat.rules.core import WORDING, Logged, from_json, log_aids, to_json

    Encounter = apps.get_model("combat", "Encounter")
    EncounterEvent = apps.get_model("combat", "EncounterEvent")
    LogCheckpoint = apps.get_model("combat", "LogCheckpoint")
    unworded = EncounterEvent.objects.exclude(wording=WORDING).values("encounter_id")
    for pk in list(Encounter.objects.filter(pk__in=unworded).values_list("pk", flat=True)):  # read before writing
        encounter = Encounter.objects.get(pk=pk)
        try:
            engine = registry.get(encounter.model).engine
            rows = list(EncounterEvent.objects.filter(encounter_id=encounter.pk).order_by("seq"))
            log = [Logged(seq=row.seq, event=engine.CODEC.event_from_json(row.payload)) for row in rows]
            initial = from_json(engine.State, encounter.initial)
            words, states = log_aids(engine.describe, engine.evolve, initial, log, CHECKPOINT_EVERY)
        except Exception:  # noqa: BLE001  an unreadable log keeps being worded by replay, as before
            continue
        for row in rows:
            row.gm_text, row.players_text = words[row.seq]
            row.wording = WORDING
        EncounterEvent.objects.bulk_update(rows, ["gm_text", "players_text", "wording"], batch_size=1000)
        LogCheckpoint.objects.filter(encounter_id=encounter.pk).delete()
        LogCheckpoint.objects.bulk_create(
            LogCheckpoint(encounter_id=encounter.pk, seq=seq, state=to_json(state)) for seq, state in states.items()
        )


class Migration(migrations.Migration):
    dependencies = [("combat", "0013_share_link_kind")]

    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
