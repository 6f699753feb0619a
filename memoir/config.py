"""Configuration: a pydantic model with Hermes's defaults, read from ``config.yaml`` in
the home, with a few environment overrides.

Keys mirror Hermes's where they mean the same thing (``memory.memory_char_limit``,
``curator.interval_hours`` …) so a Hermes user finds them where they expect.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

import pydantic
import yaml

from memoir import lazyre
from memoir.errors import ConfigError, ValidationError
from memoir.fs.outside import read_text
from memoir.lookup import did_you_mean
from memoir.urls import has_password

__all__ = [
    "ALLOW_KEY_ENV",
    "CONFIG_FILE",
    "HERMES_IGNORED",
    "Config",
    "ConfigReport",
    "CuratorConfig",
    "EpisodicConfig",
    "InsightsConfig",
    "JournalConfig",
    "LLMConfig",
    "MemoryConfig",
    "ProceduralConfig",
    "ProjectionsConfig",
    "ReviewersConfig",
    "SessionsConfig",
    "SkillsConfig",
    "check_config",
    "key_variable_problem",
    "load_config",
    "password_variable_problem",
]

CONFIG_FILE = "config.yaml"


class _Section(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", validate_assignment=True)


def _approval_flag(value: Any) -> Any:
    """``write_approval`` as Hermes reads it: a bool, or one of the strings on, true,
    yes, 1, approve, enabled (any other string is off)."""
    if isinstance(value, str):
        return value.strip().lower() in {"on", "true", "yes", "1", "approve", "enabled"}
    return value


#: A ``write_approval`` key (spec §1.9): hold the section's writes for a person.
ApprovalFlag = Annotated[bool, pydantic.BeforeValidator(_approval_flag)]


class MemoryConfig(_Section):
    #: Hermes's switches for the MEMORY and USER prompt blocks: off, the block is left
    #: out of every session's prompt (the journal and the files are kept).
    memory_enabled: bool = True
    user_profile_enabled: bool = True
    memory_char_limit: int = pydantic.Field(2200, ge=1, le=1_000_000)
    user_char_limit: int = pydantic.Field(1375, ge=1, le=1_000_000)
    nudge_interval: int = pydantic.Field(10, ge=0)
    #: Adopt a well-formed hand edit of MEMORY.md / USER.md (as the person's, actor
    #: ``user``) when a session starts and before an agent writes to the file, as Hermes
    #: re-reads its files.  Off: every hand edit waits for ``memoir adopt``.
    adopt_hand_edits: bool = True
    #: Hold every memory write an agent or a review makes for a person's approval
    #: (``memoir pending``); a person's own writes are never held.
    write_approval: ApprovalFlag = False


class JournalConfig(_Section):
    durability: Literal["always", "batch", "never"] = "always"
    lock_timeout_seconds: float = pydantic.Field(60.0, gt=0)
    checkpoint_every: int = pydantic.Field(10_000, ge=100)
    #: A file (outside the home) holding the key that seals the chain's head and keys
    #: the checkpoints' digests; ``$MEMOIR_KEY`` takes precedence.  See docs/guarantees.md.
    key_file: str | None = None
    #: A PostgreSQL journal shared by several machines (``postgresql://USER@HOST:PORT/DB``,
    #: see docs/postgres.md); None: the home's journal.jsonl.  ``$MEMOIR_JOURNAL_URL``
    #: takes precedence.  Never with a password in it: PGPASSWORD, ~/.pgpass or
    #: ``password_env``.
    url: str | None = None
    #: The environment variable holding the database password (never the password).
    password_env: str | None = None

    @pydantic.field_validator("url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        scheme = urlsplit(value).scheme
        if scheme not in ("postgresql", "postgres"):
            raise ValueError(f"a journal URL is postgresql://USER@HOST:PORT/DB, not "
                             f"{scheme or 'a plain path'}:// (the file journal needs none)")
        return value.strip()


class ProjectionsConfig(_Section):
    """``projections:`` — how MEMORY.md, USER.md and the skills tree are kept up to date.

    ``background`` (default): a commit returns once its events are durable in the
    journal; a thread of the handle writes the files a moment later, coalescing bursts
    of commits into one write.  :meth:`Memoir.flush` (and closing the handle) waits for
    them.  ``sync``: every commit writes its files before it returns.
    """

    mode: Literal["background", "sync"] = "background"
    #: How long the background writer lets commits accumulate before writing (ms).
    coalesce_ms: float = pydantic.Field(20.0, ge=0, le=10_000)


class SkillsConfig(_Section):
    """``skills:`` — keys and defaults are Hermes's."""

    #: Threat-scan the skills a foreground agent writes too (background writes, from
    #: reviewers and the curator, are always scanned).
    guard_agent_created: bool = False
    #: Adopt hand edits of a skill's folder (and skills placed in the tree by hand) as
    #: the person's before an agent changes or loads that skill, as Hermes reads the
    #: tree.  Off: they wait for ``memoir adopt``.
    adopt_hand_edits: bool = True
    #: Hermes's skill-creation nudge: every this many model iterations of the tool loop
    #: without a skill_manage call (0: never).
    creation_nudge_interval: int = pydantic.Field(10, ge=0)
    #: Extra folders of skills (``~`` and ``${VAR}`` expanded); local skills win on a
    #: name collision; a foreground agent changes them in place, journaled.
    external_dirs: list[str] = pydantic.Field(default_factory=list)
    #: Hold every skill write an agent or a review makes for a person's approval.
    write_approval: ApprovalFlag = False
    #: A skill the agent creates with skill_manage in a conversation is the agent's
    #: (the curator and reviewers maintain it).  memoir's own key; off, the default, is
    #: Hermes's rule: only skills a background review creates are the agent's, the
    #: conversation's are the person's who asked for them.
    agent_owns_conversation_skills: bool = False


