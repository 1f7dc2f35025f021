"""The request pipeline the configuration asks for: which extensions the chat service runs.

``build_pipeline(settings, metrics, shared)`` returns a :class:`Pipeline`: the
:class:`~proxy.extensions.Extensions` (evidence retrieval and injection, then verification and
policies), the evidence preparer and verification service that ``POST /v1/verify`` shares with
chats, and the :class:`~policies.PolicyStore` whose hot-reload thread the app's lifespan
starts and stops.
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
from proxy.runtime import SharedState
from proxy.state.evidence_cache import EvidenceCache
from proxy.state.notices import POLICY_RELOAD, Notices
from proxy.state.policy_sync import follow_policy_notices
from proxy.verification.judge import JudgeResources
from proxy.verification.service import VerificationService
from verifiers import close_llm_clients


@dataclass(frozen=True, slots=True)
class Pipeline:
    """What serves chats and ``POST /v1/verify``: the chat service's extensions, the evidence
    preparer and the verification service both use, and the policies' hot reload."""

    extensions: Extensions
    evidence: EvidencePreparer
    verification: VerificationService
    # Verification of chats is on: the policy store to hot-reload, and the replica notices
    # that make the reload cluster-wide. None: /v1/verify reads the policies once.
    policies: PolicyStore | None = None
    notices: Notices | None = None

    async def start(self) -> None:
        """Load the verifier (so the first request does not pay for it) and watch policies:
        a change this replica's poll finds is announced to the others, and their notices make
        this one re-read its files at once. With verification off, /v1/verify loads the
        verifier on its first call instead: a passthrough proxy never pays for the models."""
        store, notices = self.policies, self.notices
        if store is None:
            return
        service = self.verification
        await anyio.to_thread.run_sync(lambda: service.verifier)
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
        await self.evidence.aclose()
        await close_llm_clients()


def build_pipeline(
    settings: Settings, metrics: Metrics, shared: SharedState, extensions: Extensions | None = None
) -> Pipeline:
    """The configured pipeline; ``extensions`` replaces the chat service's chains (the
    evidence preparer and verification service still serve /v1/verify)."""
    # The evidence preparer always runs: with retrieval off it still takes client documents.
    # Retrieval results live in the shared cache (Redis when configured, so replicas share it).
    evidence = build_preparer(
        settings.retrieval,
        cache=EvidenceCache(shared.retrieval_cache, settings.retrieval.cache_ttl_seconds),
    )
    verification = settings.verification
    dirs = (verification.policies_dir,) if verification.policies_dir else ()
    verifies_chats = verification.enabled and extensions is None

    def rejected(path: Path, error: PolicyFileError) -> None:
        metrics.policy_reloads.labels("rejected").inc()

    store = PolicyStore(
        *dirs,
        default=verification.default_policy,
        poll_seconds=verification.reload_seconds,
        on_reload_error=rejected,
    )
    judge = JudgeResources(settings.models, shared.limiter, shared.judge_cache, metrics)
    service = VerificationService(
        verification,
        store,
        metrics,
        shared.recorder,
        reports=shared.reports,
        judge=judge,
        quotes_in_text=settings.retrieval.citations.quotes_in_text,
    )
    if extensions is not None:
        return Pipeline(extensions, evidence, service)
    if not verifies_chats:
        return Pipeline(Extensions(preparers=(evidence,)), evidence, service)
    chains = Extensions(
        preparers=(evidence, service),
        transformers=(service,),
        finalisers=(service,),
        failure_observers=(service,),
    )
    return Pipeline(chains, evidence, service, store, shared.notices)


def _announce(notices: Notices, loop: asyncio.AbstractEventLoop) -> None:
    """From the policy poll thread: tell the other replicas to reload now."""
    asyncio.run_coroutine_threadsafe(notices.publish(POLICY_RELOAD), loop)
