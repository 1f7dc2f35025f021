"""The store's labels against the audit log's label events: a label changed, removed or added
behind the proxy's back is reported."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from proxy.audit import AuditLog, RedisStreamSink
from proxy.cli import main
from proxy.review.event import LabelEvent
from proxy.review.items import Label, Labelled
from proxy.review.store import open_store
from proxy.review.verify import check_labels
from proxy.state import RedisLink, RedisSettings
from tests.proxy.redis_helpers import SHARED_URL, delete_prefix, fresh_prefix
from tests.proxy.review.factory import NOW, item


def _labelled(*labels: Label) -> list[Labelled]:
    return [Labelled(item(f"req-{label.item_id}", id=label.item_id), (label,)) for label in labels]


def test_matching_labels_pass_and_every_kind_of_edit_is_named() -> None:
    # A key-shaped note (built here, so no key-like literal sits in the tree): the log keeps it
    # scrubbed, and the comparison reads it as the log does.
    key = "sk-" + "a1b2c3d4" * 3
    a = Label(1, "r1", True, "supported", f"{key} in the note", NOW)
    b = Label(2, "r1", False, "unsupported", "", NOW)
    c = Label(3, "r2", True, "supported", "", NOW)
    logged = [LabelEvent(x.item, x.labels[0]).to_dict() for x in _labelled(a, b, c)]
    logged.append({"request_id": "req-9", "sentences": []})  # a response record: not a label
    assert check_labels(_labelled(a, b, c), logged).ok  # notes compare as the log keeps them

    edited = Label(2, "r1", True, "supported", "", NOW)
    added = Label(4, "r3", True, "supported", "", NOW)
    found = check_labels(_labelled(a, edited, added), logged)
    assert not found.ok and found.matched == 1
    assert (found.changed, found.missing, found.unlogged) == (
        ((2, "r1"),),
        ((3, "r2"),),
        ((4, "r3"),),
    )
    assert "changed in the store: item 2 by r1" in found.describe()


@pytest.fixture
async def link() -> AsyncIterator[RedisLink]:
    prefix = fresh_prefix()
    link = RedisLink(RedisSettings(SHARED_URL, prefix=prefix))
    yield link
    await link.aclose()
    delete_prefix(prefix)


async def test_the_command_checks_labels_against_the_shared_stream(
    link: RedisLink, tmp_path: Path
) -> None:
    """Labels chained into a real Redis Stream; then one added to the store behind the proxy's
    back is found."""
    url = f"sqlite:///{tmp_path / 'review.sqlite'}"
    store = open_store(url)
    store.add_items([item("req-1"), item("req-2")])
    first, second = store.pending("clinic", "r1", needed=2, limit=10)
    assert first.id is not None and second.id is not None
    label = Label(first.id, "r1", True, "supported", "", NOW)
    store.add_label(label)
    stream = link.key("audit")
    log = AuditLog(redis=RedisStreamSink(link, stream))
    await log.start()
    log.write(LabelEvent(first, label))
    assert log.redis is not None and await log.redis.flush(timeout=10)
    await log.aclose()
    command = ["review", "--store", url, "verify", "--redis", SHARED_URL, "--stream", stream]
    assert await asyncio.to_thread(main, command) == 0

    store.add_label(Label(second.id, "r1", False, "contradicted", "", NOW))
    store.close()
    assert await asyncio.to_thread(main, command) == 1
