"""The commands on the home and its journal: ``init``, ``status``, ``log``, ``show``,
``prompt``, ``rebuild``, ``adopt``, ``verify`` and ``repair``."""

from __future__ import annotations

from pathlib import Path

import click
import msgspec

from memoir.api import Memoir
from memoir.commands.base import (
    Exit,
    StderrProgress,
    UserError,
    complete_sessions,
    echo_json,
    event_row,
    home_option,
    home_path,
    is_json,
    open_home,
    resolve_run,
    styled,
    write_json,
)
from memoir.config import load_config
from memoir.engine.signing import join_signed, pin_owner
from memoir.errors import DriftError
from memoir.ids import short_id
from memoir.journal import open_journal
from memoir.layout import JOURNAL_FILE, default_home, hermes_files, no_home_message
from memoir.lookup import resolve
from memoir.prompt.blocks import enabled_targets, render_blocks
from memoir.sessions.session import Session

__all__ = ["adopt", "init", "prompt", "rebuild", "repair", "show", "status", "verify"]


@click.command()
@home_option
@click.option("--journal", "journal_url", default=None, metavar="URL",
              envvar="MEMOIR_JOURNAL_URL",
              help="Keep the journal in this PostgreSQL database (postgresql://USER@HOST:"
                   "PORT/DB), shared with every home that names it (docs/postgres.md).")
@click.option("--password-env", default=None, metavar="VAR",
              help="With --journal: the environment variable holding the database "
                   "password (else PGPASSWORD or ~/.pgpass).")
@click.option("--owner", default=None, metavar="KEY",
              help="With --journal: the journal owner's key (`memoir journal owner` on the "
                   "owner's home prints it), pinned before the first record is read; "
                   "without it the owner met first is pinned.")
@click.pass_context
def init(ctx: click.Context, journal_url: str | None, password_env: str | None,
         owner: str | None) -> None:
    """Create a home (journal, config.yaml, memories/) if it does not exist.

    In a folder that already holds Hermes files (memories/MEMORY.md, USER.md,
    skills/), the files are left as they are and `memoir adopt` records them in the
    journal. With --journal, the journal is a PostgreSQL database: a second machine
    that runs the same command with its own folder attaches to the same journal.
    """
    from memoir.commands.attaching import DEFAULT_CONFIG, shared_config

    home = Path(home_path(ctx) or default_home()).expanduser()
    existed = (home / JOURNAL_FILE).is_file() or (home / ".memoir").is_dir()
    hermes = [] if existed else hermes_files(home) if home.is_dir() else []
    if owner and not journal_url:
        raise UserError("--owner pins a shared journal's owner: give --journal URL too",
                        exit=Exit.USAGE)
    if journal_url:
        shared_config(home, journal_url, password_env)
    if owner:
        pin_owner(home, owner)
    handle = open_home(ctx, create=True)
    config = handle.home / "config.yaml"
    if not config.exists():
        config.write_text(DEFAULT_CONFIG, encoding="utf-8")
    (handle.home / "memories").mkdir(exist_ok=True)
    admit = join_signed(handle) if journal_url else None
    if admit is None:
        handle.ensure_limits()
    if is_json():
        signing = {"signing": handle.status()["journal"]["signing"]} if journal_url else {}
        echo_json({"home": str(handle.home), "head": handle.head, "created": not existed,
                   "hermes_files": hermes, **signing})
        return
    click.echo(f"memoir home ready at {handle.home} (head {handle.head}"
               + ("; it already existed)" if existed else ")"))
    if admit:
        click.echo(f"this home's key is not trusted yet; the journal's owner runs:\n  {admit}")
    if hermes:
        click.echo(f"found Hermes files: {', '.join(hermes)}; `memoir adopt` records them in "
                   "the journal (as your edits, one run you can revert)")


