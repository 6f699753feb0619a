"""One fact per entry (memoir/reviewers/split.py): an entry that coordinates three or more
facts is kept as one entry each; everything else stays whole."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir.reviewers.rules import extract
from memoir.reviewers.split import facts_of


@pytest.mark.parametrize(("entry", "facts"), [
    # clauses of their own
    ("The warehouse is Snowflake, transformations are in dbt, and dashboards are in "
     "Metabase.",
     ["The warehouse is Snowflake.", "Transformations are in dbt.",
      "Dashboards are in Metabase."]),
    ("Payments go through Adyen, invoices are made by a Lambda, and receipts are emailed "
     "with SES.",
     ["Payments go through Adyen.", "Invoices are made by a Lambda.",
      "Receipts are emailed with SES."]),
    # the verb left out: the subject changes, or the object does
    ("Emails go through Postmark, SMS through Twilio, push through Firebase.",
     ["Emails go through Postmark.", "SMS goes through Twilio.",
      "Push goes through Firebase."]),
    ("The team uses pnpm for packages, Biome for linting and Playwright for end-to-end "
     "tests.",
     ["The team uses pnpm for packages.", "The team uses Biome for linting.",
      "The team uses Playwright for end-to-end tests."]),
    # the subject shared
    ("The cluster has six nodes, runs k3s, and is managed with Flux.",
     ["The cluster has six nodes.", "The cluster runs k3s.",
      "The cluster is managed with Flux."]),
])
def test_an_entry_of_three_facts_is_three_entries(entry: str, facts: list[str]) -> None:
    assert facts_of(entry) == facts


@pytest.mark.parametrize("entry", [
    # two facts in one breath stay one entry
    "The backend is Go and the frontend is Svelte.",
    "The frontend talks to the BFF, never directly to the services.",
    "Prod secrets are in Vault, never in .env files.",
    # a list of things is one fact
    "Mostly uses Polars and DuckDB.",
    "The repo uses conventional commits, squash merges, and a CODEOWNERS file per "
    "directory.",
    # what follows leans on what came before
    "The CI containers run as a non-root user, so anything that writes to /usr fails.",
    "Every public function needs an example, the doc build runs them as tests, and "
    "failures block the merge.",
    "The codename is Orchard, but customers know it as Harvest.",
    # a first word that is no subject
    "Migrations are written with Alembic, must have a working downgrade(), and never "
    "touch the audit tables.",
])
def test_what_is_one_fact_stays_one_entry(entry: str) -> None:
    assert facts_of(entry) == [entry]


def test_a_clause_that_points_back_stays_with_the_fact_before_it() -> None:
    assert facts_of("Staging is at stage.lumen.dev, prod at app.lumen.dev, the API at "
                    "api.lumen.dev, and both sit behind Cloudflare Access.") == [
        "Staging is at stage.lumen.dev.", "Prod is at app.lumen.dev.",
        "The API is at api.lumen.dev, and both sit behind Cloudflare Access."]


_NOUN = st.sampled_from(["the queue", "the cache", "search", "the database", "billing",
                         "the frontend", "auth", "the scheduler"])
_VALUE = st.sampled_from(["Kafka", "Redis 7", "Meilisearch", "Postgres 16", "Stripe",
                          "Svelte", "Keycloak", "cron", "an S3 bucket", "port 8443"])


@given(st.lists(st.tuples(_NOUN, st.sampled_from(["is", "runs on", "lives in"]), _VALUE),
                min_size=3, max_size=6, unique_by=lambda c: c[0]),
       st.sampled_from([", ", "; "]), st.booleans())
def test_drawn_clauses_come_back_as_they_were_said(clauses: list[tuple[str, str, str]],
                                                   joint: str, final_and: bool) -> None:
    said = [f"{s} {v} {o}" for s, v, o in clauses]
    last = (", and " if final_and else joint) + said[-1]
    entry = said[0][0].upper() + said[0][1:] + "".join(joint + c for c in said[1:-1]) + \
        last + "."
    assert facts_of(entry) == [c[0].upper() + c[1:] + "." for c in said]


def test_a_review_saves_each_fact_of_a_coordinated_sentence() -> None:
    found = extract("We deploy with Nomad, service discovery is Consul, and secrets come "
                    "from Vault.")
    assert [(f.target, f.text) for f in found] == [
        ("memory", "The team deploys with Nomad."),
        ("memory", "Service discovery is Consul."),
        ("memory", "Secrets come from Vault.")]
