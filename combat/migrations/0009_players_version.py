from django.db import migrations, models
from django.db.models import Count, Q


def count_what_players_read(apps, schema_editor):
    """Existing encounters: players have read every entry not the GM's alone and not worded empty for them."""
    Encounter = apps.get_model("combat", "Encounter")
    readable = ~Q(events__audience="gm") & (Q(events__players_text__isnull=True) | ~Q(events__players_text=""))
    for pk, count in Encounter.objects.annotate(n=Count("events", filter=readable)).values_list("pk", "n"):
        Encounter.objects.filter(pk=pk).update(players_version=count)


class Migration(migrations.Migration):
    dependencies = [
        ("combat", "0008_export_progress"),
    ]

    operations = [
        migrations.AddField(
            model_name="encounter",
            name="players_version",
            field=models.PositiveIntegerField(
                default=0,
                help_text="How many log entries players may read: their version of the table, which entries hidden "
                "from them never move.",
            ),
        ),
        migrations.RunPython(count_what_players_read, migrations.RunPython.noop),
    ]