@click.command()
@home_option
@click.pass_context
def status(ctx: click.Context) -> None:
    """Head, entries and usage per target, sessions, runs, and drift."""
    info = open_home(ctx, readonly=True).status()
    if is_json():
        for t in info["memory"].values():
            t.pop("usage", None)  # the numbers are there; the text is for people
        echo_json(info)
        return
    click.echo(f"home     {info['home']}")
    journal = info["journal"]
    shared = f", schema {journal['schema_version']}, shared by every home pointed at it" \
        if journal["kind"] == "postgresql" else ""
    click.echo(f"journal  {journal['where']} ({journal['kind']}{shared}"
               f"{', sealed with the key' if journal['sealed'] else ''})")
    signing = journal["signing"]
    if signing["on"]:
        mine = "this home's key is the owner's" if signing["key"] == signing["owner"] else \
            "this home's key is trusted" if signing["trusted"] else \
            "this home may not write: `memoir journal key` prints the line the owner runs"
        click.echo(f"signing  on since seq {signing['since']} (owner "
                   f"{signing['owner'][:16]}); {mine}")
    if not signing["pin_holds"]:
        root = "signed under another owner" if signing["on"] else "not signed"
        click.echo(f"owner    this home pinned {signing['pinned'][:16]}, but the journal is "
                   f"{root}: it writes nothing (`memoir journal owner` says more)")
    click.echo(f"head     {info['head']}  ({info['head_hash'] or 'empty'})")
    if info.get("mirrors"):
        click.echo(f"mirrors  the Hermes home {info['mirrors']} (its memory writes are "
                   "journaled; reverts are applied to its files)")
    for target, t in info["memory"].items():
        click.echo(f"{target:<8} {t['entries']} entries, {t['usage']}")
        for flag in t["flagged"]:
            click.echo(f"flagged  {target} entry {flag['entry_id']} ({flag['preview']!r}) "
                       f"matches {', '.join(flag['patterns'])}: the prompt shows it masked; "
                       f"`memoir memory remove --target {target} {flag['entry_id']}` "
                       "removes it")
    click.echo(f"sessions {info['sessions']}   runs {info['runs']}")
    recall = info["recall"]
    if recall["mode"] == "hybrid":
        click.echo(f"recall   hybrid: BM25 and {recall['model']} embeddings, fused "
                   f"(episodic.semantic: {recall['setting']})")
    else:
        why = "episodic.semantic: off" if recall["setting"] == "off" else \
            f"recall by meaning cannot run here (missing {', '.join(recall['missing'])})"
        click.echo(f"recall   BM25 only ({why})")
    reviewer = info["reviewer"]
    click.echo(f"reviewer {reviewer['backend']} (reviewers.backend: {reviewer['setting']})")
    for n in info["nudges"][:10]:
        memory, skills = n["memory"], n["skills"]
        click.echo(f"nudges   {n['session']}: {n['turns']} turn(s), reviewed through "
                   f"{n['reviewed_through']}; memory {memory['count']}/"
                   f"{memory['interval'] or 'off'}, skills {skills['count']}/"
                   f"{skills['interval'] or 'off'}")
    if len(info["nudges"]) > 10:
        click.echo(f"nudges   … and {len(info['nudges']) - 10} more open session(s) "
                   "(--json lists them all)")
    for path in info["drift"]:
        click.echo(f"drift    {path} was edited by hand: `memoir adopt` keeps the edit, "
                   "`memoir rebuild --force` discards it")
    for path in info["placed"]:
        click.echo(f"drift    {path}/ was placed by hand and is not adopted yet: the next "
                   "session or `memoir adopt` adopts it, or says why it cannot")
    for path, why in info["external_skipped"].items():
        click.echo(f"skipped  {path}/ in an external skills folder is not seen: {why}")
    for path in info["missing"]:
        click.echo(f"missing  {path} was deleted: the journal still has it, and the next "
                   "write or `memoir rebuild` writes it again")
    if info["stale"]:
        click.echo(f"behind   the files are behind the journal by {info['behind']} "
                   f"record(s) ({', '.join(info['stale'])}): `memoir rebuild` or any "
                   "write here brings them up to date")
    if not (info["drift"] or info["placed"] or info["missing"] or info["stale"]):
        click.echo("drift    none")
    quarantined = info["quarantined"]
    for record in quarantined["records"]:
        click.echo(f"quarantined seq {record['seq']}: {record['reason']}")
    if quarantined["count"] > len(quarantined["records"]):
        click.echo(f"quarantined … {quarantined['count']} record(s) in all (`memoir "
                   "journal quarantine`)")
    for f in info["forgets"]:
        how = "was interrupted" if f["state"] == "interrupted" else "is not yet carried out here"
        click.echo(f"forget   {f['run']} {how}: `memoir forget --finish` completes it")
    for path, why in sorted(info["unwritten"].items()):
        click.echo(f"unwritten {path}: {why} (the journal has it; memoir tries again on "
                   "every write)")


