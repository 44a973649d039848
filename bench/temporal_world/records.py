"""Decision records (git_docs `decisions/NNNN-slug.md`) and the questions that name them by
number, title or path. Some are superseded by a successor whose own front matter says
`supersedes:` while theirs still says `accepted`; 0003 is marked superseded in its own front
matter too (a second commit on its successor's day)."""

from __future__ import annotations

from dataclasses import dataclass

from .builder import Builder
from .clock import d
from .model import Commit


@dataclass(frozen=True)
class Record:
    number: int
    slug: str
    title: str
    day: str
    context: str
    decision: str
    consequences: str
    expect: str
    supersedes: int = 0
    marked: bool = False  # its own front matter says superseded (set on the successor's day)

    @property
    def path(self) -> str:
        return f"decisions/{self.number:04d}-{self.slug}.md"


RECORDS = (
    Record(
        1,
        "experiment-platform-tallyhook",
        "Run experiments in Tallyhook",
        "2026-01-08",
        "Client tests ran in three different tools, and results were hard to compare.",
        "We run all client experiments in Tallyhook.",
        "Every analyst gets a Tallyhook seat.",
        "Tallyhook",
    ),
    Record(
        2,
        "weekly-delivery-review",
        "Weekly delivery review",
        "2026-01-12",
        "Running experiments were checked by whoever had time.",
        "The delivery team reviews every running experiment together once a week.",
        "Account directors bring one slide per client.",
        "once a week",
    ),
    Record(
        3,
        "timesheets-in-ledgerly",
        "Timesheets in Ledgerly",
        "2026-01-15",
        "Billable hours were kept in personal spreadsheets.",
        "Everyone logs billable hours in Ledgerly by Friday evening.",
        "Finance exports Ledgerly every month end.",
        "Ledgerly",
        marked=True,
    ),
    Record(
        4,
        "holdout-groups",
        "Holdout groups for pricing tests",
        "2026-02-09",
        "Pricing tests changed revenue for months after they ended.",
        "Every pricing test keeps a 5% holdout group that never sees a variant.",
        "Pricing results are read against the holdout, not the control alone.",
        "5% holdout",
    ),
    Record(
        5,
        "minimum-test-duration",
        "Minimum test duration of 14 days",
        "2026-02-02",
        "Tests called after a few days flipped sign later.",
        "Every experiment runs for at least 14 days before it is called.",
        "Launch plans show the earliest call date.",
        "14 days",
    ),
    Record(
        6,
        "timesheets-in-hourglass",
        "Timesheets in Hourglass",
        "2026-04-13",
        "Ledgerly could not split hours by client project.",
        "Everyone logs billable hours in Hourglass by Friday evening.",
        "Ledgerly is no longer used from today.",
        "Hourglass",
        supersedes=3,
    ),
    Record(
        7,
        "client-reporting-pack",
        "Client reporting pack",
        "2026-03-16",
        "Every account director formatted reports differently.",
        "Every client report opens with a one-slide scorecard of the primary KPI.",
        "The scorecard template lives in the shared drive.",
        "scorecard",
    ),
    Record(
        8,
        "experiment-platform-vantor",
        "Move experiments to Vantor",
        "2026-07-06",
        "Tallyhook's visual editor broke on single-page shops.",
        "All client experiments run in Vantor; Tallyhook is retired when its running tests end.",
        "Analysts are trained on Vantor in July.",
        "Vantor",
        supersedes=1,
    ),
    Record(
        9,
        "minimum-test-duration-21-days",
        "Minimum test duration of 21 days",
        "2026-05-18",
        "Two-week tests missed the payday cycle of several clients.",
        "Every experiment runs for at least 21 days, covering three full weekly cycles.",
        "Launch plans show the earliest call date.",
        "21 days",
        supersedes=5,
    ),
    Record(
        10,
        "on-call-rotation",
        "On-call rotation",
        "2026-06-01",
        "Out-of-hours alerts reached whoever happened to look.",
        "On-call duty rotates every Monday at 10:00 among the four engineers.",
        "The rota is kept in Trellis.",
        "every Monday",
    ),
    Record(
        11,
        "experiment-naming",
        "Experiment naming",
        "2026-08-10",
        "Two clients had tests with the same name.",
        "Experiment ids are the client code, the year and a three-digit sequence number, "
        "for example OB-2026-014.",
        "Old ids are kept as aliases.",
        "three-digit sequence number",
    ),
    Record(
        12,
        "raw-export-retention",
        "Retention of raw analytics exports",
        "2026-11-02",
        "Raw exports piled up without an owner.",
        "Raw analytics exports are kept for 13 months, then deleted.",
        "Lena Vogt runs the monthly clean-up.",
        "13 months",
    ),
    Record(
        13,
        "launch-approvals-in-chat",
        "Launch approvals in chat",
        "2026-02-16",
        "Launches waited days for a meeting.",
        "A launch is approved with a thumbs-up from a reviewer in the #launches channel.",
        "Approvals are searchable in chat.",
        "thumbs-up",
    ),
    Record(
        14,
        "launch-approvals-in-trellis",
        "Launch approvals in Trellis",
        "2026-06-22",
        "Chat approvals were impossible to audit.",
        "Launch approvals are recorded on a Trellis task signed by both reviewers.",
        "The #launches channel is for announcements only.",
        "signed by both reviewers",
        supersedes=13,
    ),
)
BY_NUMBER = {r.number: r for r in RECORDS}
#: Split order: superseded records first, so each half gets some (0003 is the one marked in
#: its own front matter).
NAMED_ORDER = (3, 1, 5, 13, 2, 4, 6, 7, 8, 9, 10, 11, 12, 14)
NUMBERED = (
    "What did decision {nnnn} decide?",
    "What does ADR {n} say?",
    "What was decided in decision record {n}?",
)


