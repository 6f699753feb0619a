"""Signed appends (issue 36): what signing costs a durable append, on either journal.

Rounds alternate between an unsigned and a signed journal of the same kind in the same
folder or database: ``n`` one-event appends each, durability "always" (a file: write +
fsync per append; PostgreSQL: a COMMIT per append, synchronous_commit on).  A signed
append is one Ed25519 signature and one more record (``journal.signed``).  The figure is
the signed rate; the baseline the unsigned rate of the same run; target: signing costs
at most 10% (ratio >= 0.9).

The PostgreSQL part needs a server (``$MEMOIR_TEST_POSTGRES``, default the machine's at
127.0.0.1:5432) and makes a database of its own, dropped at the end.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time

from bench._measure import Context, Figure, Target, median, no_gc, scratch_dir
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft
from memoir.journal import FileJournal, Journal
from memoir.signatures import Signer, new_private_key

NAME = "signing"
ENTRY = "The project builds with make; tests run under pytest -q in the venv."
SERVER = os.environ.get("MEMOIR_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


def _draft(i: int) -> Draft:
    return Draft(data=EntryAdded(target="memory", entry_id=f"e-{i:012x}", text=f"{ENTRY} #{i}"),
                 actor="agent", session="s-0123456789ab")


def _rounds(ctx: Context, plain: Journal, signed: Journal, n: int,
            rounds: int) -> tuple[list[float], list[float]]:
    plain_rates: list[float] = []
    signed_rates: list[float] = []
    seq = 0
    for journal in (plain, signed):  # warm-up, not counted
        for i in range(20):
            journal.append([_draft(i)])
    for r in range(rounds):
        for journal, rates in ((plain, plain_rates), (signed, signed_rates)):
            drafts = [_draft(seq + i) for i in range(n)]
            with no_gc():
                started = time.perf_counter()
                for draft in drafts:
                    journal.append([draft])
                rates.append(n / (time.perf_counter() - started))
        seq += n
        ctx.log(f"  round {r + 1}/{rounds}: unsigned {plain_rates[-1]:,.0f}/s, "
                f"signed {signed_rates[-1]:,.0f}/s")
    return plain_rates, signed_rates


def _figure(kind: str, plain: list[float], signed: list[float], n: int,
            rounds: int) -> Figure:
    return Figure(
        bench=NAME, name=f"{kind} append, 1 event, durable, signed",
        value=median(signed), unit="appends/s", better="higher",
        baseline_name="the same appends unsigned, same run", baseline_value=median(plain),
        target=Target("ratio", ">=", 0.9),
        notes={"appends_per_round": n, "rounds": rounds,
               "signed_rates": [round(x) for x in signed],
               "unsigned_rates": [round(x) for x in plain]})


def _file(ctx: Context, signer: Signer, n: int, rounds: int) -> Figure:
    folder = scratch_dir(ctx, NAME)
    plain = FileJournal(folder / "plain.jsonl", durability="always")
    signed = FileJournal(folder / "signed.jsonl", durability="always")
    signed.signer = signer
    try:
        plain_rates, signed_rates = _rounds(ctx, plain, signed, n, rounds)
    finally:
        plain.close()
        signed.close()
        shutil.rmtree(folder, ignore_errors=True)
    return _figure("FileJournal", plain_rates, signed_rates, n, rounds)


def _postgres(ctx: Context, signer: Signer, n: int, rounds: int) -> Figure | None:
    try:
        import psycopg

        from memoir.journal.postgres import PostgresJournal
    except ImportError:
        ctx.log("  (psycopg is not installed: the PostgreSQL part is skipped)")
        return None
    from bench.postgres import _db_url

    name = f"memoir_bench_{secrets.token_hex(4)}"
    with psycopg.connect(SERVER, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = _db_url(name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA plain")
            conn.execute("CREATE SCHEMA signed")
        def open_(schema: str) -> Journal:
            return PostgresJournal(f"{url}?options=-csearch_path%3D{schema}", create=True)

        plain, signed = open_("plain"), open_("signed")
        signed.signer = signer
        try:
            plain_rates, signed_rates = _rounds(ctx, plain, signed, n, rounds)
        finally:
            plain.close()
            signed.close()
    finally:
        with psycopg.connect(SERVER, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return _figure("PostgresJournal", plain_rates, signed_rates, n, rounds)


def _tool_rounds(ctx: Context, rounds: int, n: int) -> Figure:
    """Memory-tool writes (an add, then its remove) through a home, durable: a plain
    home and a signed one (``memoir journal upgrade``), rounds alternating."""
    from memoir.api import Memoir
    from memoir.engine.signing import start_signing

    folder = scratch_dir(ctx, f"{NAME}-homes")
    rates: dict[bool, list[float]] = {False: [], True: []}
    try:
        homes = {}
        for signed in (False, True):
            handle = Memoir(folder / f"signed-{signed}", create=True)
            if signed:
                start_signing(handle)
            homes[signed] = (handle, handle.start_session())
        for r in range(rounds):
            for signed, (_handle, session) in homes.items():
                started = time.perf_counter()
                for i in range(n):
                    text = f"Round {r} notes build step {i}."
                    for args in ({"action": "add", "content": text},
                                 {"action": "remove", "old_text": text}):
                        assert session.call_tool("memory", {"target": "memory", **args})[
                            "success"]
                rates[signed].append(2 * n / (time.perf_counter() - started))
            ctx.log(f"  memory-tool round {r + 1}/{rounds}: unsigned {rates[False][-1]:,.0f}/s,"
                    f" signed {rates[True][-1]:,.0f}/s")
        for handle, _session in homes.values():
            handle.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return Figure(
        bench=NAME, name="memory-tool write through a home, durable, signed",
        value=median(rates[True]), unit="writes/s", better="higher",
        baseline_name="the same writes through an unsigned home, same run",
        baseline_value=median(rates[False]), target=Target("ratio", ">=", 0.9),
        notes={"writes_per_round": 2 * n, "rounds": rounds,
               "signed_rates": [round(x) for x in rates[True]],
               "unsigned_rates": [round(x) for x in rates[False]]})


def run(ctx: Context) -> list[Figure]:
    signer = Signer(new_private_key())
    started = time.perf_counter()
    count = 2000
    for i in range(count):
        signer.sign(i + 1, i + 1, "0" * 32)
    ctx.log(f"  one Ed25519 signature: {(time.perf_counter() - started) / count * 1e6:.1f} µs")
    n, rounds = ctx.pick(200, 1000), ctx.pick(5, 9)
    figures = [_file(ctx, signer, n, rounds), _tool_rounds(ctx, rounds, ctx.pick(50, 200))]
    pg = _postgres(ctx, signer, n, rounds)
    if pg is not None:
        figures.append(pg)
    return figures
