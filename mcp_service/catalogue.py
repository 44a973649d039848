"""A tool catalogue that fits an agent's context: output schemas that describe every property
of the result and type it one level deep (no formats, no `required`: a description says
when a value may be absent), and input schemas without the `anyOf` spelling of optional.

Every tool's structured result is a pydantic model whose fields carry descriptions. The full
JSON schema of those models repeats the provenance of a reference (twenty fields) in every
tool, which is most of `tools/list`; an agent reads the descriptions, not the nesting. So the
published output schema keeps each top-level property with its type and description, and
types a nested object (a hit, a citation) as an object whose description names its fields.
bench/context_budget.py measures the catalogue."""

from __future__ import annotations

from typing import Any

from fastmcp import FastMCP
from fastmcp.tools import Tool
from pydantic import BaseModel

_NULL = {"type": "null"}
#: Longer enums of a result (kinds of document) are left to the property's description.
_ENUM_SHOWN = 4


class UndescribedField(ValueError):
    """A result model has a top-level field without a description."""


def _shape(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON type of `schema`, one level deep: scalars and enums as they are, an object as
    {"type": "object"}, an array of objects as an array of {"type": "object"}."""
    if "$ref" in schema:
        return _shape(defs.get(schema["$ref"].rsplit("/", 1)[-1], {"type": "object"}), defs)
    if "anyOf" in schema:
        options = [o for o in schema["anyOf"] if o != _NULL]
        shaped = _shape(options[0], defs) if len(options) == 1 else {}
        if len(options) == 1 and isinstance(shaped.get("type"), str):
            return {**shaped, "type": [shaped["type"], "null"]}
        return {}
    kind = schema.get("type")
    if kind == "array":
        return {"type": "array", "items": _shape(schema.get("items", {}), defs)}
    if kind == "object":
        return {"type": "object"}
    shaped = {k: v for k, v in schema.items() if k in ("type", "enum")}
    if len(shaped.get("enum", ())) > _ENUM_SHOWN:  # the description names the usual values
        del shaped["enum"]
    return shaped


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The published output schema of a tool returning `model` (see the module docstring)."""
    full = model.model_json_schema(mode="serialization")
    defs = full.get("$defs", {})
    properties: dict[str, Any] = {}
    for name, prop in full["properties"].items():
        description = prop.get("description")
        if not description:
            raise UndescribedField(f"{model.__name__}.{name} has no description")
        properties[name] = {**_shape(prop, defs), "description": description}
    return {"type": "object", "properties": properties}


def compact(schema: Any) -> Any:
    """`schema` with each optional value's `anyOf [T, null]` written `type: [T, "null"]` and
    its `default: null` left out: the same constraint in fewer tokens."""
    if isinstance(schema, list):
        return [compact(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: compact(v) for k, v in schema.items() if not (k == "default" and v is None)}
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and _NULL in options:
        (only,) = [o for o in options if o != _NULL]
        if isinstance(only, dict) and isinstance(only.get("type"), str):
            del out["anyOf"]
            out = {**only, **out, "type": [only["type"], "null"]}
    return out


def compact_inputs(server: FastMCP) -> None:
    """Write every registered tool's input schema `compact`ly (arguments are validated by the
    tool's own signature, not by the published schema)."""
    for component in server._local_provider._components.values():
        if isinstance(component, Tool):
            component.parameters = compact(component.parameters)
