"""Facts that change mid-year: a standing file (or a record) reviewed before the change keeps
the old value; a later daily log states the change in prose ("handed over to", "moved from X
to Y", "replaces", "no longer", "instead of")."""

from __future__ import annotations

from .builder import Builder
from .model import CLIENT_SCOPE, INTERNAL

PLAYBOOK = "playbook/experiment-playbook.md"

#: (stale place, stale line, day of the change, the log's line, questions, current, old,
#:  the successor record that also states the new value, or "").
CHANGES: tuple[tuple[str, str, str, str, tuple[str, str], str, str, str], ...] = (
    (
        "clients.md#Halcyon Teas",
        "Account director: Dev Okafor.",
        "2026-06-15",
        "Dev Okafor handed the Halcyon Teas account over to Sunniva Berg, who is account director "
        "from today.",
        (
            "Who is the account director for Halcyon Teas?",
            "Who looks after the Halcyon Teas account?",
        ),
        "Sunniva Berg",
        "Dev Okafor",
        "",
    ),
    (
        f"{PLAYBOOK}#Duration",
        "Every experiment runs for at least 14 days.",
        "2026-05-18",
        "Minimum test duration raised from 14 to 21 days (decision 0009): three full weekly "
        "cycles.",
        ("What is the minimum test duration?", "How long must an experiment run at minimum?"),
        "21 days",
        "14 days",
        "decisions/0009-minimum-test-duration-21-days.md",
    ),
    (
        "tools.md#Tools",
        "Experiment platform: Tallyhook.",
        "2026-07-06",
        "Vantor replaces Tallyhook as our experiment platform from today (decision 0008).",
        ("Which experiment platform do we use?", "What tool do we run A/B tests in?"),
        "Vantor",
        "Tallyhook",
        "decisions/0008-experiment-platform-vantor.md",
    ),
    (
        "tools.md#Tools",
        "Timesheets: Ledgerly.",
        "2026-04-13",
        "Timesheets moved from Ledgerly to Hourglass today; log your hours in Hourglass from now "
        "on.",
        ("Which timesheet tool do we use?", "Where do we log our working hours?"),
        "Hourglass",
        "Ledgerly",
        "decisions/0006-timesheets-in-hourglass.md",
    ),
    (
        "rituals.md#Meetings",
        "Weekly delivery review: Mondays at 09:30.",
        "2026-09-02",
        "The weekly delivery review moved from Monday 09:30 to Wednesday 11:00.",
        ("When is the weekly delivery review?", "What day and time is the delivery review held?"),
        "Wednesday 11:00",
        "09:30",
        "",
    ),
    (
        "finance.md#Expenses",
        "Expenses up to $500 need no approval.",
        "2026-09-21",
        "From today expenses up to $750 need no approval, instead of $500.",
        (
            "What is the expense approval limit?",
            "Up to what amount can I spend on an expense without asking anyone?",
        ),
        "$750",
        "$500",
        "",
    ),
    (
        "clients.md#Copperline Outfitters",
        "Account director: Ruairi Quinn.",
        "2026-10-05",
        "Ruairi Quinn handed Copperline Outfitters over to Yuki Tanabe, who is now the account "
        "director.",
        (
            "Who is the account director for Copperline Outfitters?",
            "Who manages the Copperline account these days?",
        ),
        "Yuki Tanabe",
        "Ruairi Quinn",
        "",
    ),
    (
        "team.md#Leads",
        "QA lead: Oskar Lindqvist.",
        "2026-08-03",
        "Oskar Lindqvist is no longer QA lead; Elif Demir leads QA from today.",
        ("Who is the QA lead?", "Who heads quality assurance?"),
        "Elif Demir",
        "Oskar Lindqvist",
        "",
    ),
    (
        "clients.md#Brightwater Dental",
        "Primary KPI: booked appointments per visitor.",
        "2026-03-23",
        "From today Brightwater Dental's primary KPI is new-patient bookings instead "
        "of booked appointments per visitor.",
        (
            "What is Brightwater Dental's primary KPI?",
            "What's the headline metric for Brightwater Dental?",
        ),
        "new-patient bookings",
        "booked appointments per visitor",
        "",
    ),
    (
        "tools.md#Hosting",
        "Staging server: staging-eu.fernhill.dev.",
        "2026-02-23",
        "preview.fernhill.dev replaces staging-eu.fernhill.dev as our staging server.",
        ("What is the staging server?", "Which host do we deploy test builds to?"),
        "preview.fernhill.dev",
        "staging-eu.fernhill.dev",
        "",
    ),
    (
        "team.md#Leads",
        "Invoicing questions go to Chidi Eze.",
        "2026-11-09",
        "Chidi Eze handed invoicing over to Grace Mwangi; send invoicing questions to Grace from "
        "now on.",
        ("Who handles invoicing?", "Who should I ask about an invoice?"),
        "Grace Mwangi",
        "Chidi Eze",
        "",
    ),
    (
        "rituals.md#Meetings",
        "Daily standup: 09:15.",
        "2026-10-19",
        "Daily standup moved from 09:15 to 09:45.",
        ("What time is the daily standup?", "When does standup start in the morning?"),
        "09:45",
        "09:15",
        "",
    ),
    (
        f"{PLAYBOOK}#Calling a test",
        "Tests are called at 95% confidence.",
        "2026-06-29",
        "Tests are no longer called at 95% confidence; from today we call them at 90%.",
        (
            "At what confidence level do we call a test?",
            "What significance level do our experiments use?",
        ),
        "90%",
        "95%",
        "",
    ),
    (
        "clients.md#Marlow & Finch",
        "Platform: Shopwave.",
        "2026-05-04",
        "Marlow & Finch moved from Shopwave to Cartiva over the weekend; the new store is live.",
        (
            "Which e-commerce platform is Marlow & Finch on?",
            "What shop system does Marlow & Finch run?",
        ),
        "Cartiva",
        "Shopwave",
        "",
    ),
    (
        "tools.md#Chat",
        "Incidents are coordinated in #war-room.",
        "2026-08-17",
        "#incidents replaces #war-room for incident coordination from today.",
        ("Which channel do we use for incidents?", "Where do we coordinate during an outage?"),
        "#incidents",
        "#war-room",
        "",
    ),
    (
        "account.md#People",
        "Fare-page test owner: Lena Vogt.",
        "2026-10-14",
        "Lena Vogt handed the fare-page tests over to Bram de Wit.",
        (
            "Who owns the Quayside Ferries fare-page tests?",
            "Who is responsible for testing the Quayside fare pages now?",
        ),
        "Bram de Wit",
        "Lena Vogt",
        "",
    ),
)


def build(b: Builder) -> None:
    for n, (place, stale, day, change, questions, current, old, record) in enumerate(CHANGES):
        scope = CLIENT_SCOPE if place.startswith("account.md") else INTERNAL
        b.put(place, stale, scope=scope)
        log = b.put(f"log:{day}", change, scope=scope)
        b.ask(
            "current",
            "change (a: plain, b: reworded)",
            f"change-{n}",
            questions,
            scope=scope,
            expect=(current,),
            old=(old,),
            docs=(log, record) if record else (log,),
        )
