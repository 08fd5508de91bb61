"""Shared set-up for benchmarks: a throwaway database and a long Burn Bryte encounter built quickly."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def django_on_temp_db() -> Path:
    var = Path(tempfile.mkdtemp(prefix="fray-bench-"))
    os.environ["FRAY_VAR_DIR"] = str(var)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return var


def machine() -> str:
    cpu = ""
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = ""
    try:
        kb = int(next(line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")))
        mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration):
        pass
    python = platform.python_version()
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), {mem}, Python {python}"


def long_encounter(events: int, pcs: int = 3, enemies: int = 3, tag: str = ""):
    """A Burn Bryte encounter whose log holds about `events` events (whole rounds), with `pcs` PCs (one player
    each) against `enemies` copies of one NPC, built with the rules core and bulk inserts."""
    from campaigns import services as campaign_services
    from campaigns.models import Character, Membership, User
    from combat import services, store
    from combat.models import EncounterEvent, LogCheckpoint
    from combat.rules import burn_bryte as bb
    from combat.rules.core import WORDING, to_json, wording
    from combat.rules.dice import ScriptedDice

    tag = tag or str(events)
    gm = User.objects.create_user(f"gm{tag}")  # no password: hashing one is slow and nothing logs in here
    campaign = campaign_services.create_campaign(gm, name=f"Bench {tag}", combat_model="burn_bryte")
    characters = []
    for i in range(pcs):
        user = User.objects.create_user(f"p{tag}-{i}")
        Membership.objects.create(campaign=campaign, user=user)
        characters.append(
            Character.objects.create(
                campaign=campaign,
                name=f"PC {i}",
                owner=user,
                system="burn_bryte",
                stats={"health": 20, "health_max": 20},
            )
        )
    npc = Character.objects.create(
        campaign=campaign,
        name="Drone",
        kind="npc",
        system="burn_bryte",
        stats={"health": 20, "health_max": 20},
        gm_notes="Explodes when it drops.",
    )
    encounter = services.start_encounter(
        services.create_encounter(
            campaign, gm, name="Long fight", model="burn_bryte", pcs=characters, enemies=[(npc, enemies)]
        ),
        gm,
    )
    state = store.load_state(encounter)
    pc_keys = [f"pc{p.pk}" for p in characters]
    enemy_keys = [f"npc{npc.pk}-{n}" for n in range(1, enemies + 1)]
    rows, checkpoints, seq = [], [], 0

    def apply(command, faces=()):
        nonlocal state, seq
        for event in bb.decide(state, command, ScriptedDice(faces)):
            seq += 1
            gm_text, players_text = wording(bb.describe, state, event)  # as services words each entry
            rows.append(
                EncounterEvent(
                    encounter=encounter,
                    seq=seq,
                    batch=seq,
                    kind=event.kind,
                    payload=bb.CODEC.event_to_json(event),
                    audience=event.audience,
                    idempotency_key=f"b{seq}",
                    gm_text=gm_text,
                    players_text=players_text,
                    wording=WORDING,
                )
            )
            state = bb.evolve(state, event)
            if seq % store.CHECKPOINT_EVERY == 0:  # as services.submit leaves them
                checkpoints.append(LogCheckpoint(encounter=encounter, seq=seq, state=to_json(state)))

    while seq < events:
        for i, e in enumerate(enemy_keys):
            apply(bb.Declare(enemy=e, target=pc_keys[i % len(pc_keys)], text="zaps"))
        apply(bb.StartPlayers())
        for key in pc_keys:
            apply(bb.ClaimTurn(actor=key))
            apply(bb.SkillRoll(actor=key, skill="Melee", intent="other"), (1, 2))
            apply(bb.FreeMove(actor=key, squares=2))
            apply(bb.EndTurn(actor=key))
        apply(bb.StartEnemies())
        for d in state.declarations:
            apply(bb.Resolve(declaration=d.id, outcome="missed"))
        apply(bb.NextRound())
    EncounterEvent.objects.bulk_create(rows, batch_size=1000)
    LogCheckpoint.objects.bulk_create(checkpoints)
    encounter.state = to_json(state)
    encounter.version = seq
    encounter.save(update_fields=["state", "version"])
    return encounter


def git_revision() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        # The results file itself is what the run rewrites: its changes say nothing about the code measured.
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)bench/RESULTS.md"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head} with uncommitted changes" if dirty else head
