"""The person's tools over what the agent learned: the audit (diffs and blame of any
run or seq), approvals of held writes, the revert of any run, and adopting hand edits
of the projected files."""
