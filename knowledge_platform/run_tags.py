"""The Dagster run tags the platform writes and reads, named once: the assets, sensors and
schedules, `kp` and the MCP service (which launches runs through GraphQL and must not import
Dagster code) all take them from here. Plain strings, so the core stays free of Dagster."""

#: Who or what started the run: a schedule's or sensor's name, "kp index", "mcp".
TRIGGER = "kp/trigger"
#: The principal that asked for the run (trigger_reindex).
PRINCIPAL = "kp/principal"
#: Read everything again (the weekly full pull, onboarding), not only what changed.
FULL_PULL = "kp/full_pull"
#: Deletions past the guard allowed; a collection may be emptied.
FULL_RECONCILE = "kp/full_reconcile"
#: Rebuild the partition from exactly this version (`kp index --at`), for a source whose spec
#: declares a pin (`SourceSpec.pin`). The value is the one earlier runs carry (a git sha).
AT = "kp/at_sha"
#: Ids webhooks named (hooks_sensor): a connector that can read by id reads only those.
HINT = "kp/hint"
#: The webhook events a hook run covers, and the coalesced group they came in.
HOOK_GROUP = "kp/hook_group"
HOOK_EVENTS = "kp/hook_events"
#: On a materialization the hooks sensor recorded itself (its hot path, no run): the first and
#: last queue ids of the events it applied, `<first>-<last>`.
HOT_DELTA = "kp/hot_delta"
#: The machine and process running an in-process run (the reaper's evidence it is gone).
HOST = "kp/host"
PID = "kp/pid"
#: `kp index`: the invocation a run belongs to (its progress display).
INDEX_RUN = "kp/index_run"
