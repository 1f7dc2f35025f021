"""Policy reloads across replicas: a notice makes every replica re-read its policy files now
instead of at its next poll.

``follow_policy_notices(notices, reload)`` subscribes ``reload`` (e.g. ``PolicyStore.reload``,
which re-reads changed files and keeps the old policy when a new file is invalid) to
``policy_reload`` notices from other replicas and to ``resync`` (Redis came back, notices may
have been missed). It runs in a worker thread: reading files must not block the event loop.
Publish with ``await notices.publish(POLICY_RELOAD)`` after changing the files.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio.to_thread

from proxy.state.notices import POLICY_RELOAD, RESYNC, Notice, Notices


def follow_policy_notices(notices: Notices, reload: Callable[[], object]) -> None:
    async def on_notice(notice: Notice) -> None:
        if notice.kind == RESYNC or (
            notice.kind == POLICY_RELOAD and notice.origin != notices.replica_id
        ):
            await anyio.to_thread.run_sync(reload)

    notices.subscribe(on_notice)
