"""Skills as events: procedural memory that the agent, reviewers, the curator and a
person change only through the journal.

The skills projection (state and fold steps) is :mod:`memoir.projections.skills`, the
skills tree renderer :mod:`memoir.projections.render.skills`; the tools are listed in
:mod:`memoir.tools` and the CLI group is :mod:`memoir.commands.skills`
(``memoir skills …``).  Importing this package registers nothing.

The public surface::

    skill_manage_call, skill_view_call, skills_list_call, record_use   # the tools
    change_lifecycle                            # pin, unpin, archive, restore
    check_background_change, archive_events, restore_events, ...       # the rules
    skill_at, skill_history                                            # time travel
    skills_drift, adopt_skills, adopt_placed_skills                    # hand edits
    import_skills                                                      # a skills tree
"""

from __future__ import annotations

from memoir.projections.render.skills import SkillsRenderer, usage_json
from memoir.skills.adopt import (
    Adoption,
    SkillDrift,
    adopt_skills,
    adoption_events,
    skills_drift,
)
from memoir.skills.guards import (
    GuardRefusal,
    Refusal,
    archive_events,
    background_refusal,
    check_absorbed_into,
    check_background_change,
    delete_events,
    is_background,
    pin_events,
    restore_events,
    state_change_events,
    unpin_events,
)
from memoir.skills.history import SkillVersion, skill_at, skill_history
from memoir.skills.importer import ImportReport, import_skills
from memoir.skills.tools import (
    adopt_placed_skills,
    change_lifecycle,
    external_skill_records,
    placed_skill_records,
    record_use,
    skill_manage_call,
    skill_view_call,
    skills_list_call,
    unjournaled_skill_records,
)

__all__ = [
    "Adoption",
    "GuardRefusal",
    "ImportReport",
    "Refusal",
    "SkillDrift",
    "SkillVersion",
    "SkillsRenderer",
    "adopt_placed_skills",
    "adopt_skills",
    "adoption_events",
    "archive_events",
    "background_refusal",
    "change_lifecycle",
    "check_absorbed_into",
    "check_background_change",
    "delete_events",
    "external_skill_records",
    "import_skills",
    "is_background",
    "pin_events",
    "placed_skill_records",
    "record_use",
    "restore_events",
    "skill_at",
    "skill_history",
    "skill_manage_call",
    "skill_view_call",
    "skills_drift",
    "skills_list_call",
    "state_change_events",
    "unjournaled_skill_records",
    "unpin_events",
    "usage_json",
]
