"""The one exception tree of ``verifiers``: every error it raises on purpose derives from
``VerifierError``, so a caller can catch them all at once or one kind at a time.

::

    VerifierError
    ├── UnknownComponent   (also a ValueError) a name no registry knows: a configuration error
    ├── NLIError           an NLI backend could not score (model missing, judge unreachable, …)
    ├── HarmError          the harm scorer could not score (judge unreachable, malformed answer)
    ├── JudgeFailure       the cascade's LLM judge could not be reached or refused the request
    ├── MalformedReply     (also a ValueError) the judge's reply is not the JSON it was asked for
    ├── ReviewFileError    (also a ValueError) a line of a review export is not a review row
    └── ResumeMismatch     (also a ValueError) train-nli resumed under other data settings

The names stay importable where they were defined before (``verifiers.harm.HarmError``,
``verifiers.judge.JudgeFailure``, …): they are the same classes. Arguments a function cannot
take at all (a support outside [0, 1]) still raise a plain ``ValueError``, as Python's own do.
"""

from __future__ import annotations


class VerifierError(Exception):
    """Root of every error ``verifiers`` raises on purpose."""


class UnknownComponent(VerifierError, ValueError):
    """Configuration named a component (check, decomposer, harm scorer) that is not registered;
    the message names the registered ones."""


class NLIError(VerifierError):
    """An NLI backend could not score the pairs (model missing, judge unreachable, …)."""


class UnsegmentedText(VerifierError):
    """Words of an answer lie outside every sentence the segmenter found: no verdict would see
    them, and gate mode would release them as the space between two verified sentences. The
    segmenter is built so that this cannot happen (``verifiers.segment``); this is the second
    lock, and the answer cannot be verified (the policy's ``on_verifier_error`` decides). The
    message counts the characters, never quotes them."""


class HarmError(VerifierError):
    """A harm scorer could not score a batch (judge unreachable, malformed answer, …)."""


class JudgeFailure(VerifierError):
    """The judge could not be reached or refused the request."""


class MalformedReply(VerifierError, ValueError):
    """The judge's reply is not the JSON the request asked for."""


class ReviewFileError(VerifierError, ValueError):
    """A line of a review export (``veriproxy review export``) that is not a review row."""


class ResumeMismatch(VerifierError, ValueError):
    """``train-nli --resume`` in a work directory whose run was started with other data
    settings (recipe, pair length, sample, seed): its checkpoints would count steps through
    other pairs."""
