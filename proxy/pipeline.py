"""The request pipeline the configuration asks for: which extensions the chat service runs.

``build_pipeline(settings, metrics, shared)`` returns a :class:`Pipeline`: the
:class:`~proxy.extensions.Extensions` (evidence retrieval and injection, then verification and
policies), the :class:`~policies.PolicyStore` whose hot-reload thread the app's lifespan starts
and stops, and the pieces the lifespan warms up and closes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import anyio.to_thread

from policies import PolicyFileError, PolicyStore
from proxy.config import Settings
from proxy.evidence import EvidencePreparer
from proxy.evidence.factory import build_preparer
from proxy.extensions import Extensions
from proxy.metrics import Metrics
from proxy.state.evidence_cache import EvidenceCache
from proxy.state.notices import POLICY_RELOAD, Notices
from proxy.state.policy_sync import follow_policy_notices
from proxy.state.runtime import SharedState
from proxy.verification.judge import JUDGE_CACHE, JudgeResources
from proxy.verification.service import VerificationService
from verifiers._llm import close_llm_clients


@dataclass(frozen=True, slots=True)
class Pipeline:
    extensions: Extensions
    policies: PolicyStore | None = None
    verification: VerificationService | None = None
    evidence: EvidencePreparer | None = None
    notices: Notices | None = None

    async def start(self) -> None:
        """Load the verifier (so the first request does not pay for it) and watch policies:
        a change this replica's poll finds is announced to the others, and their notices make
        this one re-read its files at once."""
        service = self.verification
        if service is not None:
            await anyio.to_thread.run_sync(lambda: service.verifier)
        store, notices = self.policies, self.notices
        if store is None:
            return
        if notices is not None:
            loop = asyncio.get_running_loop()
            store.on_change = lambda: _announce(notices, loop)
            follow_policy_notices(notices, store.reload)
        store.start()

    async def aclose(self) -> None:
        """Stop watching policies and close the retriever (its index file or HTTP client) and
        the LLM judge's HTTP clients."""
        if self.policies is not None:
            self.policies.stop()
        if self.evidence is not None:
            await self.evidence.aclose()
        await close_llm_clients()


def build_pipeline(settings: Settings, metrics: Metrics, shared: SharedState) -> Pipeline:
    # The evidence preparer always runs: with retrieval off it still takes client documents.
    # Retrieval results live in the shared cache (Redis when configured, so replicas share it).
    evidence = build_preparer(
        settings.retrieval,
        cache=EvidenceCache(shared.caches["retrieval"], settings.retrieval.cache_ttl_seconds),
    )
    verification = settings.verification
    if not verification.enabled:
        return Pipeline(Extensions(preparers=(evidence,)), evidence=evidence)

    def rejected(path: Path, error: PolicyFileError) -> None:
        metrics.policy_reloads.labels("rejected").inc()

    dirs = (verification.policies_dir,) if verification.policies_dir else ()
    store = PolicyStore(
        *dirs,
        default=verification.default_policy,
        poll_seconds=verification.reload_seconds,
        on_reload_error=rejected,
    )
    judge = JudgeResources(settings.models, shared.limiter, shared.caches[JUDGE_CACHE], metrics)
    service = VerificationService(
        verification, store, metrics, shared.recorder, reports=shared.reports, judge=judge
    )
    extensions = Extensions(
        preparers=(evidence, service), transformers=(service,), finalisers=(service,)
    )
    return Pipeline(extensions, store, service, evidence, shared.notices)


def _announce(notices: Notices, loop: asyncio.AbstractEventLoop) -> None:
    """From the policy poll thread: tell the other replicas to reload now."""
    asyncio.run_coroutine_threadsafe(notices.publish(POLICY_RELOAD), loop)
