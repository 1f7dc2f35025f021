"""Which policy a request gets, and whether its caller may skip verification.

Order: the policy the request names (``veriproxy.policy``, only one its key allows), else the
key's own policy (a key created with ``veriproxy keys create --policy NAME`` is bound to NAME:
the first policy it lists), else the policy whose ``match`` fits the tenant and model, else
``default``. ``veriproxy.verify: false`` is honoured only when the selected policy says
``allow_client_opt_out: true``; otherwise it is refused with a 403, so a caller can never turn
a bound policy off. A skipped verification is still audited (:func:`skipped_reason`).
"""

from __future__ import annotations

from collections.abc import Sequence

from policies import Policy, PolicyError, PolicyNotFound, PolicyStore
from proxy.auth import PermissionDenied
from proxy.errors import InvalidRequest

OPT_OUT_PARAM = "veriproxy.verify"


def select_policy(
    store: PolicyStore,
    *,
    tenant: str | None,
    model: str | None,
    requested: str | None,
    key_policies: Sequence[str] = (),
) -> Policy:
    """The request's policy (see the module docstring); 403 / 400 as OpenAI errors."""
    name = requested or (key_policies[0] if key_policies else None)
    try:
        return store.select(tenant=tenant, model=model, requested=name)
    except (PolicyNotFound, PolicyError) as exc:
        raise InvalidRequest(str(exc), param="veriproxy.policy") from None


def check_opt_out(policy: Policy) -> None:
    """Refuse ``verify: false`` unless ``policy`` lets callers skip verification."""
    if not policy.allow_client_opt_out:
        raise PermissionDenied(
            f"policy '{policy.name}' does not allow skipping verification",
            param=OPT_OUT_PARAM,
        )


def skipped_reason(policy: Policy) -> str:
    """What the audit record says when a caller skipped verification."""
    return (
        "verification skipped at the client's request (veriproxy.verify=false; "
        f"policy '{policy.name}' allows it)"
    )