class LLMConfig(_Section):
    """``reviewers.llm:`` — any server that speaks OpenAI chat completions with tools.
    Unset keys fall back to ``$OPENAI_BASE_URL``, ``$OPENAI_API_KEY`` and
    ``$MEMOIR_LLM_MODEL``."""

    base_url: str | None = None
    model: str | None = None
    #: The environment variable that holds the API key (never the key itself).
    api_key_env: str = "OPENAI_API_KEY"
    timeout_seconds: float = pydantic.Field(60.0, gt=0)
    max_iterations: int = pydantic.Field(16, ge=1, le=64)
    max_retries: int = pydantic.Field(3, ge=0, le=10)


class ReviewersConfig(_Section):
    """``reviewers:`` — the background reviews of recorded conversations."""

    #: ``background``: a due review runs on a thread of the handle (record_turn never
    #: waits); ``sync``: before record_turn returns; ``off``: never.
    mode: Literal["background", "sync", "off"] = "background"
    #: rules (offline), semantic (the rules plus an embedding classifier; needs the
    #: semantic extra), llm (a model through reviewers.llm); auto: semantic when the
    #: semantic extra is importable and episodic.semantic is not off, else rules.
    backend: Literal["auto", "rules", "semantic", "llm"] = "auto"

    @pydantic.field_validator("mode", mode="before")
    @classmethod
    def _yaml_off(cls, value: Any) -> Any:
        # YAML reads a bare `off` as false (and `on` as true).
        return {False: "off", True: "background"}.get(value, value) \
            if isinstance(value, bool) else value
    #: When a session ends, review the turns no review has covered yet (beyond Hermes).
    review_on_end: bool = True
    #: The most writes (memory and skill_manage calls that change something) one review
    #: may make; the rest are refused and the limit is journaled.
    max_writes: int = pydantic.Field(10, ge=1, le=1_000)
    queue_size: int = pydantic.Field(64, ge=1, le=10_000)
    #: A queued review waits until its session has recorded no turn for this long, so
    #: reviews run between turns (flush and close do not wait).
    idle_ms: float = pydantic.Field(250.0, ge=0, le=60_000)
    #: How long closing the handle waits for queued reviews (the rest are journaled as
    #: skipped).
    close_timeout_seconds: float = pydantic.Field(30.0, ge=0)
    llm: LLMConfig = pydantic.Field(default_factory=LLMConfig)


