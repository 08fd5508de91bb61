"""A toy combat model, built the way combat/rules/README.md says a model is added: a rules module (`rules.py`), a
table (`table.py`) and a template folder (`templates/combat/toy/`). Only tests/combat/test_model_contract.py
registers it, for the length of a test; no production file knows it."""