def render(r: Record, *, superseded_by: Record | None = None) -> str:
    meta = [
        f'title: "Decision {r.number:04d}: {r.title}"',
        f"status: {'superseded' if superseded_by else 'accepted'}",
        f"date: {r.day}",
    ]
    if r.supersedes:
        meta.append(f"supersedes: [{BY_NUMBER[r.supersedes].path.removeprefix('decisions/')}]")
    if superseded_by:
        meta.append(f"superseded_by: {superseded_by.path.removeprefix('decisions/')}")
    return "\n".join(
        [
            "---",
            *meta,
            "---",
            f"# Decision {r.number:04d}: {r.title}",
            "",
            "## Context",
            r.context,
            "",
            "## Decision",
            r.decision,
            "",
            "## Consequences",
            r.consequences,
            "",
        ]
    )


def successor(r: Record) -> Record | None:
    return next((s for s in RECORDS if s.supersedes == r.number), None)


def build(b: Builder) -> None:
    for r in RECORDS:
        b.records.append(Commit(d(r.day), r.path, render(r), f"Decision {r.number:04d}"))
        after = successor(r)
        if r.marked and after:
            b.records.append(
                Commit(
                    d(after.day),
                    r.path,
                    render(r, superseded_by=after),
                    f"Decision {r.number:04d} superseded by {after.number:04d}",
                )
            )
    for i, number in enumerate(NAMED_ORDER):
        r = BY_NUMBER[number]
        by_number = NUMBERED[i % 3].format(n=r.number, nnnn=f"{r.number:04d}")
        by_name = (
            f"What does the decision record '{r.title}' say?"
            if i % 2 == 0
            else f"What does {r.path} say?"
        )
        gone = successor(r) is not None
        status = (
            "superseded, marked in its own front matter"
            if gone and r.marked
            else "superseded only by its successor's supersedes:"
            if gone
            else "current"
        )
        b.ask(
            "named",
            f"record, {status} (a: number, b: {'title' if i % 2 == 0 else 'path'})",
            f"record-{r.number}",
            (by_number, by_name),
            expect=(r.expect,),
            docs=(r.path,),
            superseded=gone,
        )