class SessionsConfig(_Section):
    """``sessions:`` — when an open session counts as over."""

    #: A session with recorded turns and no new one for this many minutes is ended by
    #: ``memoir maintain`` (summary and end review included); 0: never.
    idle_timeout_minutes: float = pydantic.Field(240.0, ge=0)


class TranscriptsConfig(_Section):
    """``transcripts:`` — how recorded conversations are stored."""

    #: Replace credentials said in a conversation (API keys, tokens, private keys,
    #: passwords in URLs: the memory scan's patterns) by ``[redacted:<kind>]`` before
    #: the messages are stored; the turn's event counts them.
    redact_secrets: bool = True


def _switch(value: Any) -> Any:
    """``on``/``off`` as YAML 1.1 reads them unquoted (true/false) back to the words."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return value


class EpisodicConfig(_Section):
    """``episodic:`` — recall of past sessions (seed 004's keys)."""

    #: Hits a search returns by default (and that a prompt recalls).
    max_results: int = pydantic.Field(5, ge=1, le=100)
    #: Recency weights: [days, weight] from the newest; older than the last: older_weight.
    recency_weights: list[tuple[float, float]] = pydantic.Field(
        default_factory=lambda: [(7.0, 2.0), (30.0, 1.5), (90.0, 1.0)])
    older_weight: float = pydantic.Field(0.7, ge=0)
    #: Journal a summary of each session when it ends (offline rules).
    summaries: bool = True
    #: Recall by meaning as well as by words (the memoir[semantic] extra): auto (when
    #: the extra can be imported), on (a search fails, naming what to install, without
    #: it), off (BM25 only).
    semantic: Annotated[Literal["auto", "on", "off"], pydantic.BeforeValidator(_switch)] = "auto"


class ProceduralConfig(_Section):
    """``procedural:`` — skills in the prompt (seed 004's keys)."""

    max_skills_injected: int = pydantic.Field(3, ge=0, le=50)
    relevance_threshold: float = pydantic.Field(0.15, ge=0, le=1)
    #: How relevance is scored: tfidf (seed 004's rule), semantic (the embeddings of
    #: the semantic extra), auto (semantic when episodic recall is hybrid, else tfidf).
    relevance: Literal["auto", "tfidf", "semantic"] = "auto"
    #: Scored by meaning, a skill must reach this cosine with the message, and come
    #: within semantic_margin of the best skill's (tests/recall/test_skill_relevance.py).
    semantic_threshold: float = pydantic.Field(0.25, ge=-1, le=1)
    semantic_margin: float = pydantic.Field(0.05, ge=0, le=2)


class InsightsConfig(_Section):
    """``insights:`` — seed 003's pipeline from tool errors to skill candidates."""

    #: Occurrences of an error signature that make it an insight.
    promote_after: int = pydantic.Field(3, ge=1)
    #: References of an insight (hints shown, memory_search hits) that make it a skill
    #: candidate.
    candidate_after: int = pydantic.Field(5, ge=1)
    #: A signature seen once and not again within this many days expires.
    expire_days: float = pydantic.Field(14, gt=0)
    #: An insight nobody referenced within this many days is demoted.
    demote_days: float = pydantic.Field(30, gt=0)


class CuratorConfig(_Section):
    """``curator:`` — keys and defaults are Hermes's (spec §8)."""

    enabled: bool = True
    interval_hours: float = pydantic.Field(168, gt=0)
    # Unlike Hermes (whose callers always pass an infinite idle time), memoir measures
    # idleness from the journal, so this gate takes effect.
    min_idle_hours: float = pydantic.Field(2, ge=0)
    stale_after_days: int = pydantic.Field(30, ge=1)
    archive_after_days: int = pydantic.Field(90, ge=1)
    prune_builtins: bool = True
    consolidate: bool = False


class DisplayConfig(_Section):
    """``display:`` — Hermes's key for how memory writes are announced to the person
    (off, on, verbose); memoir keeps it for the integrations that show writes."""

    model_config = pydantic.ConfigDict(extra="allow", validate_assignment=True)
    memory_notifications: Literal["off", "on", "verbose"] = "on"

    @pydantic.field_validator("memory_notifications", mode="before")
    @classmethod
    def _yaml_bool(cls, value: Any) -> Any:
        # YAML reads a bare on/off as a boolean.
        return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) \
            else value


