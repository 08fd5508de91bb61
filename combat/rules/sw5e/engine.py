"""The SW5e engine's old module name, for imports not yet moved to the package (combat/rules/sw5e/__init__.py)."""

from combat.rules.sw5e import *  # noqa: F403
