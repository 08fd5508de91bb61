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
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), {mem}, Python {platform.python_version()}"


def long_encounter(events: int):
    """A Burn Bryte encounter whose log holds about `events` events, built with the rules core and bulk inserts."""
    from campaigns import services as campaign_services
    from campaigns.models import Character, Membership, User
    from combat import services
    from combat.models import EncounterEvent
    from combat.rules.burn_bryte import engine as bb
    from combat.rules.core import to_json
    from combat.rules.dice import ScriptedDice

    gm = User.objects.create_user(f"gm{events}", password="x")
    campaign = campaign_services.create_campaign(gm, name=f"Bench {events}", combat_model="burn_bryte")
    pcs = []
    for i in range(3):
        user = User.objects.create_user(f"p{events}-{i}", password="x")
        Membership.objects.create(campaign=campaign, user=user)
        pcs.append(Character.objects.create(campaign=campaign, name=f"PC {i}", owner=user, system="burn_bryte",
                                            stats={"health": 20, "health_max": 20}))
    npc = Character.objects.create(campaign=campaign, name="Drone", kind="npc", system="burn_bryte",
                                   stats={"health": 20, "health_max": 20})
    encounter = services.start_encounter(
        services.create_encounter(campaign, gm, name="Long fight", model="burn_bryte", pcs=pcs,
                                  enemies=[(npc, 3)]), gm)
    state = services.load_state(encounter)
    pc_keys = [f"pc{p.pk}" for p in pcs]
    enemy_keys = [f"npc{npc.pk}-{n}" for n in (1, 2, 3)]
    rows, seq = [], 0

    def apply(command, faces=()):
        nonlocal state, seq
        for event in bb.decide(state, command, ScriptedDice(faces)):
            seq += 1
            rows.append(EncounterEvent(encounter=encounter, seq=seq, batch=seq, kind=event.kind,
                                       payload=bb.CODEC.event_to_json(event), audience=event.audience,
                                       idempotency_key=f"b{seq}"))
            state = bb.evolve(state, event)

    while seq < events:
        for e, t in zip(enemy_keys, pc_keys, strict=True):
            apply(bb.Declare(enemy=e, target=t, text="zaps"))
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
    encounter.state = to_json(state)
    encounter.version = seq
    encounter.save(update_fields=["state", "version"])
    return encounter


def git_revision() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
