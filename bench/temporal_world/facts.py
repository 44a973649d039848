"""Answerable facts that never change (asked plainly and reworded, rules asked by name), and
unanswerable questions: near misses (the subject is in the corpus, the asked attribute is
not) and off-topic ones."""

from __future__ import annotations

from .builder import Builder
from .model import CLIENT_SCOPE, INTERNAL

PLAYBOOK = "playbook/experiment-playbook.md"
NAMING = "decisions/0011-experiment-naming.md"
RETENTION = "decisions/0012-raw-export-retention.md"
ONCALL = "decisions/0010-on-call-rotation.md"
HOLDOUT = "decisions/0004-holdout-groups.md"

#: (place or decision record, line or None when records.py writes it, questions, expected).
FACTS: tuple[tuple[str, str | None, tuple[str, str], tuple[str, ...]], ...] = (
    (
        "clients.md#Orchard Bikes",
        "Primary KPI: average order value.",
        ("What is Orchard Bikes' primary KPI?", "What's the headline metric for Orchard Bikes?"),
        ("average order value",),
    ),
    (
        "tools.md#Access",
        "Client credentials live in the Keyward vault, in the Client access folder.",
        ("Where are client credentials stored?", "Where do we keep client sign-in details?"),
        ("Keyward",),
    ),
    (
        f"{PLAYBOOK}#Two-reviewer rule",
        "Every experiment launch needs sign-off from two reviewers, one of them from QA.",
        (
            "What does the two-reviewer rule say?",
            "How many people must sign off an experiment launch?",
        ),
        ("two reviewers",),
    ),
    (
        f"{PLAYBOOK}#Friday freeze",
        "No experiment launches after 14:00 on Fridays.",
        (
            "What does the Friday freeze rule say?",
            "Until what time can we launch a test on a Friday?",
        ),
        ("14:00",),
    ),
    (
        "tools.md#Tools",
        "Session replay: Glimmer.",
        (
            "Which session replay tool do we use?",
            "What do we use to watch recordings of visitor sessions?",
        ),
        ("Glimmer",),
    ),
    (
        "tools.md#Tools",
        "Task tracker: Trellis.",
        ("What task tracker do we use?", "Where do we keep track of project tasks?"),
        ("Trellis",),
    ),
    (
        "clients.md#Quayside Ferries",
        "Account director: Kwame Mensah.",
        (
            "Who is the account director for Quayside Ferries?",
            "Who runs the Quayside Ferries account?",
        ),
        ("Kwame Mensah",),
    ),
    (
        "clients.md#Marlow & Finch",
        "Primary KPI: email sign-up rate.",
        (
            "What is the primary KPI for Marlow & Finch?",
            "Which headline metric do we optimise for Marlow & Finch?",
        ),
        ("email sign-up rate",),
    ),
    (
        NAMING,
        None,
        ("How are experiment ids formed?", "What is the naming rule for experiments?"),
        ("client code",),
    ),
    (
        RETENTION,
        None,
        (
            "How long do we keep raw analytics exports?",
            "What is the retention period for raw analytics data exports?",
        ),
        ("13 months",),
    ),
    (
        ONCALL,
        None,
        ("When does on-call duty rotate?", "How often does the on-call rota change hands?"),
        ("every Monday",),
    ),
    (
        "log:2026-10-12",
        "Farah Haddad booked Larkspur Lodge for the winter offsite on 14-15 January.",
        ("Where is the winter offsite?", "Which venue did we book for the winter offsite?"),
        ("Larkspur Lodge",),
    ),
    (
        "log:2026-03-11",
        "Copperline Outfitters free-shipping threshold test CO-2026-007 "
        "finished: average order value up 2.7%.",
        (
            "What lift did the Copperline free-shipping threshold test show?",
            "By how much did Copperline's free-shipping test raise order value?",
        ),
        ("2.7%",),
    ),
    (
        "log:2026-08-19",
        "Orchard Bikes free-shipping threshold test OB-2026-021 finished: "
        "average order value up 4.2%.",
        (
            "What lift did the Orchard Bikes free-shipping threshold test show?",
            "By how much did the free-shipping test at Orchard Bikes raise order value?",
        ),
        ("4.2%",),
    ),
    (
        "runbooks/incidents.md#Severity one",
        "A Sev-1 incident pages the on-call engineer within 15 minutes.",
        (
            "How fast is the on-call engineer paged for a Sev-1 incident?",
            "What is the response time for a severity-one incident?",
        ),
        ("15 minutes",),
    ),
    (
        "runbooks/client-onboarding.md#Kickoff",
        "Every new client gets a kickoff workshop within 10 working days of signing.",
        (
            "How soon after signing does a new client get a kickoff workshop?",
            "When is the kickoff for a new client held?",
        ),
        ("10 working days",),
    ),
    (
        "docs/design-system.md#Components",
        "Our component library is called Loom and lives in the design-system repository.",
        (
            "What is our component library called?",
            "What's the name of the design system's component kit?",
        ),
        ("Loom",),
    ),
    (
        HOLDOUT,
        None,
        (
            "How big is the holdout group in a pricing test?",
            "What share of traffic is held back from pricing experiments?",
        ),
        ("5% holdout",),
    ),
    (
        "clients.md#Halcyon Teas",
        "Subscription box: $34 a month.",
        (
            "How much does a Halcyon Teas subscription box cost?",
            "What's the monthly price of the Halcyon Teas box?",
        ),
        ("$34",),
    ),
    (
        "office.md#Quiet hours",
        "No client emails go out between 20:00 and 07:00.",
        ("What does the quiet-hours rule say?", "When are we not allowed to email clients?"),
        ("20:00",),
    ),
    (
        "account.md#Systems",
        "Booking engine: Wavefare.",
        (
            "Which booking engine does Quayside Ferries use?",
            "What system takes Quayside Ferries' ticket bookings?",
        ),
        ("Wavefare",),
    ),
    (
        "clients.md#Orchard Bikes",
        "Weekly sync: Tuesdays at 10:00.",
        ("When is the Orchard Bikes weekly sync?", "What time do we meet Orchard Bikes each week?"),
        ("Tuesdays at 10:00",),
    ),
)

