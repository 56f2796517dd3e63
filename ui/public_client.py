"""Who a visitor is, for public mode's per-minute limit: a client, by address, not a browser tab.

The address is the connection's (`st.context.ip_address`: Streamlit gives None for a connection
from this machine, named here "localhost"). Behind a reverse proxy every connection comes from the
proxy, so the owner lists the proxy's address in `trusted_proxies`, and on a connection from it the
visitor is the address the proxy names in `client_header` (X-Forwarded-For by default): the
rightmost entry that is not itself a trusted proxy, because each proxy appends the address it saw
and anything to the left of that came from the visitor, who can write what they like there. A
header on a connection from anywhere else is ignored for the same reason.

(Streamlit 1.67 serves through uvicorn, whose own proxy-header handling already rewrites the
address of a connection from 127.0.0.1 or ::1 that carries X-Forwarded-For; the rule above gives
the same visitor then.)
"""

from __future__ import annotations

import ipaddress

import streamlit as st

from ui.public import PublicSettings, public_settings

LOCALHOST = "localhost"
LOCAL_NAMES = {LOCALHOST, "127.0.0.1", "::1"}


def _normal(address: str) -> str:
    """One spelling per address (IPv6 compressed, brackets and a port dropped); anything that is
    not an address stays as it came."""
    text = address.strip().strip('"')
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":")[0]  # an IPv4 address with its port
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return text


def _trusted(address: str, public: PublicSettings) -> bool:
    proxies = {_normal(p) for p in public.trusted_proxies}
    if address == LOCALHOST:
        return bool(proxies & LOCAL_NAMES)
    return address in proxies


def client_address(peer: str | None, header_values: list[str], public: PublicSettings) -> str:
    """The visitor behind a connection from `peer` (None: this machine) that carried `header_values`
    in the settings' client_header."""
    address = _normal(peer) if peer else LOCALHOST
    if not _trusted(address, public):
        return address
    named = [_normal(entry) for value in header_values for entry in value.split(",") if entry.strip()]
    for entry in reversed(named):
        if not _trusted(entry, public):
            return entry
    return address  # the proxy named nobody else: its own connections share one limit


def this_client() -> str:
    """The client of the session this script runs for."""
    public = public_settings()
    peer, values = st.context.ip_address, st.context.headers.get_all(public.client_header)
    # a session without a connection (AppTest's stand-in runtime answers with mock objects) is local
    peer = peer if isinstance(peer, str) else None
    values = [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
    return client_address(peer, values, public)
