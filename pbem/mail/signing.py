"""DKIM signatures (RFC 6376) of every email the server sends, made with dkimpy.

With ``DKIM_PRIVATE_KEY`` (a PEM file of an RSA key) and ``DKIM_SELECTOR`` set, each message
is signed as it goes out (``outbox.transport_from_config`` wraps the transport), for the
domain of ``MAIL_FROM``'s address (``d=``), so that a receiver finds the public key in the
DNS at ``<selector>._domainkey.<domain>`` (``record``) and can tell the mail is this
server's, unchanged. ``flask --app pbem dkim-key`` makes the key and prints that record.

The headers signed include the List-Unsubscribe pair, which RFC 8058 wants signed before a
provider offers its one-click button, and those a message lacks, so that nobody can add
them on the way. Relaxed canonicalisation of both headers and body: relays that refold a
header or change the white space at a line's end leave the signature valid.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from email.utils import parseaddr
from pathlib import Path
from typing import Any, Mapping

import dkim
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

SIGNED = (b"from", b"to", b"subject", b"date", b"message-id", b"reply-to", b"in-reply-to",
          b"references", b"list-unsubscribe", b"list-unsubscribe-post", b"auto-submitted",
          b"mime-version", b"content-type", b"content-transfer-encoding")
KEY_BITS = 2048  # what receivers expect of RSA; 1024 is refused by some


class BadSettings(ValueError):
    """DKIM settings that cannot sign: one of the two missing, or a key that is not one."""


@dataclass(frozen=True)
class Signer:
    """Signs messages for ``domain`` with the key (PKCS#1 PEM, as dkimpy reads it)
    published under ``selector``."""

    selector: str
    domain: str
    key: bytes

    def sign(self, message: bytes) -> bytes:
        """``message`` (its bytes as they go out) with a DKIM-Signature header first."""
        return dkim.sign(message, self.selector.encode(), self.domain.encode(), self.key,
                         canonicalize=(b"relaxed", b"relaxed"),
                         include_headers=list(SIGNED)) + message

    @property
    def name(self) -> str:
        """Where its public key is published in the DNS."""
        return f"{self.selector}._domainkey.{self.domain}"


def signer_from_config(config: Mapping[str, Any]) -> Signer | None:
    """The signer that ``DKIM_PRIVATE_KEY`` and ``DKIM_SELECTOR`` set, or None where neither
    is set. Raises ``BadSettings`` where only one is, or the key cannot be read."""
    path, selector = config.get("DKIM_PRIVATE_KEY"), config.get("DKIM_SELECTOR")
    if not path and not selector:
        return None
    if not (path and selector):
        raise BadSettings("DKIM needs both DKIM_PRIVATE_KEY (the key's PEM file) and "
                          "DKIM_SELECTOR (the name its DNS record is published under)")
    return Signer(str(selector), sender_domain(config["MAIL_FROM"]), key_of(Path(path)))


def sender_domain(mail_from: str) -> str:
    """The domain of a From address ("Games <games@example.org>": example.org)."""
    return parseaddr(mail_from)[1].rpartition("@")[2].lower()


def key_of(path: Path) -> bytes:
    """The RSA key in the PEM file at ``path`` (PKCS#1 or PKCS#8, as ``openssl`` writes
    either), as dkimpy reads it."""
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as error:
        raise BadSettings(f"DKIM_PRIVATE_KEY: {path} is not a readable PEM key without a "
                          f"password ({error})") from error
    if not isinstance(key, rsa.RSAPrivateKey):
        raise BadSettings(f"DKIM_PRIVATE_KEY: {path} is not an RSA key")
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption())


def new_key() -> bytes:
    """A new RSA key, PEM."""
    return rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption())


def record(key: bytes) -> str:
    """The DNS TXT record that publishes the public half of ``key`` (PEM)."""
    public = serialization.load_pem_private_key(key, password=None).public_key()
    der = public.public_bytes(serialization.Encoding.DER,
                              serialization.PublicFormat.SubjectPublicKeyInfo)
    return f"v=DKIM1; k=rsa; p={base64.b64encode(der).decode()}"


def zone_strings(text: str, size: int = 255) -> str:
    """``text`` as a zone file's TXT data: quoted strings of at most ``size`` characters
    each (a longer one is not allowed), which resolvers join."""
    return " ".join(f'"{text[at:at + size]}"' for at in range(0, len(text), size))
