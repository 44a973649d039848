"""The HTTP edge as `kp mcp` serves it, over real HTTP: Host and Origin checked (DNS
rebinding), OAuth access tokens from a local issuer beside static tokens, and the protocol
answers the specification asks for (error codes, cursors, capabilities, server identity)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from knowledge_platform.config.registry import Registry
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import read_admin_token
from tests.fakes.oidc_issuer import OidcIssuer
from tests.mcp.fixtures import TOKENS, registry_data
from tests.mcp.test_http import HEADERS, INITIALIZE, _free_port, serving

PUBLIC = "https://kb.example.com"
MODERN = "2026-07-28"


def with_service(runtime: Runtime, **service: Any) -> None:
    runtime.registry = Registry.model_validate(
        {**registry_data(), "service": service, "base_dir": runtime.registry.base_dir}
    )


def admin(runtime: Runtime) -> dict[str, str]:
    return {**HEADERS, "Authorization": f"Bearer {read_admin_token(runtime.settings)}"}


def test_foreign_host_and_origin_get_403_naming_the_setting(runtime: Runtime) -> None:
    with_service(runtime, public_url=PUBLIC, allowed_origins=["https://app.example.com"])
    with serving(runtime) as url:
        hooks = url.replace("/mcp", "/hooks/clickup")

        def post(target: str = url, **headers: str) -> httpx.Response:
            return httpx.post(
                target, json=INITIALIZE, timeout=10, headers={**admin(runtime), **headers}
            )

        assert post().status_code == 200
        assert post(Host="kb.example.com").status_code == 200
        assert post(Origin=PUBLIC).status_code == 200
        assert post(Origin="https://app.example.com").status_code == 200
        assert post(Origin="http://localhost:6274").status_code == 200  # a local inspector
        for reply in (post(Host="evil.example"), post(hooks, Host="rebound.example:8001")):
            assert reply.status_code == 403
            assert reply.text.count("\n") == 1 and "service.public_url" in reply.text
        for origin in ("https://evil.example", "null", "http://kb.example.com"):
            reply = post(Origin=origin)
            assert reply.status_code == 403, origin
            assert reply.text.count("\n") == 1 and "service.allowed_origins" in reply.text
        # A loopback page may not reach the public name through the browser either.
        assert post(Host="kb.example.com", Origin="http://127.0.0.1:9999").status_code == 403


@pytest.mark.anyio
async def test_oauth_token_reads_exactly_its_principals_scopes(runtime: Runtime) -> None:
    port = _free_port()
    public = f"http://127.0.0.1:{port}"
    audience = public + "/mcp"
    with OidcIssuer() as issuer, OidcIssuer() as stranger:
        with_service(
            runtime,
            public_url=public,
            oauth={
                "issuer": issuer.issuer,
                "jwks_uri": issuer.url("/.well-known/jwks.json"),
                "principal_claim": "email",
                "scopes": ["knowledge.read"],
                "principals": {"maya@surefoot.example": "maya"},
            },
        )
        with serving(runtime, port=port) as url:
            maya = issuer.token(
                "auth0|1", audience, scopes=["knowledge.read"], email="maya@surefoot.example"
            )
            async with Client(url, auth=maya) as client:
                own = await client.call_tool(
                    "knowledge_search", {"query": "kumquat", "scope": "shade_store"}
                )
                with pytest.raises(ToolError, match="not available to maya"):
                    await client.call_tool("knowledge_search", {"query": "kumquat", "scope": "hot"})
            assert {h["scope"] for h in own.structured_content["hits"]} == {"shade_store"}
            async with Client(url, auth=TOKENS["jonas"]) as client:  # static tokens still work
                hot = await client.call_tool(
                    "knowledge_search", {"query": "kumquat", "scope": "hot"}
                )
            assert {h["scope"] for h in hot.structured_content["hits"]} == {"hot"}

            metadata = f"{public}/.well-known/oauth-protected-resource/mcp"
            refused = {
                "expired": issuer.token(
                    "auth0|1",
                    audience,
                    scopes=["knowledge.read"],
                    email="maya@surefoot.example",
                    expires_in=-120,
                ),
                "foreign issuer": stranger.token(
                    "auth0|1", audience, scopes=["knowledge.read"], email="maya@surefoot.example"
                ),
                "other audience": issuer.token(
                    "auth0|1",
                    "https://other.example/mcp",
                    scopes=["knowledge.read"],
                    email="maya@surefoot.example",
                ),
                "no scope": issuer.token("auth0|1", audience, email="maya@surefoot.example"),
                "unmapped": issuer.token(
                    "auth0|2", audience, scopes=["knowledge.read"], email="mallory@surefoot.example"
                ),
            }
            for why, token in refused.items():
                reply = httpx.post(
                    url,
                    json=INITIALIZE,
                    timeout=10,
                    headers={**HEADERS, "Authorization": f"Bearer {token}"},
                )
                assert reply.status_code == 401, why
                challenge = reply.headers["www-authenticate"]
                assert 'error="invalid_token"' in challenge, why
                assert f'resource_metadata="{metadata}"' in challenge, why
                assert issuer.issuer in reply.json()["error_description"], why
            anonymous = httpx.post(url, json=INITIALIZE, headers=HEADERS, timeout=10)
            assert anonymous.status_code == 401
            assert anonymous.headers["www-authenticate"] == f'Bearer resource_metadata="{metadata}"'

            for where in (metadata, f"{public}/.well-known/oauth-protected-resource"):
                doc = httpx.get(where, timeout=10).json()  # anonymous, RFC 9728
                assert doc["resource"] == audience and doc["scopes_supported"] == ["knowledge.read"]
                assert [s.rstrip("/") for s in doc["authorization_servers"]] == [issuer.issuer]


def _rpc(
    url: str,
    headers: dict[str, str],
    method: str,
    params: dict[str, Any],
    session: str | None = None,
) -> dict[str, Any]:
    extra = {"mcp-session-id": session} if session else {}
    reply = httpx.post(
        url,
        timeout=10,
        headers={**headers, **extra, "Mcp-Method": method},
        json={"jsonrpc": "2.0", "id": 7, "method": method, "params": params},
    )
    return reply.json()


def test_protocol_answers_as_the_specification_asks(runtime: Runtime) -> None:
    with_service(runtime, website_url="https://docs.example.com/kb")
    with serving(runtime) as url:
        headers = admin(runtime)
        opened = httpx.post(
            url,
            json={
                **INITIALIZE,
                "params": {**INITIALIZE["params"], "protocolVersion": "2025-11-25"},
            },
            headers=headers,
            timeout=10,
        )
        init = opened.json()["result"]
        session = opened.headers["mcp-session-id"]
        legacy = {**headers, "MCP-Protocol-Version": "2025-11-25"}
        assert init["serverInfo"]["title"] == "Surefoot knowledge platform"
        assert init["serverInfo"]["websiteUrl"] == "https://docs.example.com/kb"
        assert init["serverInfo"]["icons"][0]["src"].startswith("data:image/svg+xml;base64,")
        assert "logging" not in init["capabilities"]  # deprecated in 2026-07-28
        for method in ("tools/list", "resources/list", "resources/templates/list", "prompts/list"):
            answer = _rpc(url, legacy, method, {"cursor": "not-a-cursor"}, session)
            assert answer["error"]["code"] == -32602, method
        assert len(_rpc(url, legacy, "tools/list", {}, session)["result"]["tools"]) == 9
        not_a_request = httpx.post(
            url,
            timeout=10,
            headers={**legacy, "mcp-session-id": session},
            json={"jsonrpc": "2.0", "id": 8, "method": 42},
        )
        assert not_a_request.status_code == 400
        assert not_a_request.json()["error"]["code"] == -32600

        meta = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        }
        discovered = _rpc(
            url, {**headers, "MCP-Protocol-Version": MODERN}, "server/discover", {"_meta": meta}
        )["result"]
        assert discovered["supportedVersions"][0] == MODERN
        assert {"2025-11-25", "2025-06-18"} <= set(discovered["supportedVersions"])
        assert "logging" not in discovered["capabilities"]
