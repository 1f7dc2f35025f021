"""JSON Schema of the annotation protocol: what a client reads, the verifier's report with the
policy's decisions (``DecidedReport``, ``DecidedSentence``, extending the dataclasses in
``verifiers._types``).

The published files beside this module (``response_report.schema.json`` for the response-level
report, ``sentence_annotation.schema.json`` for one streamed sentence annotation) are this
generator's output; regenerate them with ``python -m policies.protocol`` after changing the
types. A test fails when the files and the dataclasses drift apart. The protocol's objects keep
the names the protocol gives them: a decided type is published under its verifier type's name
and description.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from policies._decided import DecidedReport, DecidedSentence
from verifiers import SCHEMA_VERSION, ResponseReport, SentenceAnnotation, protocol_fields

SCHEMA_DIR = Path(__file__).parent
ROOTS: Mapping[str, type[Any]] = {
    "response_report": DecidedReport,
    "sentence_annotation": DecidedSentence,
}
# The name and description each decided type is published under.
_PUBLISHED_AS: Mapping[type[Any], type[Any]] = {
    DecidedReport: ResponseReport,
    DecidedSentence: SentenceAnnotation,
}
# The ``type`` key a streamed annotation chunk's ``verification`` object carries beside the
# fields, so a client tells a sentence from the report; optional (a completion's top-level
# ``verification`` has none).
STREAM_TYPES: Mapping[type[Any], str] = {DecidedReport: "report", DecidedSentence: "sentence"}
_BASE_ID = "https://veriproxy.dev/schema"
_SCALARS: Mapping[type[Any], str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
}


def build_schema(root: type[Any]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``to_json(root instance)``."""
    definitions: dict[str, Any] = {}
    published = _PUBLISHED_AS.get(root, root)
    name = _snake(published.__name__)
    body = _object(root, definitions)
    if root in STREAM_TYPES:
        body["properties"]["type"] = {
            "const": STREAM_TYPES[root],
            "description": "Present on streamed annotation chunks only.",
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{_BASE_ID}/{SCHEMA_VERSION}/{name}.schema.json",
        "title": published.__name__,
        "description": (published.__doc__ or "").strip(),
        "x-schema-version": SCHEMA_VERSION,
        **body,
        "$defs": dict(sorted(definitions.items())),
    }


def schema_path(name: str) -> Path:
    return SCHEMA_DIR / f"{name}.schema.json"


def load_schema(name: str) -> dict[str, Any]:
    """A published schema file, by root name (``response_report`` or ``sentence_annotation``)."""
    data: dict[str, Any] = json.loads(schema_path(name).read_text(encoding="utf-8"))
    return data


def render(schema: Mapping[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_all() -> list[Path]:
    """Regenerate every published schema file."""
    paths = []
    for name, root in ROOTS.items():
        path = schema_path(name)
        path.write_text(render(build_schema(root)), encoding="utf-8")
        paths.append(path)
    return paths


def _object(cls: type[Any], definitions: dict[str, Any]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    properties = {f.name: _type(hints[f.name], definitions) for f in protocol_fields(cls)}
    if "schema_version" in properties:
        properties["schema_version"] = {"const": SCHEMA_VERSION}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _type(hint: Any, definitions: dict[str, Any]) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_type(a, definitions) for a in args]}
    if hint is type(None):
        return {"type": "null"}
    if origin is tuple:
        return {"type": "array", "items": _type(args[0], definitions)}
    if origin in (Mapping, dict) or (origin is not None and issubclass(origin, Mapping)):
        return {"type": "object", "additionalProperties": _type(args[1], definitions)}
    if isinstance(hint, type) and issubclass(hint, Enum):
        return {"type": "string", "enum": [member.value for member in hint]}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        published = _PUBLISHED_AS.get(hint, hint)
        key = published.__name__
        if key not in definitions:
            definitions[key] = {}  # reserve first: guards against recursion
            definitions[key] = {
                "description": (published.__doc__ or "").strip(),
                **_object(hint, definitions),
            }
        return {"$ref": f"#/$defs/{key}"}
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    raise TypeError(f"no JSON Schema mapping for {hint!r}")


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))
