"""Sentence verification and policies in the proxy's request flow.

``service.VerificationService`` plugs into the chat service; ``session`` runs one response's
verification; ``streams`` holds the annotate and gate stream modes; ``redact`` enforces a
policy on a non-streamed completion. Import those modules directly: this package stays light
so that reading the configuration does not load the verifier.
"""

from proxy.settings.verification import VerificationSettings

__all__ = ["VerificationSettings"]
