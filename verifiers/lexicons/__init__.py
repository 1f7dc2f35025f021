"""Lexicons shipped with the verifiers (data files, loaded with importlib.resources)."""
