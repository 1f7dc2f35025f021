"""The request pipeline the configuration asks for: which extensions the chat service runs.

``build_pipeline(settings, metrics, recorder)`` returns the :class:`~proxy.extensions.Extensions`
(evidence retrieval and injection, then verification and policies) and the
:class:`~policies.PolicyStore` whose hot-reload thread the app's lifespan starts and stops.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import anyio.to_thread

from policies import PolicyFileError, PolicyStore
from proxy.audit import ResponseRecorder
from proxy.config import Settings
from proxy.extensions import NO_EXTENSIONS, Extensions
from proxy.metrics import Metrics
from proxy.verification.service import VerificationService


@dataclass(frozen=True, slots=True)
class Pipeline:
    extensions: Extensions
    policies: PolicyStore | None = None
    verification: VerificationService | None = None

    async def start(self) -> None:
        """Load the verifier (so the first request does not pay for it) and watch policies."""
        service = self.verification
        if service is not None:
            await anyio.to_thread.run_sync(lambda: service.verifier)
        if self.policies is not None:
            self.policies.start()

    def stop(self) -> None:
        if self.policies is not None:
            self.policies.stop()


def build_pipeline(settings: Settings, metrics: Metrics, recorder: ResponseRecorder) -> Pipeline:
    verification = settings.verification
    if not verification.enabled:
        return Pipeline(NO_EXTENSIONS)

    def rejected(path: Path, error: PolicyFileError) -> None:
        metrics.policy_reloads.labels("rejected").inc()

    dirs = (verification.policies_dir,) if verification.policies_dir else ()
    store = PolicyStore(
        *dirs,
        default=verification.default_policy,
        poll_seconds=verification.reload_seconds,
        on_reload_error=rejected,
    )
    service = VerificationService(verification, store, metrics, recorder)
    extensions = Extensions(preparers=(service,), transformers=(service,), finalisers=(service,))
    return Pipeline(extensions, store, service)
