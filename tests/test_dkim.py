"""DKIM: with a key made by ``flask --app pbem dkim-key`` and a
selector set, every email the server sends carries a DKIM-Signature for the From domain
that dkimpy verifies against the TXT record the command tells the operator to publish
(looked up by a resolver that knows that one record); a changed message no longer verifies.
Messages are captured as they reach a real SMTP server on loopback."""
from __future__ import annotations

import email
import email.policy
import re

import dkim
import pytest

from pbem.mail import outbox, signing

from helpers import api_move

# What is checked is the signature on what is written; the outbox's storage is test_mail's.
pytestmark = pytest.mark.one_database

DOMAIN = "games.example.org"


@pytest.fixture
def published(app, runner, tmp_path):
    """The key made by the command and the record it prints, the app set up to sign with
    them: (the record's name, its text)."""
    key = tmp_path / "secrets" / "dkim.pem"
    app.config.update(DKIM_PRIVATE_KEY=str(key), MAIL_FROM=f"Games <play@{DOMAIN}>")
    made = runner.invoke(args=["dkim-key", "--selector", "s2026"])
    assert made.exit_code == 0, made.output
    assert f"Made a new key: {key}" in made.output
    assert key.stat().st_mode & 0o777 == 0o600
    (name, strings), = re.findall(r"^(\S+)\. 3600 IN TXT (.+)$", made.output, re.M)
    assert name == f"s2026._domainkey.{DOMAIN}"
    assert all(len(string) <= 255 for string in re.findall(r'"([^"]*)"', strings))
    again = runner.invoke(args=["dkim-key", "--selector", "s2026"])
    assert "kept as it is" in again.output and strings in again.output  # the same key
    app.config["DKIM_SELECTOR"] = "s2026"
    return name, "".join(re.findall(r'"([^"]*)"', strings))


def resolver(name: str, text: str):
    """dkimpy's DNS lookup, knowing one TXT record."""
    def lookup(asked: bytes, timeout: int = 5) -> bytes | None:
        return text.encode() if asked.decode().rstrip(".") == name else None
    return lookup


def delivered(app, db, smtp) -> list[bytes]:
    """The outbox delivered through the configured transport to the SMTP server: the bytes
    of each message as it arrived."""
    before = len(smtp.data)
    app.config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=smtp.port)
    assert outbox.deliver_due(db, outbox.transport_from_config(app.config),
                              app.config["MAIL_FROM"], app.config["PUBLIC_URL"])[1] == 0
    return smtp.data[before:]


def test_every_email_is_signed_for_the_from_domain_and_verifies_against_the_record(
        app, client, db, smtp, new_game, published):
    game = new_game()
    api_move(client, game.apis[0], client.get(game.apis[0]).json["legal_moves"][0])
    assert client.post(f"{game.apis[1]}/chat", json={"text": "Привет, good move"}) \
        .status_code == 201
    assert client.post("/api/sign-in", json={"email": "p1@example.org"}).status_code == 202
    sent = delivered(app, db, smtp)
    assert len(sent) >= 5  # two start emails, a turn, a chat, a sign-in link
    lookup = resolver(*published)
    for data in sent:
        assert data.startswith(b"DKIM-Signature: ")
        assert dkim.verify(data, dnsfunc=lookup), data[:400]
        signature = email.message_from_bytes(data, policy=email.policy.default)["DKIM-Signature"]
        tags = dict(re.findall(r"(\w+)=([^;]*)", re.sub(r"\s+", "", str(signature))))
        assert tags["d"] == DOMAIN and tags["s"] == "s2026"
        signed = tags["h"].lower().split(":")
        assert {"from", "to", "subject", "date", "message-id"} <= set(signed)
        if b"\r\nList-Unsubscribe:" in data:  # RFC 8058: one-click only where both are signed
            assert {"list-unsubscribe", "list-unsubscribe-post"} <= set(signed)
    # what a relay or a forger changes, the signature no longer covers
    data = sent[0]
    assert not dkim.verify(re.sub(rb"\r\nSubject: [^\r]*", b"\r\nSubject: Pay now", data, count=1),
                           dnsfunc=lookup)
    assert not dkim.verify(data.replace(b"\r\n\r\n", b"\r\nReply-To: x@evil.example\r\n\r\n",
                                        1), dnsfunc=lookup)
    assert not dkim.verify(data.replace(b"\r\n\r\n", b"\r\n\r\nPay now at evil.example\r\n", 1),
                           dnsfunc=lookup)


def test_another_key_does_not_verify_and_unset_dkim_signs_nothing(app, db, smtp, new_game,
                                                                  published, tmp_path):
    name, _text = published
    other = tmp_path / "other.pem"
    other.write_bytes(signing.new_key())
    new_game()
    (data, *_) = delivered(app, db, smtp)
    assert not dkim.verify(data, dnsfunc=resolver(name, signing.record(other.read_bytes())))
    app.config.update(DKIM_PRIVATE_KEY=None, DKIM_SELECTOR=None)
    new_game()
    assert not any(data.startswith(b"DKIM-Signature") for data in delivered(app, db, smtp))


def test_dkim_settings_that_cannot_sign_stop_the_mail_commands_in_one_line(app, runner,
                                                                           tmp_path):
    app.config.update(DKIM_PRIVATE_KEY=str(tmp_path / "missing.pem"), DKIM_SELECTOR="s1")
    result = runner.invoke(args=["send-mail"])
    assert result.exit_code != 0
    assert "Not starting: DKIM_PRIVATE_KEY:" in result.output and "missing.pem" in result.output
    app.config.update(DKIM_SELECTOR=None)
    result = runner.invoke(args=["send-mail"])
    assert "DKIM needs both DKIM_PRIVATE_KEY" in result.output
    public_only = tmp_path / "public.pem"
    public_only.write_text("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
    app.config.update(DKIM_PRIVATE_KEY=str(public_only), DKIM_SELECTOR="s1")
    assert "is not a readable PEM key" in runner.invoke(args=["send-mail"]).output
