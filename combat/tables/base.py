"""The Django side of a combat model: how its encounters are built and started, what each viewer sees of the table,
what persists when it ends, and its after-action review.

Each model has one `Table` subclass (its rules package, `contract.Engine`, is `self.engine`); the registry names it
by dotted path and `combat.tables.get(key)` gives the one instance. Its templates are
`templates/combat/<key>/fragments.html`, with the partials `table` (everyone), `gm` (the GM's controls) and `me`
(one player's own sheet and controls). The generic parts every view needs (encounter, gm, ended, version, log) are
added by `combat.selectors`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from campaigns.models import Character
from combat.rules.contract import Engine, GameState
from combat.rules.core import Event, Sight
from combat.tables.viewmodels import PrivateView

if TYPE_CHECKING:
    from combat.models import Combatant, Encounter
    from combat.rules.registry import CombatModel


class Table(ABC):
    """One combat model at the live table. A subclass provides `PERSISTS`, `initial_state`, `public_view` and
    `private_view`; everything else has a default it may override."""

    ENEMIES_REQUIRED: ClassVar[bool] = True  # the builder refuses an encounter without an enemy
    ME_FIRST: ClassVar[bool] = False  # a player's page puts their own controls (`me`) before the table
    review: ClassVar[ModuleType | None] = None
    """The model's after-action facts module (pure, beside its rules): `facts(state, event)` and `MODEL_FIGURES`
    ((key, label, GM-only) of the model's own summary columns). None: the log page shows the timeline only."""

    def __init__(self, model: CombatModel) -> None:
        self.model = model

    @property
    def key(self) -> str:
        return self.model.key

    @property
    def engine(self) -> Engine:
        return self.model.engine

    @property
    def template(self) -> str:
        return f"combat/{self.key}/fragments.html"

    @property
    @abstractmethod
    def PERSISTS(self) -> str:
        """One sentence for the GM's end page: what goes back to the campaign, what ends with the fight."""

    # --- building and starting ---------------------------------------------------------------------------------

    def build_form(self, form: Any) -> None:
        """Extra fields for the encounter builder (`form` is combat.forms.EncounterForm); none by default."""
        return None

    def clean_form(self, form: Any, cleaned: dict[str, Any]) -> dict[str, Any]:
        """What the extra fields chose, stored as `Encounter.setup` for `initial_state`; nothing by default."""
        return {}

    @abstractmethod
    def initial_state(self, engine: Engine, encounter: Encounter, combatants: Sequence[Combatant]) -> GameState:
        """The state the log replays from."""

    # --- what each viewer sees -----------------------------------------------------------------------------------

    @abstractmethod
    def public_view(self, encounter: Encounter, state: Any, gm: bool) -> Any:
        """The table for the GM (gm=True) or for every player: no per-user facts, no GM-only facts for players.
        A frozen dataclass (combat.tables.viewmodels): the players' type has no `gm_only` field; the GM's type
        adds them."""

    @abstractmethod
    def private_view(self, encounter: Encounter, state: Any, user_id: int) -> PrivateView:
        """One player's own sheet and controls, a `viewmodels.PrivateView` (`your_turn` and `you_may_act` drive
        the banner) with no `gm_only` field."""

    # --- the end ----------------------------------------------------------------------------------------------------

    def write_back(self, encounter: Encounter, state: Any) -> None:
        """What persists: the engine's values per combatant key merged into each combatant's character sheet."""
        write_back_characters(encounter, self.engine.write_back(state))

    # --- the after-action review (combat.review) ------------------------------------------------------------------

    @property
    def figures(self) -> tuple[tuple[str, str, bool], ...]:
        return tuple(self.review.MODEL_FIGURES) if self.review else ()

    def facts(self, state: Any, event: Event, gm: bool) -> Any:
        """The review's facts of `event` (`state`: just before it), for the GM or a player (gm=False); None
        without a review module."""
        return self.review.facts(state, event) if self.review else None

    def subjects(self, state: Any, gm: bool) -> list[tuple[str, str, str]]:
        """The summary's rows, (key, name, side): every combatant by default. combat.review leaves out, for
        players, the enemies they never saw, whatever this returns."""
        return [(f.id, f.name, f.side) for f in state.fighters]

    def fallen(self, state: Any) -> list[str]:
        """The ids of the subjects (see `subjects`) down at the end of the fight, for the session's recap: none by
        default."""
        return []

    @property
    def damage_unit(self) -> str:
        """What the review's damage counts, in the charts' words ("Health Levels", "BODY")."""
        return getattr(self.review, "DAMAGE_UNIT", "damage") if self.review else "damage"

    def round_title(self, n: int) -> str:
        return f"Round {n}"

    def section_title(self, phase: int, turn: str, names: dict[str, str]) -> str:
        return f"{names.get(turn, 'someone')}'s turn" if turn else "Between turns"


def write_back_characters(encounter: Encounter, keep: Mapping[str, Mapping[str, Any]]) -> None:
    """Merge each combatant's persisting values (keyed by combatant key) into its character's stats."""
    combatants = {c.key: c for c in encounter.combatants.select_related("character")}
    for fighter_key, values in keep.items():
        character = combatants[fighter_key].character if fighter_key in combatants else None
        if character is None:
            continue
        character.stats = {**character.full_stats(), **values}
        Character.objects.filter(pk=character.pk).update(stats=character.stats)


def fighters_from(engine: Engine, combatants: Sequence[Combatant]) -> tuple[Any, ...]:
    """Each combatant built from its character sheet by the engine, aware of the other side's combatants that are
    not hidden (the builder's "unseen at the start")."""
    fighters = []
    for c in combatants:
        others = [o for o in combatants if o.side != c.side and not o.hidden]
        stats = c.character.full_stats() if c.character else {}
        fighters.append(
            engine.fighter_from_sheet(c.key, c.name, c.side, c.owner_id, stats, tuple(o.key for o in others))
        )
    return tuple(fighters)


def namer(state: Any, gm: bool) -> Callable[[str], str]:
    """fighter id -> the name this viewer may read: an enemy the party is not aware of is "someone unseen" to
    players."""
    return Sight(state.fighters, gm).name
