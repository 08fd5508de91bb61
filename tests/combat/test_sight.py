"""The one rule of sight: what a viewer may know of each combatant."""

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from combat.rules.core import UNSEEN_NAME, Sight


@dataclass(frozen=True)
class F:
    id: str
    name: str
    side: str
    aware_of: tuple[str, ...] = ()


HERO = F("pc1", "Ana", "pc", aware_of=("e1",))
GUARD = F("e1", "Guard", "enemy")
SNIPER = F("e2", "Sniper", "enemy")
FIGHTERS = (HERO, GUARD, SNIPER)


def test_players_never_learn_the_name_of_an_enemy_no_pc_is_aware_of():
    players = Sight(FIGHTERS, gm=False)
    assert players.name("e2") == UNSEEN_NAME and players.unseen("e2")
    assert players.name("e1") == "Guard" and not players.unseen("e1")
    assert players.name("pc1") == "Ana"


def test_the_gm_sees_everyone_and_every_number():
    gm = Sight(FIGHTERS, gm=True)
    assert [gm.name(f.id) for f in FIGHTERS] == ["Ana", "Guard", "Sniper"]
    assert not any(gm.unseen(f.id) or gm.secret(f.id) for f in FIGHTERS)


def test_an_enemys_numbers_stay_with_the_gm_even_when_it_is_in_sight():
    players = Sight(FIGHTERS, gm=False)
    assert players.secret("e1") and not players.secret("pc1")


def test_an_id_the_encounter_does_not_have_is_someone():
    assert Sight(FIGHTERS, gm=False).name("gone") == "someone"


sides = st.sampled_from(["pc", "enemy", "npc"])


@given(st.lists(st.tuples(sides, st.sets(st.integers(0, 5))), min_size=1, max_size=6), st.booleans())
def test_a_viewer_learns_a_name_exactly_when_the_combatant_is_a_pc_known_to_the_party_or_the_viewer_is_gm(rows, gm):
    fighters = [F(f"f{i}", f"Name {i}", side, tuple(f"f{j}" for j in aware)) for i, (side, aware) in enumerate(rows)]
    known = {a for f in fighters if f.side == "pc" for a in f.aware_of}
    sight = Sight(fighters, gm)
    for f in fighters:
        expected = gm or f.side == "pc" or f.id in known
        assert (sight.name(f.id) == f.name) is expected
        assert sight.unseen(f.id) is not expected


@dataclass(frozen=True)
class Crew:
    id: str
    name: str
    side: str


def test_a_model_that_tracks_no_awareness_hides_no_one():
    players = Sight((Crew("c1", "Pilot", "pc"), Crew("c2", "Gunner", "npc")), gm=False)
    assert players.name("c2") == "Gunner" and not players.unseen("c2") and players.secret("c2")