@click.command()
@home_option
@click.argument("what", metavar="SEQ|RUN")
@click.pass_context
def show(ctx: click.Context, what: str) -> None:
    """Print one event in full (SEQ), or one run (its id, a prefix, HEAD or HEAD~N) as
    `git show` prints a commit: who, when, what kind, its events, and what it changed
    in the projected files."""
    if what.isdigit():
        if int(what) < 1:
            raise click.BadParameter("a seq counts from 1", param_hint="SEQ")
        event = open_home(ctx, readonly=True, lazy=True).event(int(what))
        echo_json(msgspec.to_builtins(event))
        return
    from memoir.commands.runs import describe
    from memoir.oversight.audit import diff_states

    handle = open_home(ctx, readonly=True)
    info = handle.state.runs[resolve_run(handle, what)]
    events = list(handle.events(run=info.id, after=info.first_seq - 1, until=info.last_seq))
    diffs = diff_states(handle.view(info.first_seq - 1), handle.view(info.last_seq))
    if is_json():
        echo_json({"run": msgspec.to_builtins(info), "events": [event_row(e) for e in events],
                   "files": [{"path": p, "diff": d} for p, d in diffs.items()]})
        return
    click.echo(styled(f"run {info.id}", fg="yellow"))
    click.echo(f"Kind:    {info.kind or '-'}")
    click.echo(f"Actor:   {info.actor}")
    click.echo(f"Date:    {info.started_at}")
    if info.session:
        click.echo(f"Session: {info.session}")
    click.echo(f"Seqs:    {info.first_seq}-{info.last_seq} ({info.events} event(s))")
    if info.reverted_by:
        click.echo(f"Reverted by {info.reverted_by}")
    if info.reverts:
        click.echo(f"Reverts {info.reverts}")
    click.echo("\n    " + (info.summary or "(no summary)").replace("\n", "\n    ") + "\n")
    for event in events:
        click.echo(f"  {event.seq:>6}  {describe(event.data)}")
    for text in diffs.values():
        click.echo("")
        click.echo(text.rstrip("\n"))


@click.command()
@home_option
@click.option("--session", "session_id", default=None, shell_complete=complete_sessions,
              help="The session's pinned prompt (a unique prefix of its id will do).")
@click.option("--at", "at_seq", type=click.IntRange(min=0), default=None,
              help="The prompt as of this seq.")
@click.option("--message", default=None,
              help="The whole prompt of a turn for this user message — skills index, "
                   "relevant skills, recalled sessions: with --session as recorded when "
                   "that session's turn ran, else a new session's (nothing is recorded).")
@click.pass_context
def prompt(ctx: click.Context, session_id: str | None, at_seq: int | None,
           message: str | None) -> None:
    """Print the MEMORY and USER prompt blocks: by default what a session started now
    would see; with --session, what that session saw; with --at, as of a seq; with
    --message, the full prompt of a turn (that session's, or a new session's)."""
    if session_id is not None and at_seq is not None:
        raise click.UsageError("give --session ID or --at SEQ, not both")
    handle = open_home(ctx, readonly=True)
    if message is not None:
        if session_id is not None:
            session_id = resolve(session_id, handle.state.sessions, "session")
            full = handle.session(session_id).prompt(message)
        else:
            full = _new_session(handle, at_seq).prompt(message)
        if is_json():
            echo_json(full.as_json())
            return
        click.echo(full.system)
        click.echo("")
        click.echo("--- user message ---")
        click.echo(full.user_message)
        return
    if session_id is not None:
        session_id = resolve(session_id, handle.state.sessions, "session")
        seq = handle.state.sessions[session_id].pinned_seq
        blocks = handle.session(session_id).prompt_blocks()
    else:
        seq = handle.head if at_seq is None else at_seq
        blocks = handle.prompt_blocks(at_seq)
    if is_json():
        echo_json({"seq": seq, "session": session_id, "memory": blocks["memory"],
                   "user": blocks["user"]})
        return
    parts = [b for b in (blocks["memory"], blocks["user"]) if b]
    click.echo("\n\n".join(parts) if parts else "(no memory blocks: both stores are empty)")


