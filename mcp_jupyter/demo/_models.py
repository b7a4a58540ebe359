"""Pydantic models the demo server's tools take and return (they become JSON Schemas on the wire)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Address(BaseModel):
    """A postal address: the nested object inside `User`."""

    street: str = Field(description="Street and number")
    city: str = Field(description="City name")
    country: str = Field(default="NL", description="ISO 3166 country code")


class User(BaseModel):
    """The `user` argument of `create_user`: an object with a nested `address` object."""

    name: str = Field(description="Full name")
    email: str = Field(description="E-mail address")
    age: int | None = Field(default=None, ge=0, le=150, description="Age in years")
    role: Literal["admin", "editor", "viewer"] = Field(default="viewer", description="Access level")
    address: Address


class CreatedUser(BaseModel):
    """What `create_user` returns: the stored user, its new id and tags."""

    id: int
    user: User
    tags: list[str]


class Weather(BaseModel):
    """A (made-up, deterministic) weather report."""

    city: str
    temperature: float
    units: Literal["metric", "imperial"]
    unit_symbol: str
    conditions: str
    humidity: int


class Stats(BaseModel):
    """Summary statistics of a list of numbers."""

    count: int
    mean: float
    min: float
    max: float


class Row(BaseModel):
    """One record of the `table` tool's tabular result."""

    id: int
    name: str
    city: str
    score: float
    active: bool


class Profile(BaseModel):
    """The form `ask_user` elicits from the user (flat primitives only, as the spec requires)."""

    name: str = Field(description="Your name")
    color: Literal["red", "green", "blue"] = Field(description="Favourite color")
    newsletter: bool = Field(default=False, description="Subscribe to the newsletter?")


class Name(BaseModel):
    """The form `greet` elicits: just a name."""

    name: str = Field(description="Your name")


class Lookup(BaseModel):
    """What `lookup` returns: a made-up value for the key, and which call for that key this was."""

    key: str
    value: int
    attempt: int


class FormOutcome(BaseModel):
    """What `ask_user` returns: the user's decision and, when accepted, the answers."""

    action: Literal["accept", "decline", "cancel"]
    name: str | None = None
    color: str | None = None
    newsletter: bool | None = None


class Summary(BaseModel):
    """What `summarize` returns: the client's LLM's answer and which model produced it."""

    summary: str
    model: str
    stop_reason: str | None = None


class ToolCall(BaseModel):
    """One tool the client's LLM asked to call (a `tool_use` block of a sampling answer)."""

    id: str
    name: str
    input: dict


class ToolUseReport(BaseModel):
    """What `forecast` returns: the LLM's first answer (its text and the tools it asked for), what
    the tools gave, and its final answer once it read their results."""

    model: str
    stop_reason: str | None = None
    text: str = ""
    tool_calls: list[ToolCall] = []
    weather: list[Weather] = []
    answer: str = ""


class RootInfo(BaseModel):
    """One root the client exposed."""

    uri: str
    name: str | None = None
