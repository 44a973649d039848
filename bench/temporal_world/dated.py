"""Dated questions: one subject (a client's page-speed check, NPS readout, invoice, ...) on
several days with a different value each time; the question names a time expression, the
answer's day lies in the expression's narrow window and the same subject's other days lie
outside its wide window (clock.py)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable

from .builder import Builder
from .clock import EXPRESSIONS, Expression, weekdays
from .model import CLIENT_SCOPE, INTERNAL
from .world import CLIENTS

Draw = Callable[[random.Random], str]


def _seconds(r: random.Random) -> str:
    return f"{r.randint(180, 490) / 100:.2f} s"


def _money(r: random.Random) -> str:
    return f"${r.randint(10, 29)},{r.randint(0, 99) * 10:03d}"


def _count(unit: str, low: int, high: int) -> Draw:
    return lambda r: f"{r.randint(low, high)} {unit}"


#: (name, the log's line with {client} {v} {k}, the value, the question with {client} {expr}).
FAMILIES: tuple[tuple[str, str, Draw, str], ...] = (
    (
        "page-speed",
        "Page-speed check on the {client} home page: LCP {v} on mobile.",
        _seconds,
        "What LCP did the {client} page-speed check record {expr}?",
    ),
    (
        "nps",
        "{client} NPS survey readout: {v} from {k} responses.",
        lambda r: f"NPS {r.randint(12, 74)}",
        "What NPS did the {client} survey readout show {expr}?",
    ),
    (
        "invoice",
        "Sent {client} invoice INV-{k} for {v}.",
        _money,
        "How much was the {client} invoice sent {expr}?",
    ),
    (
        "workshop",
        "Ran a {client} discovery workshop with {v}.",
        _count("attendees", 10, 48),
        "How many people attended the {client} workshop {expr}?",
    ),
    (
        "heatmap",
        "Heatmap review for {client}: {v} on the product pages.",
        _count("dead clicks", 120, 980),
        "How many dead clicks did the {client} heatmap review find {expr}?",
    ),
    (
        "bug-bash",
        "{client} bug bash: {v}, {k} of them blockers.",
        _count("issues logged", 16, 89),
        "How many issues did the {client} bug bash log {expr}?",
    ),
    (
        "outage",
        "{client} checkout outage lasted {v} before the fix.",
        _count("minutes", 21, 98),
        "How long did the {client} checkout outage last {expr}?",
    ),
)
#: The client scope's own dated subjects, asked in that scope.
CLIENT_FAMILIES: tuple[tuple[str, str, Draw, str, str], ...] = (
    (
        "timetable",
        "Timetable sync for the winter schedule: {v} updated.",
        _count("sailings", 30, 90),
        "How many sailings did the timetable sync update {expr}?",
        "last month",
    ),
    (
        "fare-page",
        "Fare-page test readout: conversion {v}.",
        lambda r: f"{r.randint(150, 690) / 100:.2f}%",
        "What conversion did the fare-page test readout show {expr}?",
        "in June",
    ),
)
#: Out-of-window days of each subject, up to AFTER of them after the window.
DISTRACTORS = 3
AFTER = 2


def build(b: Builder) -> None:
    subjects = [(client.name, family) for family in FAMILIES for client in CLIENTS]
    b.rng.shuffle(subjects)
    slots = [x for x in EXPRESSIONS for _ in range(2)]
    for n, (expr, (client, family)) in enumerate(zip(slots, subjects, strict=False)):
        name, line, draw, question = family
        _place(b, f"dated-{n}", expr, client, name, line, draw, question, INTERNAL)
    by_text = {x.text: x for x in EXPRESSIONS}
    for n, (name, line, draw, question, expr) in enumerate(CLIENT_FAMILIES):
        _place(
            b,
            f"dated-client-{n}",
            by_text[expr],
            "Quayside Ferries",
            name,
            line,
            draw,
            question,
            CLIENT_SCOPE,
        )


def _place(
    b: Builder,
    instance: str,
    expr: Expression,
    client: str,
    family: str,
    line: str,
    draw: Draw,
    question: str,
    scope: str,
) -> None:
    days = weekdays()
    answer_day = b.rng.choice([x for x in days if expr.inside(x)])
    first, last = expr.wide
    before = [x for x in days if x < first]
    after = [x for x in days if x > last]
    others: list[dt.date] = []
    for pool, wanted in ((after, AFTER), (before, DISTRACTORS)):
        for _ in range(200):
            if not pool or len(others) >= wanted:
                break
            day = b.rng.choice(pool)
            if all(abs((day - o).days) > 2 for o in others):
                others.append(day)
    values = [b.value(draw) for _ in range(DISTRACTORS + 1)]
    for day, v in zip([answer_day, *others], values, strict=True):
        k = b.rng.randint(2, 9) if family == "bug-bash" else b.rng.randint(100, 400)
        b.note(day, line.format(client=client, v=v, k=k), scope=scope)
    b.ask(
        "dated",
        f"{family} / {expr.text}",
        instance,
        (question.format(client=client, expr=expr.text),),
        scope=scope,
        expect=(values[0],),
        old=tuple(values[1:]),
        docs=(f"memory/{answer_day.isoformat()}.md",),
        window=expr.describe(),
    )