class HermesConfig(_Section):
    """``hermes:`` — this home mirrors a Hermes home's memory (``memoir hermes install``
    writes it): Hermes writes its MEMORY.md and USER.md, memoir journals each write,
    and ``memoir revert`` of those writes is applied to Hermes's files."""

    #: The Hermes home whose memory files this home mirrors (None: none).
    home: str | None = None


class Config(_Section):
    """Everything configurable; every field has Hermes's default where Hermes has one."""

    memory: MemoryConfig = pydantic.Field(default_factory=MemoryConfig)
    journal: JournalConfig = pydantic.Field(default_factory=JournalConfig)
    projections: ProjectionsConfig = pydantic.Field(default_factory=ProjectionsConfig)
    skills: SkillsConfig = pydantic.Field(default_factory=SkillsConfig)
    curator: CuratorConfig = pydantic.Field(default_factory=CuratorConfig)
    display: DisplayConfig = pydantic.Field(default_factory=DisplayConfig)
    reviewers: ReviewersConfig = pydantic.Field(default_factory=ReviewersConfig)
    episodic: EpisodicConfig = pydantic.Field(default_factory=EpisodicConfig)
    sessions: SessionsConfig = pydantic.Field(default_factory=SessionsConfig)
    transcripts: TranscriptsConfig = pydantic.Field(default_factory=TranscriptsConfig)
    procedural: ProceduralConfig = pydantic.Field(default_factory=ProceduralConfig)
    insights: InsightsConfig = pydantic.Field(default_factory=InsightsConfig)
    hermes: HermesConfig = pydantic.Field(default_factory=HermesConfig)
    extra: dict[str, Any] = pydantic.Field(default_factory=dict)


_ENV = {
    "MEMOIR_DURABILITY": ("journal", "durability"),
    "MEMOIR_JOURNAL_URL": ("journal", "url"),
    "MEMOIR_PROJECTIONS": ("projections", "mode"),
    "MEMOIR_MEMORY_CHAR_LIMIT": ("memory", "memory_char_limit"),
    "MEMOIR_USER_CHAR_LIMIT": ("memory", "user_char_limit"),
    "MEMOIR_REVIEWERS": ("reviewers", "mode"),
    "MEMOIR_SEMANTIC": ("episodic", "semantic"),
}

#: Keys of Hermes's config.yaml, in memoir's sections, that memoir accepts and does not
#: use (yet): a Hermes config.yaml works as it is, and `memoir config check` lists them.
HERMES_IGNORED: dict[str, frozenset[str]] = {
    "memory": frozenset({"provider"}),
    "skills": frozenset({"template_vars", "inline_shell", "inline_shell_timeout", "disabled",
                         "platform_disabled"}),
    "curator": frozenset({"backup", "auxiliary"}),
}


@dataclass
class ConfigReport:
    """What reading a config found: the configuration (None when there are problems),
    every problem (``file:line: key: what``), and the keys accepted but not used."""

    path: Path
    config: Config | None
    problems: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    #: What is accepted but will be refused where it is used (see key_variable_problem).
    warnings: list[str] = field(default_factory=list)


