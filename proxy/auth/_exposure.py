"""Refusing to serve keyless on a network address: the keyless mode is for local use only."""

from __future__ import annotations

import ipaddress

LOCAL_NAMES = frozenset({"localhost", "ip6-localhost", "ip6-loopback"})


def is_loopback(host: str) -> bool:
    """True for loopback addresses and names; 0.0.0.0, :: and any other name are not."""
    if host.lower() in LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_problem(host: str, keys_enabled: bool, allow_unauthenticated: bool) -> str | None:
    """Why serving on ``host`` is refused, or None when it is fine."""
    if keys_enabled or allow_unauthenticated or is_loopback(host):
        return None
    return (
        f"refusing to listen on {host} without proxy keys: anyone who can reach it could "
        "spend the upstream account. Set auth.store (see 'veriproxy keys create'), bind to "
        "127.0.0.1, or set auth.allow_unauthenticated: true to accept the risk"
    )
