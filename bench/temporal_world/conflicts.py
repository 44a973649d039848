"""True conflicts: two standing sources with different dates state different values for one
thing, with no word of a change. The answer must show both, and `newer` must point at the
citation of the more recently dated source."""

from __future__ import annotations

from .builder import Builder

PLAYBOOK = "playbook/experiment-playbook.md"

#: (place A, line A, value A, place B, line B, value B, questions).
CONFLICTS: tuple[tuple[str, str, str, str, str, str, tuple[str, str]], ...] = (
    (
        "clients.md#Orchard Bikes",
        "Retainer: 80 hours a month.",
        "80 hours",
        "billing.md#Orchard Bikes",
        "Retainer: 96 hours a month.",
        "96 hours",
        (
            "How many retainer hours a month does Orchard Bikes have?",
            "What is Orchard Bikes' monthly allowance of hours?",
        ),
    ),
    (
        "clients.md#Halcyon Teas",
        "Payment terms: net 30.",
        "net 30",
        "billing.md#Halcyon Teas",
        "Payment terms: net 45.",
        "net 45",
        (
            "What are Halcyon Teas' payment terms?",
            "How many days does Halcyon Teas have to pay an invoice?",
        ),
    ),
    (
        "office.md#Opening hours",
        "The studio opens at 08:00 on weekdays.",
        "08:00",
        "facilities.md#Opening hours",
        "The studio opens at 07:30 on weekdays.",
        "07:30",
        ("What time does the studio open?", "When are the studio doors unlocked in the morning?"),
    ),
    (
        "clients.md#Brightwater Dental",
        "Monthly report: goes out on the first Thursday of the month.",
        "first Thursday",
        "reporting.md#Brightwater Dental",
        "The monthly report goes out on the first Friday of the month.",
        "first Friday",
        (
            "On which day does Brightwater Dental's monthly report go out?",
            "When is the Brightwater Dental monthly report sent?",
        ),
    ),
    (
        "team.md#Escalations",
        "Out-of-hours escalations for Quayside Ferries go to Bram de Wit.",
        "Bram de Wit",
        "oncall.md#Escalations",
        "Out-of-hours escalations for Quayside Ferries go to Lena Vogt.",
        "Lena Vogt",
        (
            "Who takes out-of-hours escalations for Quayside Ferries?",
            "Who should I call about a Quayside Ferries problem at night?",
        ),
    ),
    (
        f"{PLAYBOOK}#Limits",
        "No client runs more than 3 experiments at once.",
        "3 experiments",
        "playbook/qa-checklist.md#Limits",
        "No client runs more than 4 experiments at once.",
        "4 experiments",
        (
            "How many experiments can a client run at once?",
            "What is the cap on concurrent tests per client?",
        ),
    ),
    (
        "clients.md#Marlow & Finch",
        "Quarterly budget: $42,000.",
        "$42,000",
        "billing.md#Marlow & Finch",
        "Quarterly budget: $38,500.",
        "$38,500",
        (
            "What is Marlow & Finch's quarterly budget?",
            "How much can Marlow & Finch spend with us each quarter?",
        ),
    ),
    (
        "tools.md#Tools",
        "Glimmer keeps session recordings for 90 days.",
        "90 days",
        "privacy.md#Retention",
        "Session recordings are kept for 60 days.",
        "60 days",
        (
            "How long are session recordings kept?",
            "What is the retention period for visitor session replays?",
        ),
    ),
    (
        f"{PLAYBOOK}#Sample size",
        "Each variant needs at least 5,000 visitors.",
        "5,000 visitors",
        "playbook/analytics-standards.md#Sample size",
        "Each variant needs at least 8,000 visitors.",
        "8,000 visitors",
        (
            "What is the minimum sample size per variant?",
            "How many visitors does each variant need?",
        ),
    ),
    (
        "clients.md#Copperline Outfitters",
        "Weekly sync: Wednesdays at 15:00.",
        "15:00",
        "clients/copperline-outfitters.md#Meetings",
        "Weekly sync with Copperline: Wednesdays at 16:30.",
        "16:30",
        (
            "What time is the weekly sync with Copperline Outfitters?",
            "When do we meet Copperline each week?",
        ),
    ),
)


def build(b: Builder) -> None:
    for n, (place_a, line_a, a, place_b, line_b, value_b, questions) in enumerate(CONFLICTS):
        doc_a, doc_b = b.put(place_a, line_a), b.put(place_b, line_b)
        if b.date_of(doc_a) == b.date_of(doc_b):
            raise ValueError(f"conflict {n}: both sources dated {b.date_of(doc_a)}")
        newer, older = ((value_b, doc_b), (a, doc_a))
        if b.date_of(doc_a) > b.date_of(doc_b):
            newer, older = older, newer
        kind = (
            "memory vs memory"
            if "/" not in doc_a + doc_b
            else ("handbook vs handbook" if "/" in doc_a and "/" in doc_b else "memory vs handbook")
        )
        b.ask(
            "conflict",
            f"two sources ({kind}; a: plain, b: reworded)",
            f"conflict-{n}",
            questions,
            expect=(newer[0], older[0]),
            newer=newer[0],
            docs=(newer[1], older[1]),
        )