#: (question, subject terms, attribute terms the corpus never states with them, scope).
#: No attribute: off-topic, the subject itself is nowhere in the corpus.
NEAR_MISSES: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("What is the budget for the winter offsite?", ("offsite",), ("budget", "$", "cost"), INTERNAL),
    (
        "How many people are coming to the winter offsite?",
        ("offsite",),
        ("people", "attendees", "headcount", "guests"),
        INTERNAL,
    ),
    ("What is the capital of Portugal?", ("portugal",), (), INTERNAL),
    (
        "What is Orchard Bikes' monthly ad spend?",
        ("orchard bikes",),
        ("ad spend", "advertising", "media budget"),
        INTERNAL,
    ),
    (
        "What sample size did the Copperline free-shipping threshold test reach?",
        ("free-shipping",),
        ("sample", "visitors"),
        INTERNAL,
    ),
    ("Who wrote Pride and Prejudice?", ("prejudice",), (), INTERNAL),
    (
        "How much does Glimmer cost per month?",
        ("glimmer",),
        ("cost", "price", "$", "per month", "a month"),
        INTERNAL,
    ),
    ("When does the Vantor contract renew?", ("vantor",), ("contract", "renew", "licen"), INTERNAL),
    ("What is our parental leave policy?", ("parental",), (), INTERNAL),
    (
        "What is Halcyon Teas' 90-day retention rate?",
        ("halcyon",),
        ("%", "retention rate"),
        INTERNAL,
    ),
    ("What is Kwame Mensah's phone number?", ("kwame",), ("phone", "mobile", "+1"), INTERNAL),
    ("How do I reset the office printer?", ("printer",), (), INTERNAL),
    (
        "What was the root cause of the Copperline checkout outage?",
        ("copperline",),
        ("root cause", "caused by", "because"),
        INTERNAL,
    ),
    (
        "What is on the agenda for the winter offsite?",
        ("offsite",),
        ("agenda", "programme", "schedule"),
        INTERNAL,
    ),
    ("What is the boiling point of water at sea level?", ("boiling",), (), INTERNAL),
    ("What is the Keyward master password?", ("keyward",), ("password", "passphrase"), INTERNAL),
    (
        "What licence fee does Marlow & Finch pay for Cartiva?",
        ("cartiva",),
        ("fee", "licen", "$", "cost"),
        INTERNAL,
    ),
    ("What is the dress code at Fernhill Digital?", ("dress code",), (), INTERNAL),
    (
        "How much did the Brightwater Dental NPS survey cost?",
        ("brightwater",),
        ("cost", "paid"),
        INTERNAL,
    ),
    (
        "When does the TLS certificate for preview.fernhill.dev expire?",
        ("preview.fernhill.dev",),
        ("certificate", "tls", "expir"),
        INTERNAL,
    ),
    ("How many vacation days do new employees get?", ("vacation",), (), INTERNAL),
    ("What is the studio Wi-Fi password?", ("studio",), ("wi-fi", "wifi", "password"), INTERNAL),
    ("Who approved the move to Vantor?", ("vantor",), ("approved", "signed off"), INTERNAL),
    ("What is the euro to dollar exchange rate?", ("exchange rate",), (), INTERNAL),
    ("Where can I park at the studio?", ("studio",), ("parking", "car park", "park "), INTERNAL),
    ("How many hours did Bram log in Hourglass in October?", ("hourglass",), ("bram",), INTERNAL),
    ("Which football team does the studio support?", ("football",), (), INTERNAL),
    (
        "What discount code did the Orchard Bikes free-shipping test use?",
        ("orchard bikes",),
        ("discount", "coupon", "promo"),
        INTERNAL,
    ),
    (
        "When did Nadia Petrova join Fernhill Digital?",
        ("nadia",),
        ("joined", "start date", "started", "hired"),
        INTERNAL,
    ),
    ("What is the recipe for the Friday team lunch?", ("recipe",), (), INTERNAL),
    (
        "How many ships does Quayside Ferries operate?",
        ("quayside",),
        ("fleet", "vessels", "ships"),
        CLIENT_SCOPE,
    ),
    (
        "When does the Wavefare contract end?",
        ("wavefare",),
        ("contract", "renew", "end date"),
        CLIENT_SCOPE,
    ),
)


def build(b: Builder) -> None:
    for n, (place, line, questions, expect) in enumerate(FACTS):
        scope = CLIENT_SCOPE if place.startswith("account.md") else INTERNAL
        doc = b.put(place, line, scope=scope) if line else place
        where = (
            "log"
            if place.startswith("log:")
            else "record"
            if place.startswith("decisions/")
            else "handbook"
            if "/" in place.partition("#")[0]
            else "standing"
        )
        b.ask(
            "answerable",
            f"{where} (a: plain, b: reworded)",
            f"fact-{n}",
            questions,
            scope=scope,
            expect=expect,
            docs=(doc,),
        )
    for n, (question, subject, absent, scope) in enumerate(NEAR_MISSES):
        b.ask(
            "unanswerable",
            "near-miss" if absent else "off-topic",
            f"unanswerable-{n}",
            (question,),
            scope=scope,
            subject=subject,
            absent=absent,
        )
