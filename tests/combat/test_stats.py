"""The rules core's stat schemas and SW5e ship arithmetic: pure Python, checked without Django."""

import ast
import json
import string
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from combat.rules import registry
from combat.rules.burn_bryte import stats as burn_bryte
from combat.rules.expanse import stats as expanse
from combat.rules.hero import stats as hero
from combat.rules.stats import BOOL, CHOICE, INT, TAGS, TEXT
from combat.rules.sw5e import ship as sw5e
from tests.conftest import examples

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "combat" / "rules"

SCHEMAS = {key: model.stats for key, model in registry.MODELS.items()}
ALL_STATS = [(key, stat) for key, schema in SCHEMAS.items() for stat in schema.typed]  # derived stats are not typed
INT_STATS = [(key, stat) for key, stat in ALL_STATS if stat.kind == INT]
BOUNDED_INT_STATS = [(key, stat) for key, stat in INT_STATS if stat.min is not None and stat.max is not None]
CHOICE_STATS = [(key, stat) for key, stat in ALL_STATS if stat.kind == CHOICE]
CAPPED = [(key, current, maximum) for key, schema in SCHEMAS.items() for current, maximum in schema.capped]


def assert_sentence(message, *must_name):
    """A message a player can read: a full sentence, naming what it is about, no Python leaking through."""
    assert isinstance(message, str), message
    text = message.strip()
    assert text.endswith("."), f"not a sentence: {message!r}"
    assert len(text.split()) >= 3, f"not a sentence: {message!r}"
    assert text[0].isupper() or text[0].isdigit() or text[0] in "'\"", f"not a sentence: {message!r}"
    for word in ("Traceback", "Error", "invalid literal", "NoneType", "object"):
        assert word not in text, f"technical text in {message!r}"
    for name in must_name:
        assert name.lower() in text.lower(), f"{name!r} not named in {message!r}"


# --- the rules core stays pure -------------------------------------------------------------------------------