def load_config(home: Path) -> Config:
    """Read ``home/config.yaml`` (missing → defaults) and apply environment overrides.
    Raises :class:`ConfigError` listing every problem at once."""
    report = check_config(home)
    if report.config is None:
        raise ConfigError(f"{report.path}: " + "; ".join(report.problems),
                          problems=report.problems)
    return report.config


def check_config(home: Path) -> ConfigReport:
    """Read and check ``home/config.yaml`` and the environment overrides, collecting
    every problem (with its line) and every ignored key instead of stopping at one."""
    path = home / CONFIG_FILE
    report = ConfigReport(path, None)
    raw: Any = {}
    lines: dict[tuple[str, ...], int] = {}
    if path.exists():
        try:
            text = read_text(path, limit=1 << 20, what="config file")
        except ValidationError as exc:
            report.problems.append(str(exc))
            return report
        try:
            raw = yaml.safe_load(text) or {}
            lines = _key_lines(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f"{CONFIG_FILE}:{mark.line + 1}:{mark.column + 1}" if mark else CONFIG_FILE
            what = getattr(exc, "problem", None) or str(exc)
            report.problems.append(f"{at}: not valid YAML: {what}")
            return report
        if not isinstance(raw, dict):
            report.problems.append(f"{CONFIG_FILE}: expected a mapping of sections at the "
                                   "top level (memory:, skills:, curator: …)")
            return report

    def where(*keys: str) -> str:
        line = lines.get(tuple(keys))
        return f"{CONFIG_FILE}:{line}" if line else CONFIG_FILE

    sections = Config.model_fields
    kept: dict[str, Any] = {}
    for name, value in raw.items():
        key = str(name)
        if key in sections:
            kept[key] = value
            continue
        close = did_you_mean(key, sections)
        if close and difflib.SequenceMatcher(None, key, close.split("'")[1]).ratio() >= 0.8:
            report.problems.append(f"{where(key)}: {key}: not a section{close}")
        else:  # another tool's section (Hermes's model:, display:, terminal: …)
            report.ignored.append(key)
    for section, value in list(kept.items()):
        model = sections[section].annotation
        if not isinstance(value, dict) or not isinstance(model, type) or \
                not issubclass(model, _Section):
            continue
        fields = model.model_fields
        for name in list(value):
            key = str(name)
            if key in fields:
                continue
            if key in HERMES_IGNORED.get(section, ()):
                report.ignored.append(f"{section}.{key}")
                del value[name]
                continue
            report.problems.append(f"{where(section, key)}: {section}.{key}: unknown key"
                                   f"{did_you_mean(key, fields) or _hint(section)}")
            del value[name]
    from_env: dict[tuple[str, str], str] = {}
    for var, (section, key) in _ENV.items():
        if var in os.environ:
            from_env[(section, key)] = var
            kept.setdefault(section, {})
            if not isinstance(kept[section], dict):
                report.problems.append(f"{where(section)}: {section}: must be a mapping")
                continue
            kept[section][key] = os.environ[var]
            report.sources[f"{section}.{key}"] = f"${var}"
    try:
        config = Config.model_validate(kept)
    except pydantic.ValidationError as exc:
        for error in exc.errors():
            loc = [str(p) for p in error["loc"]]
            env_var = from_env.get((loc[0], loc[1])) if len(loc) >= 2 else None
            source = f"${env_var} (overrides {CONFIG_FILE})" if env_var else where(*loc)
            report.problems.append(f"{source}: {'.'.join(loc)}: {error['msg']}")
        report.problems.sort(key=_line_of)
        return report
    report.problems.sort(key=_line_of)
    url = config.journal.url
    if url and has_password(url) and "journal.url" not in report.sources:
        report.problems.append(f"{where('journal', 'url')}: journal.url: holds a password; "
                               "a password never goes into config.yaml: use PGPASSWORD, "
                               "~/.pgpass or journal.password_env")
    if config.journal.password_env:
        problem = password_variable_problem(config.journal.password_env)
        if problem:
            report.warnings.append(f"{where('journal', 'password_env')}: {problem}")
    if not report.problems:
        report.config = config
        problem = key_variable_problem(config.reviewers.llm.api_key_env)
        if problem:
            report.warnings.append(f"{where('reviewers', 'llm', 'api_key_env')}: {problem}")
        for keys in lines:
            dotted = ".".join(keys)
            if len(keys) == 2 and keys[0] in sections and dotted not in report.sources:
                report.sources[dotted] = where(*keys)
    return report


#: What an API key variable's name looks like (OPENAI_API_KEY, GROQ_API_KEY, …).
_KEY_VARIABLE = lazyre.compile(r"[A-Z][A-Z0-9_]*API_?KEY[A-Z0-9_]*")
#: What a database password variable's name looks like (PGPASSWORD, DB_PASSWD, …).
_PASSWORD_VARIABLE = lazyre.compile(r"[A-Z][A-Z0-9_]*(PASSWORD|PASSWD)[A-Z0-9_]*")
#: Names, comma-separated, the person confirms may hold the model's key (or the
#: database's password).
ALLOW_KEY_ENV = "MEMOIR_ALLOW_KEY_ENV"


def key_variable_problem(name: str) -> str | None:
    """Why ``reviewers.llm.api_key_env`` may not name ``name``, or None.  Its value is sent
    to ``reviewers.llm.base_url``, so a configuration from elsewhere naming
    ``AWS_SECRET_ACCESS_KEY`` would send that secret away: only names that look like an
    API key variable are taken, or names the person lists in ``$MEMOIR_ALLOW_KEY_ENV``
    (an environment no file can set)."""
    allowed = {n.strip() for n in os.environ.get(ALLOW_KEY_ENV, "").split(",")}
    if _KEY_VARIABLE.fullmatch(name) or name in allowed:
        return None
    return (f"reviewers.llm.api_key_env names {name}, which does not look like an API key "
            f"variable (…API_KEY), and its value would be sent to the LLM server; if {name} "
            f"really holds the model's key, confirm it: export {ALLOW_KEY_ENV}={name}")


def password_variable_problem(name: str) -> str | None:
    """Why ``journal.password_env`` may not name ``name``, or None.  Its value is sent to
    the server ``journal.url`` names, so, as for ``reviewers.llm.api_key_env``, only
    names that look like a password variable (PGPASSWORD, MEMOIR_DB_PASSWORD, …) are
    taken, or names the person lists in ``$MEMOIR_ALLOW_KEY_ENV``."""
    allowed = {n.strip() for n in os.environ.get(ALLOW_KEY_ENV, "").split(",")}
    if _PASSWORD_VARIABLE.fullmatch(name) or name in allowed:
        return None
    return (f"journal.password_env names {name}, which does not look like a password "
            f"variable (…PASSWORD), and its value would be sent to the journal's server; if "
            f"{name} really holds the database password, confirm it: export "
            f"{ALLOW_KEY_ENV}={name}")


def _line_of(problem: str) -> int:
    head = problem.split(":", 2)
    return int(head[1]) if len(head) > 2 and head[0] == CONFIG_FILE and head[1].isdigit() \
        else 0


def _hint(section: str) -> str:
    model = Config.model_fields[section].annotation
    names = sorted(model.model_fields) if isinstance(model, type) and \
        issubclass(model, pydantic.BaseModel) else []
    return f" ({section} has: {', '.join(names)})" if names else ""


def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The line (1-based) of every mapping key of a YAML document, by its key path."""
    out: dict[tuple[str, ...], int] = {}

    def walk(node: yaml.Node, path: tuple[str, ...]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    here = (*path, str(key.value))
                    out[here] = key.start_mark.line + 1
                    walk(value, here)

    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is not None:
        walk(root, ())
    return out
