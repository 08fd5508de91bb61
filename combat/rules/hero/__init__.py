"""HERO System: the speed chart, segments and phases."""
