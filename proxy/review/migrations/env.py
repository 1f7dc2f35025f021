"""Alembic's environment for the review store: it runs on the connection the store hands it
(``config.attributes["connection"]``), never on a URL of its own."""

from __future__ import annotations

from alembic import context

from proxy.review.tables import metadata

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=metadata,
    version_table=context.config.attributes["version_table"],
)
with context.begin_transaction():
    context.run_migrations()
