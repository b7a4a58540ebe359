"""complete=, headers= and input_schema= of the serve decorators, through a real SDK client in-process."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.types import PromptReference, ResourceTemplateReference

from mcp_jupyter._compat.mcp_sdk import registered_tool
from mcp_jupyter.serving._notebook_server import NotebookServer


def _server() -> NotebookServer:
    server = NotebookServer("declarations")

    def trip(city: str, month: str) -> str:
        """A trip."""
        return f"{city} in {month}"

    def months_for(partial: str, chosen: dict) -> list[str]:
        months = ["june", "july"] if chosen.get("city") == "paris" else ["january"]
        return [m for m in months if m.startswith(partial)]

    def sales(region: str) -> str:
        """Sales of a region."""
        return region

    def lookup(region: str = "eu", limit: int = 5) -> str:
        """Look a region up."""
        return f"{region}:{limit}"

    server.register_prompt(trip, complete={"city": ["paris", "park", "rome"], "month": months_for})
    server.register_resource("data://sales/{region}", sales, complete={"region": lambda p: ["eu", "us"]})
    server.register_tool(lookup, headers={"region": "Region"})
    server.register_tool(
        lambda **kw: "ok",
        name="raw",
        input_schema={
            "type": "object",
            "$defs": {"x": {"type": "string"}},
            "properties": {"a": {"$ref": "#/$defs/x"}},
        },
    )
    return server


def test_completions_headers_and_schemas_reach_a_client():
    server = _server()

    async def go():
        async with Client(server, mode="legacy") as client:
            city = await client.complete(PromptReference(name="trip"), {"name": "city", "value": "pa"})
            month = await client.complete(
                PromptReference(name="trip"),
                {"name": "month", "value": "ju"},
                context_arguments={"city": "paris"},
            )
            region = await client.complete(
                ResourceTemplateReference(uri="data://sales/{region}"), {"name": "region", "value": ""}
            )
            none = await client.complete(PromptReference(name="trip"), {"name": "nope", "value": "x"})
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return city, month, region, none, tools

    city, month, region, none, tools = anyio.run(go)
    assert city.completion.values == ["paris", "park"]
    assert month.completion.values == ["june", "july"]
    assert region.completion.values == ["eu", "us"]
    assert none.completion.values == []
    assert tools["lookup"].input_schema["properties"]["region"]["x-mcp-header"] == "Region"
    assert tools["raw"].input_schema["$defs"] == {"x": {"type": "string"}}


def test_bad_declarations_are_refused_with_what_to_do():
    server = NotebookServer("bad")

    def f(region: str = "eu") -> str:
        """F."""
        return region

    with pytest.raises(ValueError, match="not an argument of the tool; its arguments are"):
        server.register_tool(f, headers={"zone": "Zone"})
    with pytest.raises(ValueError, match="RFC 9110 token"):
        server.register_tool(f, headers={"region": "Bad Header"})
    assert registered_tool(server, "f") is None  # nothing half-registered
    with pytest.raises(TypeError, match="list of strings or a function"):
        server.register_prompt(f, complete={"region": "eu"})