def _imported_modules(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def _project_files():
    for app in ("campaigns", "ships", "combat", "config"):
        for path in (ROOT / app).rglob("*.py"):
            parts = path.relative_to(ROOT).parts
            if ".venv" in parts or "tests" in parts:
                continue
            yield path


def test_rules_core_never_imports_django():
    files = sorted(RULES.rglob("*.py"))
    names = {p.relative_to(RULES).as_posix() for p in files}
    # The walk really covers the rules core (otherwise the check below proves nothing).
    assert {"stats.py", "registry.py", "sw5e/ship.py", "hero/stats.py"} <= names
    offenders = {
        path.relative_to(ROOT).as_posix(): module
        for path in files
        for module in _imported_modules(path)
        if module == "django" or module.startswith("django.")
    }
    assert offenders == {}


def test_only_the_dice_module_imports_random():
    files = list(_project_files())
    assert any(p.name == "models.py" and p.parent.name == "campaigns" for p in files)
    assert not any("tests" in p.relative_to(ROOT).parts for p in files)
    offenders = {
        path.relative_to(ROOT).as_posix()
        for path in files
        if path.relative_to(ROOT).as_posix() != "combat/rules/dice.py"
        for module in _imported_modules(path)
        if module == "random" or module.startswith("random.")
    }
    assert offenders == set()


# --- defaults --------------------------------------------------------------------------------------------------


def test_there_are_four_combat_models():
    assert set(registry.MODELS) == {"burn_bryte", "sw5e", "hero", "expanse"}
    with pytest.raises(KeyError):
        registry.get("dnd")


@pytest.mark.parametrize("key", sorted(SCHEMAS))
def test_defaults_validate_without_errors(key):
    schema = SCHEMAS[key]
    defaults = schema.defaults()
    clean, errors = schema.validate(defaults)
    assert errors == {}
    assert clean == defaults
    # An empty form (nothing sent) gets the defaults too.
    assert schema.validate({}) == (defaults, {})


@pytest.mark.parametrize("key", sorted(SCHEMAS))
def test_summary_keys_are_stats_of_the_model(key):
    model = registry.get(key)
    for stat_key in model.summary:
        model.stats.get(stat_key)  # raises KeyError for a summary stat the schema lacks
    labels = [label for label, _ in model.stats.summary(model.stats.defaults(), model.summary)]
    assert len(labels) == len(model.summary)


def test_defaults_are_fresh_copies():
    defaults = expanse.STATS.defaults()
    defaults["conditions"].append("Prone")
    assert expanse.STATS.defaults()["conditions"] == []


# --- INT stats -------------------------------------------------------------------------------------------------


@st.composite
def int_stat_and_value_inside(draw):
    key, stat = draw(st.sampled_from(BOUNDED_INT_STATS))
    return key, stat, draw(st.integers(stat.min, stat.max))


@given(int_stat_and_value_inside(), st.booleans())
def test_any_int_within_limits_is_accepted_as_int(case, as_text):
    key, stat, value = case
    raw = f" {value} " if as_text else value
    clean, errors = SCHEMAS[key].validate({stat.key: raw}, partial=True)
    assert stat.key not in errors
    assert clean[stat.key] == value
    assert type(clean[stat.key]) is int


@st.composite
def int_stat_and_value_outside(draw):
    key, stat = draw(st.sampled_from(BOUNDED_INT_STATS))
    below = draw(st.booleans())
    if below:
        value = draw(st.integers(max_value=stat.min - 1, min_value=stat.min - 10**6))
    else:
        value = draw(st.integers(min_value=stat.max + 1, max_value=stat.max + 10**6))
    return key, stat, value


@given(int_stat_and_value_outside(), st.booleans())
def test_any_int_outside_limits_is_refused_with_a_sentence(case, as_text):
    key, stat, value = case
    raw = str(value) if as_text else value
    clean, errors = SCHEMAS[key].validate({stat.key: raw}, partial=True)
    assert stat.key not in clean
    assert_sentence(errors[stat.key], stat.label)
    limit = stat.min if value < stat.min else stat.max
    assert str(limit) in errors[stat.key]


@pytest.mark.parametrize("key,stat", INT_STATS, ids=[f"{k}.{s.key}" for k, s in INT_STATS])
@pytest.mark.parametrize("junk", ["abc", "1.5", "", "  ", "-", "1e3", "twelve", "3d6", "½", None, True, 2.5, [3], {}])
def test_non_numbers_give_a_sentence_not_an_exception(key, stat, junk):
    clean, errors = SCHEMAS[key].validate({stat.key: junk}, partial=True)
    assert stat.key not in clean
    assert_sentence(errors[stat.key], stat.label)


def test_whole_float_is_accepted_but_a_fraction_is_not():
    clean, errors = hero.STATS.validate({"spd": 4.0, "dex": 4.5}, partial=True)
    assert clean == {"spd": 4}
    assert type(clean["spd"]) is int
    assert_sentence(errors["dex"], "DEX")


def test_infinite_number_from_json_gives_a_sentence():
    # Python's json accepts Infinity and NaN; stored stats must still only ever produce sentences.
    for raw in (json.loads("Infinity"), json.loads("-Infinity"), json.loads("NaN")):
        clean, errors = hero.STATS.validate({"dex": raw}, partial=True)
        assert "dex" not in clean
        assert_sentence(errors["dex"], "DEX")


# --- capped pairs ----------------------------------------------------------------------------------------------


def test_every_model_with_a_maximum_declares_its_pair():
    assert ("health", "health_max") in burn_bryte.STATS.capped
    assert ("fortune", "fortune_max") in expanse.STATS.capped
    assert set(hero.STATS.capped) == {("stun", "stun_max"), ("body", "body_max"), ("end", "end_max")}
    assert ("hit_points", "hit_points_max") in registry.get("sw5e").stats.capped


@st.composite
def capped_pair_over_max(draw):
    key, current, maximum = draw(st.sampled_from(CAPPED))
    schema = SCHEMAS[key]
    cur_stat, max_stat = schema.get(current), schema.get(maximum)
    top = draw(st.integers(max_stat.min, min(max_stat.max, cur_stat.max - 1)))
    value = draw(st.integers(top + 1, cur_stat.max))
    return key, cur_stat, max_stat, value, top


@given(capped_pair_over_max(), st.booleans())
def test_current_above_maximum_is_refused_with_a_sentence(case, partial):
    key, cur_stat, max_stat, value, top = case
    clean, errors = SCHEMAS[key].validate({cur_stat.key: str(value), max_stat.key: str(top)}, partial=partial)
    assert set(errors) == {cur_stat.key}
    assert_sentence(errors[cur_stat.key], cur_stat.label, max_stat.label, str(top))


@st.composite
def capped_pair_in_order(draw):
    key, current, maximum = draw(st.sampled_from(CAPPED))
    schema = SCHEMAS[key]
    cur_stat, max_stat = schema.get(current), schema.get(maximum)
    top = draw(st.integers(max(max_stat.min, cur_stat.min), min(max_stat.max, cur_stat.max)))
    value = draw(st.integers(cur_stat.min, top))
    return key, cur_stat, max_stat, value, top


@given(capped_pair_in_order())
def test_current_at_or_below_maximum_is_accepted(case):
    key, cur_stat, max_stat, value, top = case
    clean, errors = SCHEMAS[key].validate({cur_stat.key: value, max_stat.key: top})
    assert errors == {}
    assert (clean[cur_stat.key], clean[max_stat.key]) == (value, top)


def test_current_above_the_default_maximum_is_refused():
    # Only the current value is sent; the maximum's default (3) still caps it.
    _, errors = burn_bryte.STATS.validate({"health": "5"})
    assert_sentence(errors["health"], "Health Levels", "3")


def test_a_text_stat_tidies_spaces_and_says_when_it_is_too_long():
    from combat.rules.sw5e import stats as sw5e_stats

    stat = sw5e_stats.STATS.get("bonus_action_for")
    assert stat.clean("  Second   Wind ") == "Second Wind" and stat.clean(None) == ""
    with pytest.raises(ValueError) as too_long:
        stat.clean("Force " * 11)
    assert_sentence(str(too_long.value), "The action that bonus action allows", "60 characters")
    with pytest.raises(ValueError) as not_text:
        stat.clean(7)
    assert_sentence(str(not_text.value), "The action that bonus action allows")


# --- round trip through JSON -----------------------------------------------------------------------------------

FREE_TAG = st.text(alphabet=string.ascii_letters + " ()-'", min_size=1, max_size=40).filter(lambda t: t.strip())


def _value_strategy(stat):
    if stat.kind == INT:
        return st.integers(stat.min, stat.max)
    if stat.kind == CHOICE:
        return st.sampled_from([value for value, _ in stat.choices])
    if stat.kind == BOOL:
        return st.booleans()
    if stat.kind == TAGS:
        tag = st.sampled_from(stat.allowed_tags) if stat.allowed_tags else FREE_TAG
        return st.lists(tag, max_size=6)
    if stat.kind == TEXT:  # a few words, or one of the suggestions, or nothing
        words = st.text(alphabet=string.ascii_letters + " ()-'", max_size=stat.max or 60)
        return st.one_of(st.sampled_from([label for _, label in stat.choices] or [""]), words)
    raise AssertionError(stat.kind)


@st.composite
def valid_stats(draw):
    key = draw(st.sampled_from(sorted(SCHEMAS)))
    schema = SCHEMAS[key]
    data = {stat.key: draw(_value_strategy(stat)) for stat in schema.typed}
    for current, maximum in schema.capped:
        data[current] = min(data[current], data[maximum])
    return key, data


@given(valid_stats())
def test_clean_values_round_trip_through_json(case):
    key, data = case
    schema = SCHEMAS[key]
    clean, errors = schema.validate(data)
    assert errors == {}
    assert set(clean) == {stat.key for stat in schema.typed}
    stored = json.loads(json.dumps(clean))
    assert stored == clean
    assert schema.validate(stored) == (clean, {})


@given(valid_stats())
def test_form_strings_give_the_same_clean_values(case):
    key, data = case
    schema = SCHEMAS[key]
    clean, _ = schema.validate(data)
    as_form = {}
    for stat in schema.typed:
        value = clean[stat.key]
        if stat.kind == TAGS:
            if any("," in tag for tag in value):
                continue
            as_form[stat.key] = ", ".join(value)
        elif stat.kind == BOOL:
            as_form[stat.key] = "on" if value else ""
        else:
            as_form[stat.key] = str(value)
    again, errors = schema.validate(as_form, partial=True)
    assert errors == {}
    assert again == {k: clean[k] for k in as_form}


# --- TAGS ------------------------------------------------------------------------------------------------------


def test_tags_normalise_whitespace_and_drop_duplicates():
    stat = expanse.STATS.get("focuses")
    raw = "  Dexterity   (Initiative) ,Accuracy\t(Pistols),, Dexterity (Initiative) , "
    assert stat.clean(raw) == ["Dexterity (Initiative)", "Accuracy (Pistols)"]
    assert stat.clean("") == []
    assert stat.clean(None) == []


@given(
    st.lists(
        st.lists(st.text(alphabet=string.ascii_letters, min_size=1, max_size=8), min_size=1, max_size=4),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([" ", "  ", "\t", " \n "]),
)
def test_tags_typed_with_any_spacing_are_normalised(tags_as_words, gap):
    stat = expanse.STATS.get("focuses")
    typed = ",".join(gap + gap.join(words) + gap for words in tags_as_words)
    expected = []
    for words in tags_as_words:
        tag = " ".join(words)
        if tag not in expected:
            expected.append(tag)
    assert stat.clean(typed) == expected


def test_conditions_accept_known_ones_in_any_case_and_spell_them_properly():
    clean, errors = expanse.STATS.validate({"conditions": " prone,INJURED ,  free-falling, Prone"}, partial=True)
    assert errors == {}
    assert clean["conditions"] == ["Prone", "Injured", "Free-falling"]


@given(st.text(alphabet=string.ascii_letters + " ", min_size=1, max_size=30))
def test_unknown_conditions_are_refused_with_a_sentence(word):
    tag = " ".join(word.split())
    assume(tag and tag.lower() not in {c.lower() for c in expanse.CONDITIONS})
    # The sentence quotes the typed word; keep words the checker treats as technical text out of it.
    assume(not any(w in tag for w in ("Traceback", "Error", "invalid literal", "NoneType", "object")))
    clean, errors = expanse.STATS.validate({"conditions": f"Prone, {word}"}, partial=True)
    assert "conditions" not in clean
    assert_sentence(errors["conditions"], "conditions", tag)


def test_unknown_condition_sentence_lists_the_allowed_ones():
    _, errors = expanse.STATS.validate({"conditions": "Bored"}, partial=True)
    assert_sentence(errors["conditions"], "Bored", "Prone", "Unconscious")


def test_overlong_tag_is_refused_with_a_sentence():
    _, errors = expanse.STATS.validate({"focuses": "x" * 61}, partial=True)
    assert_sentence(errors["focuses"], "Focuses", "60")


# --- CHOICE ----------------------------------------------------------------------------------------------------


@st.composite
def choice_stat_and_unknown_value(draw):
    key, stat = draw(st.sampled_from(CHOICE_STATS))
    known = {str(value) for value, _ in stat.choices}
    value = draw(st.one_of(st.text(max_size=20), st.integers(-50, 50)).filter(lambda v: str(v) not in known))
    return key, stat, value


@given(choice_stat_and_unknown_value())
def test_choices_refuse_unknown_values(case):
    key, stat, value = case
    clean, errors = SCHEMAS[key].validate({stat.key: value}, partial=True)
    assert stat.key not in clean
    assert_sentence(errors[stat.key], stat.label)


def test_choice_from_a_form_string_keeps_the_stored_type():
    clean, errors = burn_bryte.STATS.validate({"skill_melee": "8", "neg_minor": "Stealth"}, partial=True)
    assert errors == {}
    assert clean == {"skill_melee": 8, "neg_minor": "Stealth"}
    assert type(clean["skill_melee"]) is int


# --- junk never raises -----------------------------------------------------------------------------------------

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=8,
)


@st.composite
def junk_for_a_schema(draw, values):
    key = draw(st.sampled_from(sorted(SCHEMAS)))
    schema = SCHEMAS[key]
    picked = draw(st.lists(st.sampled_from([s.key for s in schema.typed]), unique=True, min_size=1))
    return key, {k: draw(values) for k in picked}


def _check_never_raises(key, data):
    schema = SCHEMAS[key]
    for partial in (False, True):
        clean, errors = schema.validate(data, partial=partial)
        assert isinstance(clean, dict) and isinstance(errors, dict)
        # A field-level error keeps the value out; a capped-pair error is reported on a value that was itself fine.
        capped_currents = {current for current, _ in schema.capped}
        assert not (set(clean) & set(errors)) - capped_currents
        for sentence in errors.values():
            assert_sentence(sentence)
        if not partial:
            assert set(clean) | set(errors) == {s.key for s in schema.typed}


@given(junk_for_a_schema(st.text()))
def test_junk_text_only_ever_gives_errors(case):
    _check_never_raises(*case)


@settings(max_examples=examples(400))
@given(junk_for_a_schema(JSONISH))
def test_junk_json_values_only_ever_give_errors(case):
    _check_never_raises(*case)


def test_a_number_where_a_list_belongs_gives_a_sentence():
    for raw in (5, 2.5, True):
        clean, errors = expanse.STATS.validate({"conditions": raw, "focuses": raw}, partial=True)
        assert clean == {}
        assert_sentence(errors["conditions"], "Conditions")
        assert_sentence(errors["focuses"], "Focuses")


def test_unknown_keys_are_ignored():
    clean, errors = hero.STATS.validate({"spd": "4", "hacked": "yes"}, partial=True)
    assert (clean, errors) == ({"spd": 4}, {})


# --- Burn Bryte ------------------------------------------------------------------------------------------------


def test_burn_bryte_has_18_skills_in_three_categories():
    assert set(burn_bryte.SKILL_CATEGORIES) == {"Mental", "Physical", "Social"}
    assert all(len(skills) == 6 for skills in burn_bryte.SKILL_CATEGORIES.values())
    assert len(burn_bryte.SKILLS) == len(set(burn_bryte.SKILLS)) == 18
    for skill in ("Computers", "Skullduggery", "Suavity", "Medicine", "Stealth", "Presence"):
        assert skill in burn_bryte.SKILLS
    skill_stats = [s for s in burn_bryte.STATS.stats if s.key.startswith("skill_")]
    assert len(skill_stats) == 18
    assert {s.group for s in skill_stats} == {"Mental skills", "Physical skills", "Social skills"}


def test_burn_bryte_skills_are_rated_d4_to_d12():
    for skill in burn_bryte.SKILLS:
        stat = burn_bryte.STATS.get(burn_bryte.skill_key(skill))
        assert stat.kind == CHOICE
        assert stat.choices == ((4, "d4"), (6, "d6"), (8, "d8"), (10, "d10"), (12, "d12"))
        assert stat.default == 4


@pytest.mark.parametrize("bad", ["2", "3", "5", "7", "20", "d8", "0"])
def test_burn_bryte_skill_refuses_other_dice(bad):
    _, errors = burn_bryte.STATS.validate({"skill_ranged": bad}, partial=True)
    assert_sentence(errors["skill_ranged"], "Ranged", "d4", "d12")


def test_burn_bryte_pcs_start_with_three_health_levels_and_speed_five():
    defaults = burn_bryte.STATS.defaults()
    assert defaults["health"] == defaults["health_max"] == 3
    assert defaults["speed"] == 5
    assert all(defaults[burn_bryte.nova_box_key(size)] is False for size in (4, 6, 8, 10, 12))


# --- HERO ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spd", list(range(1, 13)))
def test_hero_spd_accepts_1_to_12(spd):
    clean, errors = hero.STATS.validate({"spd": str(spd)}, partial=True)
    assert (clean, errors) == ({"spd": spd}, {})


@pytest.mark.parametrize("spd,limit", [("0", "1"), ("13", "12"), ("-3", "1"), ("99", "12")])
def test_hero_spd_refuses_0_and_13_with_a_sentence(spd, limit):
    clean, errors = hero.STATS.validate({"spd": spd}, partial=True)
    assert clean == {}
    assert_sentence(errors["spd"], "SPD", limit)


# --- SW5e ship -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tier,die,label", [(0, 1, "1 (flat)"), (1, 4, "d4"), (2, 6, "d6"), (3, 8, "d8"), (4, 10, "d10"), (5, 12, "d12")]
)
def test_power_die_by_tier(tier, die, label):
    assert sw5e.power_die(tier) == die
    assert sw5e.power_die_label(tier) == label


