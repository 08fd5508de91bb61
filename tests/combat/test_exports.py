"""Exports: each format, the JSON round trip, a player's view, the task's retry safety, the download."""

import csv
import html
import io
import json

import pytest
from django.urls import reverse
from markdown_it import MarkdownIt

from campaigns.models import Character, Membership
from combat import exports, services, store
from combat.models import Encounter, ExportJob
from combat.rules.dice import ScriptedDice
from combat.tasks import run_export
from tests.combat.test_review import fought  # noqa: F401  (a scripted fight with a GM-only event and an undo)
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def export(encounter, fmt, gm_view=True):
    out = io.StringIO()
    count = exports.WRITERS[fmt](encounter, gm_view, out)
    return out.getvalue(), count


def test_json_is_versioned_and_imports_back_to_the_same_state(fought, campaign, gm):
    text, count = export(fought, "json")
    data = json.loads(text)
    assert data["schema"] == "fray.encounter-export" and data["version"] == 1 and data["complete"] is True
    assert count == len(data["events"]) == fought.events.count()
    copy = exports.import_encounter(campaign, gm, data)
    assert copy.pk != fought.pk
    assert store.load_state(copy) == store.load_state(fought)
    assert copy.events.count() == fought.events.count()


def test_import_refuses_what_it_cannot_replay(fought, campaign, gm):
    data = json.loads(export(fought, "json")[0])
    with pytest.raises(exports.ExportImportError, match="not a Fray encounter export"):
        exports.import_encounter(campaign, gm, {"schema": "other"})
    with pytest.raises(exports.ExportImportError, match="version 7"):
        exports.import_encounter(campaign, gm, {**data, "version": 7})
    tampered = {**data, "final": {**data["final"], "collapse": 99}}
    with pytest.raises(exports.ExportImportError, match="does not replay"):
        exports.import_encounter(campaign, gm, tampered)
    assert Encounter.objects.count() == 1  # nothing half-imported


def test_csv_has_one_row_per_event(fought):
    text, count = export(fought, "csv")
    table = list(csv.DictReader(io.StringIO(text)))
    assert len(table) == count == fought.events.count()
    roll = next(r for r in table if r["kind"] == "skill_rolled" and "Melee to attack" in r["event"])
    assert roll["dice"] == "3d8: 4 4 1" and roll["round"] == "1" and roll["phase"] == "2"
    assert table[-2]["undone"] == "yes" and "undid" in table[-1]["event"]


def test_markdown_reads_well_in_a_chat(fought):
    text, _ = export(fought, "md")
    assert text.startswith("# Relay\n") and "## Round 1" in text and "## Round 2" in text
    assert "- Luwe rolls Knowledge to create an advantage" in text
    assert "~~Nivick loses 1 Health Level.~~ (undone)" in text


def test_printable_page_has_a_print_stylesheet(fought):
    text, _ = export(fought, "html")
    assert "@media print" in text and "<h2>Round 1</h2>" in text and text.rstrip().endswith("</html>")


def test_a_players_export_holds_only_what_they_may_see(fought):
    for fmt in ("json", "csv", "md", "html"):
        text, _ = export(fought, fmt, gm_view=False)
        assert "frenzy" not in text and "Collapse" not in text, fmt
    data = json.loads(export(fought, "json", gm_view=False)[0])
    assert data["complete"] is False and "initial" not in data and "final" not in data
    assert all(e["data"] is None or e["kind"] == "undone" for e in data["events"])


def test_export_task_from_the_log_page_to_the_download(
    fought, client, player, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    client.force_login(player)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("export_start", args=[fought.campaign_id, fought.pk]),
            {"format": "md"},
            headers={"HX-Request": "true"},
        )
    job = ExportJob.objects.get()
    assert job.status == "done" and not job.gm_view and job.events > 0
    assert 'hx-trigger="every 1s"' in response.content.decode()  # the row polls until the task finishes
    status = client.get(reverse("export_status", args=[fought.campaign_id, job.pk])).content.decode()
    assert "download" in status and "every 1s" not in status
    download = client.get(reverse("export_download", args=[fought.campaign_id, job.pk]))
    body = b"".join(download.streaming_content).decode()
    assert download["Content-Disposition"].startswith('attachment; filename="relay-')
    assert "# Relay" in body and "frenzy" not in body


