"""A contract import-linter has no built-in type for: no private modules across packages.

``proxy.audit`` importing ``proxy.state._redis`` couples it to how ``proxy.state`` is built
inside; what a package offers others is what its ``__init__`` (or a public module) exports.
"""

from __future__ import annotations

from typing import Any, cast

from importlinter import Contract, ContractCheck, fields, output


class PrivateModulesContract(Contract):
    """Modules under ``source_modules`` import no module whose name has a ``_private`` part,
    unless they live inside the package that owns it (``proxy.state.cache`` may import
    ``proxy.state._redis``; ``proxy.audit.review`` may not)."""

    source_modules = fields.ListField(subfield=fields.ModuleExpressionField())

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        # The field parses into a list of module expressions (typed as the field itself).
        sources = [str(m.expression) for m in cast("list[Any]", self.source_modules)]
        breaches = []
        for importer in sorted(graph.modules):
            if not any(_within(importer, s) for s in sources):
                continue
            for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                owner = _private_owner(imported)
                if owner is not None and not _within(importer, owner):
                    breaches.append((importer, imported))
        return ContractCheck(kept=not breaches, metadata={"breaches": breaches})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported in check.metadata["breaches"]:
            output.print_error(f"{importer} imports {imported}, private to another package")
            output.new_line()


def _private_owner(module: str) -> str | None:
    """The package a ``_private`` module belongs to, or None for a public module."""
    parts = module.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:index])
    return None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")
