"""A push-capable source written the way a new one is: its own package (settings, connector,
spec, push) and one line in the catalog (`SPEC_MODULES`, added by the test). It reads a notes
folder like memory_files and takes signed pushes naming the files an editor saved."""
