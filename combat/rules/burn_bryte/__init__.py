"""Burn Bryte: three-phase rounds and push-your-luck skill rolls."""
