"""Dice: the only source of randomness in Fray.

The app rolls with the operating system's generator; tests script the faces. Every face rolled is
stored in the event it produced, so replaying an encounter never rolls again.
"""

from __future__ import annotations

import random
from collections.abc import Iterable


class Dice:
    """Fair dice from `secrets`-grade randomness."""

    def __init__(self) -> None:
        self._rng = random.SystemRandom()

    def roll(self, count: int, sides: int) -> tuple[int, ...]:
        if count < 0 or sides < 1:
            raise ValueError("Dice need a count of 0 or more and at least one side.")
        return tuple(self._rng.randint(1, sides) for _ in range(count))


class ScriptedDice(Dice):
    """Dice that show the given faces in order; running out, or a face too big for the die, is an error."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)

    def roll(self, count: int, sides: int) -> tuple[int, ...]:
        if count > len(self._faces):
            raise AssertionError(f"scripted dice ran out: wanted {count}, {len(self._faces)} left")
        faces, self._faces = self._faces[:count], self._faces[count:]
        for face in faces:
            if not 1 <= face <= sides:
                raise AssertionError(f"scripted face {face} cannot come up on a d{sides}")
        return tuple(faces)

    @property
    def left(self) -> int:
        return len(self._faces)