def _new_session(handle: Memoir, at_seq: int | None) -> Session:
    """A session as one started at ``at_seq`` (default: now) would be, that records
    nothing: its prompt is shown, not journaled."""
    state = handle.view(at_seq)
    return Session(handle, short_id("s-"), state.seq,
                   blocks=render_blocks(state, enabled_targets(handle.config)),
                   guest="`memoir prompt` shows a new session's prompt and starts none")


@click.command()
@home_option
@click.option("--force", is_flag=True,
              help="Overwrite files edited by hand (each is copied to <file>.bak.<time>).")
@click.pass_context
def rebuild(ctx: click.Context, force: bool) -> None:
    """Regenerate every projected file from the journal."""
    handle = open_home(ctx)
    restored = handle.restored  # deleted by hand, written again when it opened
    written = handle.rebuild(force=force)
    rewrote = sorted({*written, *restored})
    if is_json():
        echo_json({"head": handle.head, "rewrote": rewrote, "restored": restored})
        return
    said = []
    if restored:
        said.append(f"wrote again {', '.join(restored)} (deleted by hand)")
    if written:
        said.append(f"rewrote {', '.join(written)}")
    click.echo(f"rebuilt from {handle.head} events; "
               + ("; ".join(said) if said else "every file was up to date"))


@click.command()
@home_option
@click.option("--force", is_flag=True,
              help="When a hand edit and a later write changed the same entry or skill "
                   "file, keep the hand edit (default: refuse and name them).")
@click.pass_context
def adopt(ctx: click.Context, force: bool) -> None:
    """Keep hand edits of MEMORY.md / USER.md and the skills tree by recording them in
    the journal.

    memoir never overwrites a memory file edited by hand. A well-formed edit (entries
    separated by a line holding only §, each within the limit) is adopted on its own
    when a session starts or an agent writes to the file (memory.adopt_hand_edits);
    this command adopts every edit at once, malformed ones included, and the skills
    tree's. Until an edit is adopted (or discarded with `memoir rebuild --force`, which
    keeps a .bak copy), `memoir status` reports the drift.

    Adopting reads the edited file as Hermes reads it (entries split on the line
    holding only §, stripped, empty and duplicate entries dropped) and records the
    difference as `user` events of one run, so `memoir log --run RUN` shows it and
    `memoir revert RUN` undoes it. An entry edited in place becomes a replace and keeps
    its id; a moved entry keeps its id. The file is the person's: an entry the threat
    scan flags is kept (flagged in the journal, shown in `memoir status`, masked in
    the prompt), and a file over the character limit is kept too.

    Adoption is three-way: the edit is compared with the version it most likely started
    from (of the file's past versions, the closest to the edit), so what agents wrote
    since is kept, even when the editor's buffer was opened before they wrote; each
    entry kept that way is named, with why. If both changed the same entry, nothing is
    adopted and the entries are named; --force keeps the hand edit.

    A deleted file is not an edit: it is written again from the journal.
    """
    handle = open_home(ctx)
    kept: list[str] = []
    run, events = handle.adopt(force=force, notes=kept)
    if is_json():
        echo_json(write_json(run, events, flagged=[
            {"seq": e.seq, "entry_id": getattr(e.data, "entry_id", ""),
             "patterns": list(getattr(e.data, "flagged", ()))}
            for e in events if getattr(e.data, "flagged", ())], kept=kept))
        return
    if not events:
        click.echo("nothing to adopt: no file was edited by hand")
        return
    for line in kept:
        click.echo(line)
    changes = sum(1 for e in events if e.type != "run.started")
    click.echo(f"adopted {changes} change(s) as run {run} "
               f"(seq {events[0].seq}-{events[-1].seq}); `memoir log --run {run}` shows them, "
               f"`memoir revert {run}` undoes them")
    for event in events:
        flagged = getattr(event.data, "flagged", ())
        if flagged:
            click.echo(f"flagged: seq {event.seq} (entry {getattr(event.data, 'entry_id', '')}) "
                       f"matches {', '.join(flagged)}; kept, and masked in the prompt")


@click.command()
@home_option
@click.option("--deep", is_flag=True,
              help="Also fold the journal from its first record and compare every "
                   "checkpoint with it (slow on a long journal).")