def test_running_the_task_twice_changes_nothing(fought, gm, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    job = ExportJob.objects.create(encounter=fought, requested_by=gm, gm_view=True, format="csv")
    run_export(job.pk)
    job.refresh_from_db()
    first = job.file.name
    run_export(job.pk)
    job.refresh_from_db()
    assert job.file.name == first and len(list((tmp_path / "exports").iterdir())) == 1


def test_a_task_delivered_again_while_running_fails_the_export_for_a_retry(
    fought, gm, client, settings, tmp_path, django_capture_on_commit_callbacks
):
    """The broker hands a running task back only when the worker running it died: the export says so at once,
    and "Try again" makes it, once."""
    settings.MEDIA_ROOT = tmp_path
    job = ExportJob.objects.create(
        encounter=fought, requested_by=gm, gm_view=True, format="json", status=ExportJob.Status.RUNNING
    )
    assert run_export(job.pk, 1) == "skipped"
    job.refresh_from_db()
    assert job.status == "failed" and job.error == "The worker writing it stopped before it finished."
    assert not (tmp_path / "exports").exists()
    client.force_login(gm)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("export_retry", args=[fought.campaign_id, job.pk]))
    job.refresh_from_db()
    assert job.status == "done" and json.loads(job.file.read())["complete"] is True
    assert len(list((tmp_path / "exports").iterdir())) == 1


def test_others_cannot_fetch_my_export(fought, client, player, other_player, gm, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    job = ExportJob.objects.create(encounter=fought, requested_by=gm, gm_view=True, format="csv")
    run_export(job.pk)
    client.force_login(player)
    assert client.get(reverse("export_download", args=[fought.campaign_id, job.pk])).status_code == 404
    assert client.get(reverse("export_status", args=[fought.campaign_id, job.pk])).status_code == 404


def test_unknown_format_is_refused_with_a_sentence(fought, client, gm):
    client.force_login(gm)
    response = client.post(
        reverse("export_start", args=[fought.campaign_id, fought.pk]), {"format": "pdf"}, follow=True
    )
    assert "Choose JSON, CSV, Markdown or the printable page." in response.content.decode()
    assert not ExportJob.objects.exists()


def test_gm_imports_an_export_from_the_encounters_page(fought, client, gm, player):
    from django.core.files.uploadedfile import SimpleUploadedFile

    text, _ = export(fought, "json")
    url = reverse("encounter_import", args=[fought.campaign_id])
    client.force_login(player)
    assert client.post(url, {"file": SimpleUploadedFile("x.json", text.encode())}).status_code == 404
    client.force_login(gm)
    response = client.post(url, {"file": SimpleUploadedFile("relay.json", text.encode())}, follow=True)
    copy = Encounter.objects.exclude(pk=fought.pk).get()
    assert "it replays to the exported state" in response.content.decode()
    assert store.load_state(copy) == store.load_state(fought)
    for junk, sentence in (
        (b"{not json", "That file is not valid JSON."),
        (
            b'{"schema": "fray.encounter-export", "version": 1, "complete": true}',
            "That export is missing parts Fray needs",
        ),
        (b"[]", "This is not a Fray encounter export."),
    ):
        response = client.post(url, {"file": SimpleUploadedFile("j.json", junk)}, follow=True)
        assert sentence in response.content.decode()
    assert "Choose a JSON export file" in client.post(url, {}, follow=True).content.decode()
    assert Encounter.objects.count() == 2


def test_every_key_the_json_export_writes_is_documented(fought):
    """combat/EXPORTS.md documents the schema: a key written but not documented fails here, so the doc cannot drift."""
    from pathlib import Path

    doc = (Path(exports.__file__).parent / "EXPORTS.md").read_text(encoding="utf-8")
    assert f"`{exports.SCHEMA}`" in doc and f"version {exports.VERSION}" in doc
    for gm_view in (True, False):
        data = json.loads(export(fought, "json", gm_view=gm_view)[0])
        written = {
            "top level": set(data),
            "encounter": set(data["encounter"]),
            "combatants": {k for c in data["combatants"] for k in c},
            "events": {k for e in data["events"] for k in e},
        }
        for where, keys in written.items():
            missing = sorted(k for k in keys if f"| `{k}` |" not in doc)
            assert not missing, f"{where} keys not in combat/EXPORTS.md: {missing}"
    header = next(csv.reader(io.StringIO(export(fought, "csv")[0])))
    assert not [column for column in header if f"| `{column}` |" not in doc]


# --- names that try to turn an export against its reader ---------------------------------------------------------


def named_fight(campaign, gm, pc_name: str, npc_name: str, encounter_name: str = "Relay", username: str = "cara"):
    """A short Burn Bryte fight whose PC, NPC, encounter and player carry the given names: the enemy declares, the
    PC takes a turn and rolls, so sentences start with each name."""
    player = make_user(username)
    Membership.objects.create(campaign=campaign, user=player)
    pc = Character.objects.create(campaign=campaign, name=pc_name, owner=player, system="burn_bryte")
    npc = Character.objects.create(
        campaign=campaign, name=npc_name, kind="npc", system="burn_bryte", is_template=True, quantity=1
    )
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name=encounter_name, model="burn_bryte", pcs=[pc], enemies=[(npc, 1)]),
        gm,
    )
    L, N = f"pc{pc.pk}", f"npc{npc.pk}-1"
    for i, (user, name, data, dice) in enumerate(
        [
            (gm, "declare", {"enemy": N, "target": L}, ()),
            (gm, "start_players", {}, ()),
            (player, "claim_turn", {"actor": L}, ()),
            (player, "skill_roll", {"actor": L, "skill": "Melee", "intent": "attack", "target": N}, (4, 2, 1)),
        ]
    ):
        assert services.submit(encounter.pk, user, name, data, f"n{i}", dice=ScriptedDice(dice)).ok, name
    encounter.refresh_from_db()
    return encounter


