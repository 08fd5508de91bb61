"""The rules core: pure Python, no Django, no I/O. Randomness only through combat.rules.dice.Dice."""