@click.option("--key-file", type=click.Path(dir_okay=False), default=None,
              help="The key that seals the chain (default: $MEMOIR_KEY, else "
                   "journal.key_file): check every seal with it.")
@click.option("--reseal", is_flag=True,
              help="With the key: after checking, seal the records no seal covers (only "
                   "when you trust them: written without the key, or by a writer killed "
                   "before it sealed).")
@click.option("--threats", is_flag=True,
              help="Also scan the saved memory, every skill file and the kept prompt of "
                   "every session with today's threat scan, and list what it would refuse "
                   "now (where and why, never the text); exit 1 if anything is found.")
@click.pass_context
def verify(ctx: click.Context, deep: bool, key_file: str | None, reseal: bool,
           threats: bool) -> None:
    """Read the whole journal and check every record and the hash chain.

    With a key (--key-file, $MEMOIR_KEY or journal.key_file) also check the seals: every
    append is sealed, so a journal whose hashes were all computed again, a deleted or
    cut seals file, or records added without the key are reported.  With --threats,
    also re-check what is saved with today's threat scan.
    """
    home = home_path(ctx)
    path = Path(home).expanduser() if home else default_home()
    config = None
    if key_file is not None:
        config = load_config(path)
        config.journal.key_file = key_file
    progress = StderrProgress()
    try:
        handle = Memoir(path, readonly=not reseal, config=config, progress=progress)
    finally:
        progress.finish()
    ctx.call_on_close(handle.close)
    progress = StderrProgress()
    try:
        report = handle.verify(progress)
    finally:
        progress.finish()
    check = handle.verify_home(deep=deep)
    resealed = handle.reseal() if reseal else 0
    if resealed:
        check = handle.verify_home(deep=deep)
    quarantined = {**report.quarantined, **check.quarantined}
    left_out = max(len(quarantined), check.quarantine_count)
    if left_out:
        check.problems.append(
            f"{left_out} record(s) quarantined: they chain, but memoir does not fold them "
            "(written by someone else than memoir; `memoir journal quarantine` lists them)")
    found = []
    if threats:
        from memoir.oversight.threat_audit import threats_now

        found = threats_now(handle)
    if is_json():
        echo_json({"ok": not check.problems and not found, "records": report.records,
                   "bytes": report.bytes,
                   **({"threats": [t.as_json() for t in found]} if threats else {}),
                   "head_hash": report.head_hash, "pending_bytes": report.pending_bytes,
                   "types": report.types, "seals": check.seals, "unsealed": check.unsealed,
                   "resealed": resealed, "unchecked_seals": check.unchecked_seals,
                   "checkpoints": check.checkpoints if deep else None,
                   "forgotten": check.forgotten, "problems": check.problems,
                   "quarantined": [{"seq": seq, "reason": why}
                                   for seq, why in sorted(quarantined.items())]})
    else:
        for seq, why in sorted(quarantined.items())[:20]:
            click.echo(f"quarantined: seq {seq}: {why}", err=True)
        for problem in check.problems:
            click.echo(f"problem: {problem}", err=True)
        for threat in found:
            click.echo(f"threat: {threat.where}: {', '.join(threat.findings)} "
                       f"({threat.preview!r})", err=True)
    if check.problems:
        checked = f"; {check.seals} seal(s) checked" if handle.keyed else ""
        raise UserError(f"{len(check.problems)} problem(s) found (listed above){checked}; "
                        f"the journal's own {report.records} records and hash chain are "
                        "sound", exit=Exit.DAMAGED)
    if found:
        raise UserError(f"{len(found)} saved text(s) would be refused by today's threat "
                        "scan (listed above; the prompt masks them): remove them with "
                        "`memoir memory remove` or `memoir forget --entry`")
    if is_json():
        return
    extra = []
    if threats:
        extra.append("no saved text would be refused by today's threat scan")
    if resealed:
        extra.append(f"sealed {resealed} record(s) no seal covered")
    if handle.keyed:
        extra.append(f"{check.seals} seal(s) checked, every record sealed")
    if check.unchecked_seals:
        extra.append("seals not checked (no key: --key-file or $MEMOIR_KEY)")
    if deep:
        extra.append(f"{check.checkpoints} checkpoint(s) match a fold of the journal")
    if check.forgotten:
        extra.append(f"{check.forgotten} record(s) forgotten (memoir forget), each "
                     "tombstone listed and chained")
    click.echo(f"ok: {report.records} records, {report.bytes:,} bytes, head hash "
               f"{report.head_hash or '-'}" + "".join(f"; {e}" for e in extra))