FORMULAS = [
    '=HYPERLINK("http://evil.example","x")',
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)",
    "\tTab=1+1",
    "\rCR=1+1",
]


@pytest.mark.parametrize("formula", FORMULAS, ids=["equals", "plus", "minus", "at", "tab", "carriage-return"])
def test_csv_cells_that_would_be_formulas_are_text(campaign, gm, formula):
    encounter = named_fight(
        campaign,
        gm,
        pc_name=formula,
        npc_name=formula[0] + "Drone",
        encounter_name=formula,
        username="@cara" if formula[0] != "@" else "-cara",
    )
    text, count = export(encounter, "csv")
    table = list(csv.reader(io.StringIO(text, newline="")))
    assert len(table) == count + 1
    for row in table[1:]:
        assert not [cell for cell in row if cell.startswith(exports.FORMULA_STARTS)], row
        seq, _time, round_, phase = row[:4]
        assert seq.isdigit() and round_.isdigit() and phase.isdigit()  # numbers stay numbers
    sentences = [row[6] for row in table[1:]]
    assert any(s.startswith("'" + formula[0] + "Drone declares") for s in sentences), sentences  # the NPC's name
    assert any(s.startswith("'" + formula) and "Melee" in s for s in sentences), sentences  # the PC's name
    players = {row[5] for row in table[1:]} - {gm.username}
    assert players and all(name.startswith("'") for name in players)  # a username may start with @ or - too


def _rendered_items(markdown: str) -> list[str]:
    """The list items a CommonMark renderer (GFM tables and strikethrough on) makes of a Markdown export."""
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    return [item.split("</li>")[0] for item in rendered.split("<li>")[1:]], rendered


HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "**[click](javascript:alert(1))**",
    "`code` & <b>bold</b> ~~gone~~",
    "# 1. | a | b |",
    "- [x](<javascript:alert(1)>) ![i](x.png)",
    "1) _under_ \\*",
]


