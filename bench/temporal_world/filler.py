"""Everything around the labelled facts: each weekday's standup and recurring meetings,
chatter about the same clients, and the standing files' roster lines. Nothing here states a
labelled value: no amounts, durations, times or tool names that questions ask about."""

from __future__ import annotations

from .builder import Builder
from .clock import d, weekdays
from .model import CLIENT_SCOPE, INTERNAL
from .world import CLIENTS, MAKERS, PEOPLE

TASKS = (
    "wireframes for the {c} cart drawer",
    "QA of the {c} product page variant",
    "cleaning up {c} event tracking",
    "writing the {c} test plan",
    "fixing the {c} consent banner",
    "drafting the {c} monthly report",
    "pairing with {p} on the {c} data layer",
    "the hypothesis backlog for {c}",
    "copy variants for the {c} landing page",
    "checking {c} goal definitions",
    "a teardown of a competitor checkout for {c}",
    "out today",
)
NOTES = (
    "{p} shared notes from a call with {c}.",
    "{c} asked for a call about next quarter's roadmap.",
    "{p} is travelling to the {c} office next week.",
    "{p} ran a lunch-and-learn on {topic}.",
    "Reminder: update the {c} test log.",
    "{c} sent new brand guidelines.",
    "{p} cleaned up the shared drive.",
)
TOPICS = (
    "server-side tagging",
    "Bayesian statistics",
    "checkout copywriting",
    "accessibility basics",
    "reading heatmaps",
    "writing hypotheses",
)
MEETING_TOPICS = (
    "agreed the next test",
    "reviewed the backlog",
    "went through the roadmap",
    "discussed the holiday campaign",
    "looked at last month's results",
)
THINGS = (
    "the new test dashboard",
    "a checkout prototype",
    "the Loom button set",
    "a heatmap overlay",
    "the launch checklist",
)
#: The weekly delivery review moved from Mondays to Wednesdays (changes.py).
REVIEW_MOVED = d("2026-09-02")


def build(b: Builder) -> None:
    r = b.rng
    clients = [c.name for c in CLIENTS]
    for day in weekdays():
        log = b.workspaces[INTERNAL].log(day)
        for who in r.sample(MAKERS, 3):
            task = r.choice(TASKS).format(c=r.choice(clients), p=r.choice(MAKERS))
            log.add("Standup", f"{who}: {task}.")
        for _ in range(r.randint(0, 2)):
            log.add(
                "Chatter",
                r.choice(NOTES).format(
                    c=r.choice(clients), p=r.choice(MAKERS), topic=r.choice(TOPICS)
                ),
            )
        review_day = 2 if day >= REVIEW_MOVED else 0
        if day.weekday() == review_day:
            log.add(
                "Meetings",
                f"Weekly delivery review: {r.randint(4, 12)} tests running, "
                f"{r.randint(1, 5)} in QA.",
            )
        if day.weekday() == 1:
            log.add("Meetings", f"Orchard Bikes weekly sync: {r.choice(MEETING_TOPICS)}.")
        if day.weekday() == 2:
            log.add("Meetings", f"Copperline weekly sync: {r.choice(MEETING_TOPICS)}.")
        if day.weekday() == 3:
            log.add("Meetings", f"Design crit: {r.choice(MAKERS)} presented {r.choice(THINGS)}.")
            b.workspaces[CLIENT_SCOPE].log(day).add(
                "Notes", f"Check-in with Kwame: {r.choice(MEETING_TOPICS)}."
            )
        if day.weekday() == 4:
            log.add("Meetings", f"Demo hour: {r.choice(MAKERS)} showed {r.choice(THINGS)}.")
    standing(b)


def standing(b: Builder) -> None:
    team = b.workspaces[INTERNAL].standing["team.md"]
    for name, role in PEOPLE.items():
        team.add("Roster", f"{name}: {role}.")
    clients = b.workspaces[INTERNAL].standing["clients.md"]
    for c in CLIENTS:
        clients.sections.setdefault(c.name, []).insert(0, f"{c.name} is {c.what}.")
    b.put(
        "account.md#Systems",
        "Analytics: server-side tagging since the spring relaunch.",
        scope=CLIENT_SCOPE,
    )