@click.command()
@home_option
@click.option("--salvage", is_flag=True,
              help="Also re-append the whole appends found after the damage. They cannot "
                   "be verified against the trusted part of the journal, so the "
                   "journal.repaired record lists them as unverified.")
@click.option("--accept-loss", is_flag=True,
              help="Go on from the journal as it is when it holds less than the home has "
                   "seen (a deleted, replaced or shortened journal); projected files that "
                   "show more are kept as .bak copies.")
@click.pass_context
def repair(ctx: click.Context, salvage: bool, accept_loss: bool) -> None:
    """Cut a damaged record out of the journal (the cut bytes are kept beside it).

    By default nothing after the damage is kept in the journal: a record that follows
    a damaged one cannot be checked against the chain (anyone could have re-hashed
    it). The cut bytes are saved in journal.jsonl.cut-<time>-after-<seq>, and a
    journal.repaired record says what was cut.
    """
    home = home_path(ctx)
    path = Path(home).expanduser() if home else default_home()
    journal_path = path / JOURNAL_FILE
    if not path.is_dir():
        raise UserError(no_home_message(path), exit=Exit.NOT_FOUND)
    from memoir.journal.home import names_a_database

    shared_config = load_config(path) if names_a_database(path) else None
    if shared_config is not None and shared_config.journal.url:
        raise UserError(
            f"{path}'s journal is a database: repair cuts damage out of a journal file and "
            "does not apply to it. A database's rows are append-only; a row no memoir wrote "
            "is quarantined (never folded, never a reason to stop: `memoir journal "
            "quarantine` lists them), and a history rewritten by someone who can change rows "
            "is restored from a backup (pg_dump, or `memoir journal copy` from a sound home)",
            exit=Exit.REFUSED)
    if not journal_path.exists() and not accept_loss:
        raise UserError(f"no journal at {journal_path}; `memoir repair --accept-loss` starts "
                        "from an empty journal (the projected files are kept as .bak copies)",
                        exit=Exit.DAMAGED)
    journal = open_journal(journal_path, recover=False)
    try:
        report = journal.repair(salvage=salvage)
    finally:
        journal.close()
    if is_json():
        pass
    elif report is None:
        click.echo("journal is sound; nothing to repair")
    else:
        click.echo(f"cut {report.cut_bytes:,} bytes after seq {report.kept_head}; saved to "
                   f"{report.saved_to}")
        if report.reappended:
            click.echo(f"re-appended {len(report.reappended)} record(s) that followed the "
                       f"damage as seq {report.reappended[0]}-{report.reappended[-1]} "
                       "(unverified: listed in the journal.repaired record)")
        if report.skipped:
            shown = ", ".join(map(str, report.skipped[:20]))
            more = f" and {len(report.skipped) - 20} more" if len(report.skipped) > 20 else ""
            click.echo(f"not kept: original seq {shown}{more}; their bytes are in the saved "
                       "file" + ("" if salvage else " (--salvage re-appends whole appends)"))
    # Checkpoints folded from the cut records must go, and the projected files must
    # show the journal as it now is.
    handle = Memoir(path, accept_loss=accept_loss or report is not None)
    written: list[str] = []
    drift = None
    head = handle.head
    try:
        handle.clear_caches()  # pins may have moved with the cut
        try:
            written = list(handle.rebuild())
        except DriftError as exc:
            drift = str(exc)
            if not is_json():
                click.echo(f"projected files not rewritten: {exc}")
        else:
            if written and not is_json():
                click.echo(f"rewrote {', '.join(written)} from the repaired journal")
    finally:
        handle.close()
    if is_json():
        echo_json({"repaired": report is not None,
                   "cut_bytes": report.cut_bytes if report else 0,
                   "kept_head": report.kept_head if report else head,
                   "saved_to": str(report.saved_to) if report else None,
                   "reappended": list(report.reappended) if report else [],
                   "skipped": list(report.skipped) if report else [],
                   "rewrote": written, "not_rewritten": drift})