def test_there_is_no_tier_6():
    assert list(sw5e.TIERS) == [0, 1, 2, 3, 4, 5]
    with pytest.raises(KeyError):
        sw5e.power_die(6)


@pytest.mark.parametrize(
    "coupling,central,per_system,total",
    [
        ("direct", 4, 0, 4),
        ("distributed", 0, 2, 10),
        ("hub_and_spoke", 2, 1, 7),
    ],
)
def test_coupling_capacities(coupling, central, per_system, total):
    assert sw5e.store_capacity(coupling, "central") == central
    for system in ("communications", "engines", "shields", "sensors", "weapons"):
        assert sw5e.store_capacity(coupling, system) == per_system
    assert sw5e.coupling_total(coupling) == total


def test_full_stores_fit_and_one_more_die_does_not():
    for coupling in ("direct", "distributed", "hub_and_spoke"):
        full = {store: sw5e.store_capacity(coupling, store) for store in sw5e.STORES}
        assert sw5e.stored_dice_errors(coupling, full) == {}
        for store in sw5e.STORES:
            errors = sw5e.stored_dice_errors(coupling, {**full, store: full[store] + 1})
            assert set(errors) == {store}
            assert_sentence(errors[store], store, str(full[store]))


def test_stored_dice_examples():
    assert_sentence(sw5e.stored_dice_errors("direct", {"central": 5})["central"], "central", "5", "4")
    assert set(sw5e.stored_dice_errors("distributed", {"engines": 3})) == {"engines"}
    assert set(sw5e.stored_dice_errors("direct", {"weapons": 1})) == {"weapons"}
    assert set(sw5e.stored_dice_errors("distributed", {"central": 1})) == {"central"}
    assert sw5e.stored_dice_errors("hub_and_spoke", {"central": 2, "shields": 1}) == {}
    assert set(sw5e.stored_dice_errors("hub_and_spoke", {"central": 2, "shields": 2})) == {"shields"}


