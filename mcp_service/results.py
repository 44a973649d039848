"""Tool results sent once: the structured content carries the result; its text copy, which
the specification recommends only for clients that predate structured content (protocol
revisions before 2025-06-18), goes to those clients alone. Newer clients get a brief in its
place: one line per listed item (its title and handle), the warnings, and the result's text
when it is one text (an answer, a document page). bench/context_budget.py measures both."""

from __future__ import annotations

from typing import Any

from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from mcp_types import CallToolRequestParams, TextContent

#: The first revision with structured tool results.
STRUCTURED_SINCE = "2025-06-18"
#: Top-level string fields a brief quotes whole: the result's own text.
TEXT_FIELDS = ("answer", "text", "message", "health")
_LABELS = ("title", "summary", "source")
_HANDLES = ("doc_id", "run_id", "path")


def _label(item: Any) -> str:
    if not isinstance(item, dict):
        return str(item)
    label = next((str(item[k]) for k in _LABELS if item.get(k)), "")
    handle = next((str(item[k]) for k in _HANDLES if item.get(k)), "")
    extra = [str(item[k]) for k in ("status",) if item.get(k)]
    details = ", ".join([*([handle] if handle and handle != label else []), *extra])
    return f"{label} ({details})" if details else label


def brief(data: dict[str, Any]) -> str:
    """A few lines saying what `data` (a structured result) holds."""
    lines: list[str] = []
    for key, value in data.items():
        if isinstance(value, str) and key in TEXT_FIELDS:
            lines.append(value)
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            lines += [f"{key[:-1] if key.endswith('s') else key}: {v}" for v in value]
        elif isinstance(value, list) and value:
            lines.append(f"{key}:")
            lines += [f"[{i}] {_label(item)}" for i, item in enumerate(value, 1)]
        elif key == "next_cursor" and value:
            lines.append(f"more: call again with cursor={value}")
    lines.append("(the whole result is the structured content)")
    return "\n".join(lines)


class StructuredOnce(Middleware):
    """Replaces the JSON text copy of a structured result with its `brief` for clients whose
    protocol revision has structured results."""

    async def on_call_tool(
        self,
        context: MiddlewareContext[CallToolRequestParams],
        call_next: CallNext[CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        result = await call_next(context)
        ctx = context.fastmcp_context
        request = ctx.request_context if ctx is not None else None
        version = request.protocol_version if request is not None else None
        if result.structured_content is None or version is None or version < STRUCTURED_SINCE:
            return result
        return ToolResult(
            content=[TextContent(type="text", text=brief(result.structured_content))],
            structured_content=result.structured_content,
            meta=result.meta,
        )
