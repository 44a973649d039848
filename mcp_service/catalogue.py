"""A tool catalogue that fits an agent's context: output schemas that describe every property
of the result and type it one level deep.

Every tool's structured result is a pydantic model whose fields carry descriptions. The full
JSON schema of those models repeats the provenance of a reference (twenty fields) in every
tool, which is most of `tools/list`; an agent reads the descriptions, not the nesting. So the
published output schema keeps each top-level property with its type and description, and
types a nested object (a hit, a citation) as an object whose description names its fields.
bench/context_budget.py measures the catalogue."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

_NULL = {"type": "null"}


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
    return {k: v for k, v in schema.items() if k in ("type", "enum", "format")}


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
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if full.get("required"):
        schema["required"] = full["required"]
    return schema
