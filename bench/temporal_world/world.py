"""The invented agency: Fernhill Digital, its clients, people and tools, and where its
standing knowledge lives (file, front-matter date). Nothing here is the demo's vocabulary."""

from __future__ import annotations

from dataclasses import dataclass

AGENCY = "Fernhill Digital"


@dataclass(frozen=True)
class Client:
    key: str
    name: str
    code: str
    what: str


ORCHARD = Client("orchard_bikes", "Orchard Bikes", "OB", "a bicycle retailer")
HALCYON = Client("halcyon_teas", "Halcyon Teas", "HT", "a loose-leaf tea subscription")
BRIGHTWATER = Client("brightwater_dental", "Brightwater Dental", "BD", "a dental clinic chain")
COPPERLINE = Client("copperline", "Copperline Outfitters", "CO", "an outdoor gear shop")
MARLOW = Client("marlow_finch", "Marlow & Finch", "MF", "a stationery brand")
QUAYSIDE = Client("quayside_ferries", "Quayside Ferries", "QF", "a ferry operator")
CLIENTS = (ORCHARD, HALCYON, BRIGHTWATER, COPPERLINE, MARLOW, QUAYSIDE)

#: Full name -> role (as team.md states it; changes during the year come from the logs).
PEOPLE = {
    "Priya Natarajan": "managing director",
    "Aurelie Fontaine": "head of experimentation",
    "Tomasz Wierzbicki": "lead analyst",
    "Dev Okafor": "account director",
    "Sunniva Berg": "account director",
    "Ruairi Quinn": "account director",
    "Yuki Tanabe": "account director",
    "Ingrid Holm": "account director",
    "Mateo Alvarez": "account director",
    "Kwame Mensah": "account director",
    "Nadia Petrova": "account director",
    "Lena Vogt": "data engineer",
    "Bram de Wit": "developer",
    "Oskar Lindqvist": "QA engineer",
    "Elif Demir": "QA engineer",
    "Chidi Eze": "finance manager",
    "Grace Mwangi": "finance assistant",
    "Farah Haddad": "office manager",
}
#: People who give standup updates (first names in the logs).
MAKERS = ("Bram", "Lena", "Oskar", "Elif", "Tomasz", "Aurelie", "Yuki", "Farah")

#: Standing files of the internal workspace: path -> (title, front-matter key, date).
STANDING = {
    "clients.md": ("Clients", "reviewed", "2026-02-16"),
    "team.md": ("Team", "reviewed", "2026-03-09"),
    "tools.md": ("Tools", "reviewed", "2026-01-20"),
    "rituals.md": ("Team rituals", "updated", "2026-01-12"),
    "finance.md": ("Finance", "reviewed", "2026-01-12"),
    "billing.md": ("Billing", "updated", "2026-08-24"),
    "office.md": ("Office", "reviewed", "2026-03-02"),
    "facilities.md": ("Facilities", "updated", "2026-09-14"),
    "oncall.md": ("On-call and escalations", "updated", "2026-10-26"),
    "reporting.md": ("Client reporting", "updated", "2026-01-19"),
    "privacy.md": ("Privacy and data", "updated", "2026-01-06"),
}
#: The client scope's workspace.
CLIENT_STANDING = {"account.md": ("Quayside Ferries account", "reviewed", "2026-04-06")}
#: Handbook documents (git_docs, besides decisions/): path -> (title, `updated:` date).
HANDBOOK = {
    "playbook/experiment-playbook.md": ("Experiment playbook", "2026-02-02"),
    "playbook/qa-checklist.md": ("QA checklist", "2026-09-28"),
    "playbook/analytics-standards.md": ("Analytics standards", "2026-10-19"),
    "runbooks/incidents.md": ("Incident runbook", "2026-01-26"),
    "runbooks/client-onboarding.md": ("Client onboarding", "2026-02-23"),
    "docs/design-system.md": ("Design system", "2026-03-30"),
    "clients/copperline-outfitters.md": ("Copperline Outfitters", "2026-05-11"),
}