@pytest.mark.parametrize(
    "name",
    HOSTILE,
    ids=["html", "link", "code-entity-strike", "heading-list-table", "nested-list-image", "numbered-emphasis"],
)
def test_markdown_export_shows_names_as_literal_text(campaign, gm, name):
    encounter = named_fight(campaign, gm, pc_name=name, npc_name=name[::-1], encounter_name=name)
    markdown, count = export(encounter, "md")
    items, rendered = _rendered_items(markdown)
    sentences = [row.text for row in exports.rows(encounter, True)]
    assert len(items) == count == len(sentences)
    assert items == [html.escape(s, quote=False) for s in sentences]  # each bullet reads exactly as the sentence
    assert f"<h1>{html.escape(name, quote=False)}</h1>" in rendered
    assert "<img" not in rendered and "<a " not in rendered and "<strong>" not in rendered


def test_markdown_export_keeps_a_name_on_its_line(campaign, gm):
    encounter = named_fight(
        campaign,
        gm,
        pc_name="Luwe\n## Round 99\n- forged",
        npc_name="Nivick",
        encounter_name="Relay\n\n<script>alert(1)</script>",
    )
    markdown, count = export(encounter, "md")
    items, rendered = _rendered_items(markdown)
    assert len(items) == count and "Round 99</h2>" not in rendered and "<script>" not in rendered


@pytest.mark.parametrize("name", HOSTILE[:2])
def test_printable_page_escapes_names(campaign, gm, name):
    encounter = named_fight(campaign, gm, pc_name=name, npc_name="Nivick", encounter_name=name)
    page, _ = export(encounter, "html")
    assert "<img" not in page and "<strong>" not in page and "<a " not in page
    assert f"<h1>{html.escape(name)}</h1>" in page and f"<li>{html.escape(name)} rolls Melee" in page
    # Opened from disk, the page's own policy forbids any script all the same.
    assert (
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        in page
    )


# --- hostile imports ---------------------------------------------------------------------------------------------


