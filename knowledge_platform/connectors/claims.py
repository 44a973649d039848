"""Containers a scope names in the registry (a ClickUp list, a Drive folder, a repository):
what a source reading several clients' data through one credential checks across scopes
when the registry is read (`SourceSettings.check_scopes`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def check_disjoint(source: str, claims: Mapping[str, Iterable[tuple[str, str]]]) -> None:
    """Each container — `(registry key, id)` pairs per scope — is named by one scope only:
    one named by two would put its items in both. Raises ValueError naming both scopes."""
    owner: dict[str, tuple[str, str]] = {}
    for scope, named in claims.items():
        for key, cid in named:
            first = owner.setdefault(cid, (scope, key))
            if first[0] != scope:
                raise ValueError(
                    f"{key} {cid!r} is named by both {first[0]} and {scope}: a container "
                    f"belongs to one scope, or its items reach both; keep it in the scope "
                    f"they belong to ({source} reads every scope with one credential)"
                )
