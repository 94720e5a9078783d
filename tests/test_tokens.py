"""Chat tokens: what is signed, rotation of the secret, the lifetime cap, and hostile input."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re

import pytest

from shopagent.domain.errors import Unauthorized
from shopagent.domain.tokens import issue_token, verify_token

OLD = "old-secret-old-secret-old-secret-0"
NEW = "new-secret-new-secret-new-secret-1"
NOW = 1_800_000_000


def test_the_version_is_part_of_what_is_signed():
    token = issue_token(NEW, "ana", 60, now=NOW)
    version, payload, signature = token.split(".")
    assert version == "v2"
    expected = base64.urlsafe_b64encode(hmac.new(NEW.encode(), f"v2.{payload}".encode(), hashlib.sha256).digest())
    assert signature == expected.rstrip(b"=").decode()
    with pytest.raises(Unauthorized, match="older format"):
        verify_token(NEW, f"v1.{payload}.{signature}", now=NOW)
    with pytest.raises(Unauthorized, match="malformed"):
        verify_token(NEW, f"v3.{payload}.{signature}", now=NOW)


def test_a_rotated_secret_signs_with_the_first_and_verifies_with_all():
    before = issue_token(OLD, "ana", 60, now=NOW)
    rotated = f"{NEW}, {OLD}"
    assert verify_token(rotated, before, now=NOW) == "ana"  # issued before the rotation: still valid
    after = issue_token(rotated, "bob", 60, now=NOW)
    assert verify_token(NEW, after, now=NOW) == "bob"  # signed with the new one
    with pytest.raises(Unauthorized, match="signature"):
        verify_token(OLD, after, now=NOW)
    with pytest.raises(Unauthorized, match="signature"):
        verify_token(NEW, before, now=NOW)  # once the old secret is dropped, its tokens end


def test_a_token_living_longer_than_allowed_is_refused():
    token = issue_token(NEW, "ana", 90 * 86_400, now=NOW)
    assert verify_token(NEW, token, now=NOW) == "ana"
    with pytest.raises(Unauthorized, match="lives longer than the 2592000s this shop allows"):
        verify_token(NEW, token, now=NOW, max_ttl_seconds=2_592_000)


@pytest.mark.parametrize("token", ["v2.abc.é", "v2.é.abc", "v2.\ud800.x", "v2..", "", "v2.a", "é.é.é"])
def test_hostile_tokens_are_unauthorized_never_an_error(token):
    with pytest.raises(Unauthorized):
        verify_token(NEW, token, now=NOW)


def _signed(secret: str, claims: dict) -> str:
    """A token with these claims, signed as a shop's backend would (not through issue_token)."""
    b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()  # noqa: E731
    payload = b64(json.dumps(claims).encode())
    return f"v2.{payload}.{b64(hmac.new(secret.encode(), f'v2.{payload}'.encode(), hashlib.sha256).digest())}"


@pytest.mark.parametrize(
    ("sub", "why"),
    [
        ("ana\u0000", "contains a control character (U+0000)"),
        ("ana\nbob", "contains a control character (U+000A)"),
        ("\u009bana", "contains a control character (U+009B)"),
        ("", "must be 1-200 characters"),
        ("a" * 201, "must be 1-200 characters"),
    ],
)
def test_a_signed_token_whose_user_id_breaks_the_rules_is_unauthorized(sub, why):
    token = _signed(NEW, {"sub": sub, "exp": NOW + 60})
    with pytest.raises(Unauthorized, match=re.escape(f"the token's user id (sub) {why}")):
        verify_token(NEW, token, now=NOW)
    with pytest.raises(ValueError, match=re.escape(f"the user id {why}")):
        issue_token(NEW, sub, 60, now=NOW)


def test_a_signed_token_for_any_printable_user_id_up_to_200_characters_is_valid():
    for sub in ("a" * 200, "customer 42", "ana@example.com", "Zoë 🥾"):
        assert verify_token(NEW, _signed(NEW, {"sub": sub, "exp": NOW + 60}), now=NOW) == sub
