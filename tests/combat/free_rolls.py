"""A random free roll for every model's random-play property tests (FreeRoll joins each model's play)."""

import random

from combat.rules import notation
from combat.rules.core import RuleError
from combat.rules.free_roll import FreeRoll

NOTATIONS = ["2d6", "k+1", "3d6+2", "d20-1", "1d4+1d8+3", "d%", "4d8", "2d1", "101d6", "d", "3d6*2", "", "1d1001"]
SHOWN = ["all", "all", "gm", "self", "nobody"]


def random_free_roll(pcs, seed: int) -> FreeRoll:
    """A roll by one of `pcs` or the GM (""), good or bad notation, to any audience (or a wrong one)."""
    rng = random.Random(seed)
    return FreeRoll(actor=rng.choice(["", *pcs]), notation=rng.choice(NOTATIONS), show=rng.choice(SHOWN))


def dice_in(text: str) -> int:
    """How many dice `text` rolls (0 when it is refused): what scripted dice must hold for it."""
    try:
        return sum(term.count for term in notation.parse(text) if term.sides)
    except RuleError:
        return 0