# Written out from the rules table (size: die, dice at tier 0, dice per tier), not computed from the code.
HULL_TABLE = {
    "tiny": (4, [1, 2, 3, 4, 5, 6]),
    "small": (6, [3, 4, 5, 6, 7, 8]),
    "medium": (8, [5, 6, 7, 8, 9, 10]),
    "large": (10, [7, 8, 9, 10, 11, 12]),
    "huge": (12, [9, 11, 13, 15, 17, 19]),
    "gargantuan": (20, [11, 13, 15, 17, 19, 21]),
}


@pytest.mark.parametrize("size", list(HULL_TABLE))
def test_hull_dice_by_size_and_tier(size):
    die, totals = HULL_TABLE[size]
    assert sw5e.hull_die(size) == die
    assert [sw5e.hull_dice_total(size, tier) for tier in range(6)] == totals


def test_size_choices_cover_the_table():
    assert [key for key, _ in sw5e.SIZE_CHOICES] == list(HULL_TABLE)


@pytest.mark.parametrize(
    "shield_type,die,points",
    [
        ("directional", 4, 4),
        ("directional", 8, 8),
        ("directional", 20, 20),
        ("fortress", 6, 4),
        ("fortress", 8, 5),
        ("fortress", 12, 8),
        ("fortress", 20, 13),
        ("quick_charge", 4, 6),
        ("quick_charge", 6, 9),
        ("quick_charge", 8, 12),
        ("quick_charge", 10, 15),
        ("quick_charge", 12, 18),
        ("quick_charge", 20, 30),
    ],
)
def test_shield_regeneration(shield_type, die, points):
    assert sw5e.shield_regeneration(shield_type, die) == points


def test_shield_type_multipliers():
    assert sw5e.SHIELD_TYPES["directional"] == (1, 1)
    assert sw5e.SHIELD_TYPES["fortress"] == (Fraction(3, 2), Fraction(2, 3))
    assert sw5e.SHIELD_TYPES["quick_charge"] == (Fraction(2, 3), Fraction(3, 2))
    assert {key for key, _ in sw5e.SHIELD_CHOICES} == set(sw5e.SHIELD_TYPES)
