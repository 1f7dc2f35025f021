"""Test and benchmark tools: the upstream emulator and a uvicorn server in a background thread.

Importable from a checkout (the tests, ``bench/``, an editable install) but left out of the
wheel (``[tool.setuptools.packages.find] exclude`` in pyproject.toml): nothing the product runs
imports it. ``veriproxy demo`` replays its recorded answers through ``proxy.cli.demo``'s own
transport instead.
"""
