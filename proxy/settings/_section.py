"""What a section tells pydantic beyond ``annotated_types`` bounds, without importing it."""

from __future__ import annotations

from typing import Any, ClassVar


class Section:
    """Base of every section: validating a mapping refuses keys the section does not declare
    (pydantic reads ``__pydantic_config__`` when it builds the schema)."""

    __slots__ = ()
    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}


class Pattern:
    """``Annotated[str, Pattern(regex)]``: the string must match ``regex`` (pydantic's own check
    and message; ``annotated_types`` has no pattern)."""

    __slots__ = ("regex",)

    def __init__(self, regex: str) -> None:
        self.regex = regex

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        return {**handler(source), "pattern": self.regex}