def _import(client, campaign, raw: bytes):
    """POST a file to the import as the GM; returns (response, whether the database stayed as it was)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from combat.models import Combatant, EncounterEvent

    def counts():
        return Encounter.objects.count(), Combatant.objects.count(), EncounterEvent.objects.count()

    before = counts()
    response = client.post(
        reverse("encounter_import", args=[campaign.pk]),
        {"file": SimpleUploadedFile("export.json", raw, content_type="application/json")},
    )
    return response, counts() == before


def _refused(response, sentence: str) -> bool:
    page = response.content.decode()
    return response.status_code == 400 and f'<p class="error" role="alert" id="import-error">{sentence}' in page


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("how", ["100,000 brackets", "inside the settings"])
def test_a_deeply_nested_import_is_refused_with_a_sentence(fought, gm_client, how):
    if how == "100,000 brackets":
        raw = b"[" * 100_000 + b"]" * 100_000
    else:  # parses, but would recurse in every check and in the JSON columns
        doc = json.loads(export(fought, "json")[0])
        doc["encounter"]["settings"]["odd"] = _nested(900)
        raw = json.dumps(doc).encode()
    response, unchanged = _import(gm_client, fought.campaign, raw)
    assert _refused(response, "That file nests its data deeper than any Fray export does.") and unchanged


WRONG_TYPES = {
    "encounter is a list": lambda d: d.update(encounter=[]),
    "events is text": lambda d: d.update(events="many"),
    "a seq is text": lambda d: d["events"][0].update(seq="1"),
    "a seq is true": lambda d: d["events"][0].update(seq=True),
    "initial is a list": lambda d: d.update(initial=[]),
    "a state field is an object": lambda d: d["initial"].update(round={"n": 1}),
    "a state list is a number": lambda d: d["initial"].update(fighters=7),
    "event data is a list": lambda d: d["events"][1].update(data=[1]),
    "event data field is a list": lambda d: d["events"][0]["data"].update(enemy=["x"]),
    "a combatant is a number": lambda d: d.update(combatants=[7]),
    "complete is text": lambda d: d.update(complete="yes"),
    "version is true": lambda d: d.update(version=True),
    "version is huge": lambda d: d.update(version=10**70),
}


@pytest.mark.parametrize("break_it", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_an_import_with_parts_of_the_wrong_type_is_refused_with_a_sentence(fought, gm_client, break_it):
    doc = json.loads(export(fought, "json")[0])
    break_it(doc)
    response, unchanged = _import(gm_client, fought.campaign, json.dumps(doc).encode())
    assert response.status_code == 400 and unchanged
    assert '<p class="error" role="alert" id="import-error">' in response.content.decode()


def test_a_huge_import_within_the_upload_limit_is_refused_with_a_sentence(fought, gm_client):
    doc = json.loads(export(fought, "json")[0])
    limit = exports.MAX_IMPORT_BYTES
    # A real export whose settings carry one enormous text: it would be stored and read on every page.
    padded = {**doc, "encounter": {**doc["encounter"], "settings": {"odd": "x" * (limit - 100_000)}}}
    raw = json.dumps(padded).encode()
    assert len(raw) < limit
    response, unchanged = _import(gm_client, fought.campaign, raw)
    assert _refused(response, "This export holds text far longer than any Fray export does.") and unchanged
    # Millions of tiny objects: gigabytes once parsed. Refused before parsing.
    raw = b"[" + b"{}," * ((limit - 10) // 3) + b"{}]"
    assert len(raw) < limit
    response, unchanged = _import(gm_client, fought.campaign, raw)
    assert _refused(response, "That file holds far more data than any Fray export does.") and unchanged
    # More log entries than an import takes in one request.
    event = {"seq": 0, "batch": 1, "kind": "ended", "audience": "public", "data": {}}
    many = {**doc, "events": [{**event, "seq": n} for n in range(1, exports.MAX_IMPORT_EVENTS + 2)]}
    raw = json.dumps(many).encode()
    assert len(raw) < limit
    response, unchanged = _import(gm_client, fought.campaign, raw)
    assert _refused(response, "That export holds 50,001 log entries; Fray imports at most 50,000.") and unchanged
    # And one byte over the limit is refused without being read.
    response, unchanged = _import(gm_client, fought.campaign, b" " * (limit + 1))
    assert _refused(response, "That file is larger than 20 MB; Fray exports are far smaller.") and unchanged


# --- exports that stop: failed after EXPORT_STALE_AFTER, "Try again", late deliveries ------------------------------


def _job(encounter, user, seconds_since_progress: float, status=ExportJob.Status.RUNNING, gm_view=True) -> ExportJob:
    from datetime import timedelta

    from django.utils import timezone

    job = ExportJob.objects.create(encounter=encounter, requested_by=user, gm_view=gm_view, format="csv", status=status)
    ExportJob.objects.filter(pk=job.pk).update(progressed_at=timezone.now() - timedelta(seconds=seconds_since_progress))
    job.refresh_from_db()
    return job


def test_an_export_that_stops_progressing_fails_with_a_sentence_and_a_try_again_button(fought, gm, client, settings):
    settings.EXPORT_STALE_AFTER = 300
    client.force_login(gm)
    stuck = _job(fought, gm, 400)  # its worker was killed: no progress for longer than the window
    slow = _job(fought, gm, 200)  # still inside the window
    never_started = _job(fought, gm, 400, status=ExportJob.Status.QUEUED)  # no worker took it
    row = client.get(reverse("export_status", args=[fought.campaign_id, stuck.pk])).content.decode()
    assert "the export failed. It stopped making progress; the worker writing it may have stopped." in row
    assert "every 1s" not in row and ">Try again</button>" in row and "csrfmiddlewaretoken" in row
    assert f'hx-post="{reverse("export_retry", args=[fought.campaign_id, stuck.pk])}"' in row
    row = client.get(reverse("export_status", args=[fought.campaign_id, slow.pk])).content.decode()
    assert "running…" in row and "every 1s" in row and "Try again" not in row
    page = client.get(reverse("encounter_log", args=[fought.campaign_id, fought.pk])).content.decode()
    assert page.count(">Try again</button>") == 2  # the log page's list applies the same rule
    statuses = dict(ExportJob.objects.values_list("pk", "status"))
    assert statuses == {stuck.pk: "failed", slow.pk: "running", never_started.pk: "failed"}


def test_try_again_runs_a_new_attempt_to_the_download(
    fought, gm, client, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    settings.EXPORT_STALE_AFTER = 300
    job = _job(fought, gm, 400)
    client.force_login(gm)
    url = reverse("export_retry", args=[fought.campaign_id, job.pk])
    assert client.get(url).status_code == 405
    with django_capture_on_commit_callbacks(execute=False) as queued:
        row = client.post(url, headers={"HX-Request": "true"}).content.decode()
    assert "queued…" in row and "every 1s" in row  # the row polls again
    job.refresh_from_db()
    assert (job.status, job.attempt, job.error) == ("queued", 2, "")
    assert len(queued) == 1
    queued[0]()  # the task runs (eagerly)
    job.refresh_from_db()
    assert job.status == "done" and job.events > 0
    download = client.get(reverse("export_download", args=[fought.campaign_id, job.pk]))
    assert "Melee" in b"".join(download.streaming_content).decode()


def test_only_who_asked_may_try_again_and_only_a_failed_export(
    fought, gm, player, other_player, outsider, client, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    job = _job(fought, player, 0, status=ExportJob.Status.FAILED, gm_view=False)
    url = reverse("export_retry", args=[fought.campaign_id, job.pk])
    assert client.post(url).status_code == 302 and "/login/" in client.post(url)["Location"]
    for someone in (gm, other_player, outsider):  # the GM too: it is the player's export
        client.force_login(someone)
        assert client.post(url).status_code == 404
    assert ExportJob.objects.get().attempt == 1
    client.force_login(player)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url)
    job.refresh_from_db()
    assert (job.status, job.attempt, job.gm_view) == ("done", 2, False)
    response = client.post(url, follow=True)  # a second tap, once it is done
    assert "Only a failed export can be tried again; this one has not failed." in response.content.decode()
    job.refresh_from_db()
    assert (job.status, job.attempt) == ("done", 2)


def test_a_former_gm_tries_again_with_what_they_may_see_now(
    fought, gm, client, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    job = _job(fought, gm, 0, status=ExportJob.Status.FAILED, gm_view=True)
    co_gm = make_user("cora")
    Membership.objects.create(campaign=fought.campaign, user=co_gm, role=Membership.Role.GM)
    job.requested_by = co_gm
    job.save()
    Membership.objects.filter(user=co_gm).update(role=Membership.Role.PLAYER)  # demoted before retrying
    client.force_login(co_gm)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("export_retry", args=[fought.campaign_id, job.pk]))
    job.refresh_from_db()
    assert job.status == "done" and job.gm_view is False
    assert "frenzy" not in job.file.read().decode()  # the GM-only Collapse note stays out


def test_a_late_delivery_of_an_old_attempt_changes_nothing(
    fought, gm, client, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    job = _job(fought, gm, 0, status=ExportJob.Status.FAILED)
    client.force_login(gm)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        client.post(reverse("export_retry", args=[fought.campaign_id, job.pk]))
    assert run_export(job.pk, 1) == "skipped"  # the old message, before the new one runs
    assert ExportJob.objects.get().status == "queued"
    queued[0]()
    job.refresh_from_db()
    done = (job.status, job.attempt, job.file.name, job.events, job.finished_at)
    assert done[:2] == ("done", 2)
    assert run_export(job.pk, 1) == "skipped"  # and after it: the newer run's file stays, no second file
    assert run_export(job.pk, 2) == "skipped"  # the new message delivered twice
    job.refresh_from_db()
    assert (job.status, job.attempt, job.file.name, job.events, job.finished_at) == done
    assert [f.name for f in (tmp_path / "exports").iterdir()] == [job.file.name.split("/")[-1]]


def _writer_that(meanwhile):
    """A CSV writer that does `meanwhile(job)` half-way, as another process would while this task writes."""

    def write(encounter, gm_view, out, reader=None):
        out.write("seq\n1\n")
        meanwhile(ExportJob.objects.get())
        for n in range(2, 5):
            out.write(f"{n}\n")
        return 4

    return write


def test_a_run_failed_as_stalled_stops_and_keeps_no_file(fought, gm, settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = tmp_path
    settings.EXPORT_STALE_AFTER = 0  # note progress on every write
    job = _job(fought, gm, 0, status=ExportJob.Status.QUEUED)
    monkeypatch.setitem(
        exports.WRITERS,
        "csv",
        _writer_that(
            lambda j: ExportJob.objects.filter(pk=j.pk).update(status="failed", error="It stopped making progress.")
        ),
    )
    assert run_export(job.pk, 1) == "superseded"
    job.refresh_from_db()
    assert job.status == "failed" and not job.file and not (tmp_path / "exports").exists()


def test_a_run_that_a_newer_attempt_overtook_keeps_no_file(fought, gm, settings, tmp_path, monkeypatch):
    """The newer attempt finished while this one was writing its last rows: this run's file is nobody's."""
    settings.MEDIA_ROOT = tmp_path
    settings.EXPORT_STALE_AFTER = 3600  # no progress noted in between: caught when the run finishes
    job = _job(fought, gm, 0, status=ExportJob.Status.QUEUED)
    newer = {"attempt": 2, "status": "done", "file": "exports/newer.csv", "events": 9}
    monkeypatch.setitem(
        exports.WRITERS, "csv", _writer_that(lambda j: ExportJob.objects.filter(pk=j.pk).update(**newer))
    )
    assert run_export(job.pk, 1) == "superseded"
    job.refresh_from_db()
    assert (job.attempt, job.status, job.file.name, job.events) == (2, "done", "exports/newer.csv", 9)
    assert list((tmp_path / "exports").iterdir()) == []


def test_with_redis_a_lost_workers_task_returns_in_minutes_not_an_hour(monkeypatch):
    """The settings as a deployment reads them: tasks acknowledged when they end and handed back when their worker
    dies, after a visibility timeout longer than any task runs but far from Celery's default hour; an export's page
    gives up sooner still."""
    import runpy
    from pathlib import Path

    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/2")
    for name in ("CELERY_BROKER_VISIBILITY_TIMEOUT", "EXPORT_STALE_AFTER"):
        monkeypatch.delenv(name, raising=False)
    deployed = runpy.run_path(str(Path(exports.__file__).parents[1] / "config" / "settings.py"))
    assert deployed["CELERY_TASK_ACKS_LATE"] and deployed["CELERY_TASK_REJECT_ON_WORKER_LOST"]
    visibility = deployed["CELERY_BROKER_TRANSPORT_OPTIONS"]["visibility_timeout"]
    assert 60 <= visibility <= 900 and 60 <= deployed["EXPORT_STALE_AFTER"] < visibility


def test_the_markdown_and_printable_exports_say_which_session_the_fight_was(fought, campaign, gm):  # noqa: F811
    """Issue 20: the recap is "also in the exports": a fight's Markdown and printable log say which game session
    (title and date, escaped like every name) it belongs to; a fight outside any session says none."""
    from datetime import UTC, datetime

    from campaigns import sessions

    assert "Session:" not in export(fought, "md")[0] and "Session:" not in export(fought, "html")[0]
    evening = sessions.create_session(
        campaign, gm, title="Night at the <relay>", starts_at=datetime(2031, 3, 14, 19, 30, tzinfo=UTC),
        duration_minutes=180,
    )  # fmt: skip
    Encounter.objects.filter(pk=fought.pk).update(session=evening)
    fought.refresh_from_db()
    md, _ = export(fought, "md", gm_view=False)
    assert md.startswith("# Relay\n\nBurn Bryte · Drift\n\nSession: Night at the \\<relay\\> (14 Mar 2031)\n")
    # It ends with the session's recap: the session, its fights and highlights.
    recap = md[md.index("\n---\n\n") :]
    assert "# Night at the \\<relay\\> (14 Mar 2031)\n" in recap and "## Fights\n\n- **Relay** (Burn Bryte)" in recap
    assert "## Highlights" in recap and "Collapse" not in recap
    page, _ = export(fought, "html", gm_view=False)
    assert '<p class="meta">Session: Night at the &lt;relay&gt; (14 Mar 2031)</p>' in page
