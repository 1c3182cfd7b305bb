"""Operator commands: ``flask --app pbem <command>``."""
from __future__ import annotations

import json
import os
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import with_appcontext
from werkzeug.serving import run_simple

from . import links, players, roles
from .mail import outbox, signing
from .jobs import scheduler
from .store import backup
from .store.db import connect, copy, shown, upgrade
from .web.database import get_db
from .mail.listener import mail_listener_command, receive_mail_command


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create the database, or apply the migrations it lacks (the server does it too,
    before its workers start)."""
    names = upgrade(current_app.config["DATABASE"])
    if names:
        click.echo(f"Applied {', '.join(names)}.")
    click.echo(f"Initialised {shown(current_app.config['DATABASE'])}")




@click.command("copy-db")
@with_appcontext
@click.option("--to", "to", required=True, metavar="DATABASE",
              help="Where to: a postgresql:// URL (or an SQLite file), with no games yet.")
def copy_db_command(to: str) -> None:
    """Copy this installation's database (DATABASE), every game, event, link, seat, email and
    setting, to another: e.g. from SQLite to PostgreSQL. Stop the server and its jobs
    first, then set DATABASE to the new one."""
    try:
        target = connect(to)
    except Exception as error:  # noqa: BLE001 - sqlite3's or psycopg's: said in one line
        raise click.ClickException(f"Cannot open {shown(to)}: {error}") from None
    try:
        copied = copy(get_db(), target)
    finally:
        target.close()
    for table, rows in copied.items():
        click.echo(f"{table}: {rows} rows")
    click.echo(f"Copied {shown(current_app.config['DATABASE'])} to {shown(to)}.")


@click.command("serve")
@with_appcontext
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True)
def serve_command(host: str, port: int) -> None:
    """Run the web server and the scheduler in one process (the embedded default)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # a LocalProxy
    upgrade(app.config["DATABASE"])
    if not app.config["PUBLIC_URL"]:
        # The embedded default: links in emails point at this server on this machine.
        local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        app.config["PUBLIC_URL"] = links.public_url(f"http://{local}:{port}")
        app.config["TRUSTED_HOSTS"] = sorted({*app.config["TRUSTED_HOSTS"], local})
        if local != host:
            click.echo(f"Links in emails point at {app.config['PUBLIC_URL']}: set PUBLIC_URL "
                       f"to the address other machines reach this one at.")
    jobs = scheduler.start_background(app)
    click.echo(f"Scheduler: {'running' if jobs else 'already running in another process'}.")
    if not app.config.get("SMTP_HOST"):
        app.config["LOCAL_MAILBOX"] = True
        click.echo(f"No SMTP configured: emails are written to {app.config['MAIL_FOLDER']} "
                   f"and listed at {app.config['PUBLIC_URL']}/mail")
    # app.run() would do nothing under the flask command; serve the app directly
    run_simple(host, port, app, use_reloader=False, threaded=True)


def _require_public_url() -> None:
    """Refuse to go on, in one line, where mail would go out without PUBLIC_URL, or its
    DKIM settings cannot sign it."""
    if not current_app.config["PUBLIC_URL"]:
        raise click.ClickException(f"Not starting: {outbox.PUBLIC_URL_MISSING}")
    try:
        signing.signer_from_config(current_app.config)
    except signing.BadSettings as error:
        raise click.ClickException(f"Not starting: {error}") from error


@click.command("dkim-key")
@with_appcontext
@click.option("--selector", help="The name the key is published under (DKIM_SELECTOR, "
              "else pbem).")
def dkim_key_command(selector: str | None) -> None:
    """Make the key that signs the server's emails (DKIM), once, and print the DNS record
    that publishes it."""
    config = current_app.config
    selector = selector or config["DKIM_SELECTOR"] or "pbem"
    path = Path(config["DKIM_PRIVATE_KEY"] or Path(current_app.instance_path) / "dkim.pem")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # only the server's user may read it: whoever has it can sign as the domain
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out:
            out.write(signing.new_key())
        click.echo(f"Made a new key: {path}")
    else:
        click.echo(f"The key: {path} (kept as it is)")
    signer = signing.Signer(selector, signing.sender_domain(config["MAIL_FROM"]),
                            signing.key_of(path))
    click.echo(f"\nSet (if not already): DKIM_PRIVATE_KEY={path} DKIM_SELECTOR={selector}")
    click.echo(f"\nPublish this TXT record in the DNS of {signer.domain}:\n\n"
               f"{signer.name}. 3600 IN TXT "
               f"{signing.zone_strings(signing.record(signer.key))}\n\n"
               f"(A DNS provider's form takes the name {signer.name} and the text "
               f"between the quotes, joined.)")


@click.command("send-mail")
@with_appcontext
def send_mail_command() -> None:
    """Deliver the queued emails, webhook posts and push messages that are due, once."""
    _require_public_url()
    # the real app, not the proxy of this thread's context: the posts go in another thread
    sent, failed = scheduler.deliver_mail(current_app._get_current_object())  # type: ignore[attr-defined]
    click.echo(f"{sent} sent, {failed} failed")


@click.command("run-scheduler")
@with_appcontext
def run_scheduler_command() -> None:
    """Run the background jobs in this process, until stopped (for multi-process servers)."""
    _require_public_url()
    upgrade(current_app.config["DATABASE"])  # the job process may start before the server
    click.echo("Scheduler running; stop it with Ctrl-C.")
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # a LocalProxy
    scheduler.run_forever(app)


@click.command("play-bots")
@with_appcontext
def play_bots_command() -> None:
    """Play the computer players' moves that are due, once (the job does it every few
    seconds)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # a LocalProxy
    played = scheduler.play_bots(app)
    click.echo(f"{played} computer move{'' if played == 1 else 's'} played")


@click.command("list-games")
@with_appcontext
@click.option("--status", type=click.Choice(["active", "finished"]), help="Only these games.")
def list_games_command(status: str | None) -> None:
    """List the games: id, game, status, ply, whose turn, players."""
    where, params = ("WHERE status = ?", [status]) if status else ("", [])
    for row in get_db().query(f"SELECT * FROM games {where} ORDER BY created_at", params):
        names = ", ".join(r["name"] for r in get_db().query(
            "SELECT name FROM seats WHERE game_id = ? ORDER BY seat", [row["id"]]))
        turn = json.loads(row["to_move"])
        click.echo(f"{row['id']}  {row['game']:<16} {row['status']:<8} ply {row['ply']:<4} "
                   f"to move {turn}  {names}")


@click.command("backup")
@with_appcontext
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def backup_command(path: Path) -> None:
    """Write a consistent copy of the whole database to the new SQLite file PATH, while
    the server runs (SQLite's online backup; of PostgreSQL, every row from one snapshot)."""
    backup.backup(current_app.config["DATABASE"], path)
    click.echo(f"Backed up {shown(current_app.config['DATABASE'])} to {path}.")


@click.command("restore")
@with_appcontext
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def restore_command(path: Path) -> None:
    """Load the backup PATH into this installation's database, which must hold no game yet
    (a new one: stop the server and the job process first)."""
    for table, rows in backup.restore(path, current_app.config["DATABASE"]).items():
        click.echo(f"{table}: {rows} rows")
    click.echo(f"Restored {path} into {shown(current_app.config['DATABASE'])}.")


def role_commands(name: str, role: str) -> click.Group:
    """``flask --app pbem <name> add|remove|list``: the players who have ``role``."""

    @click.group(name, help=f"The players who are {name} (by handle).")
    def group() -> None:
        pass

    def player(handle: str) -> players.Player:
        found = players.by_handle(get_db(), handle)
        if found is None:
            raise click.ClickException(f"There is no player {handle} (they sign in first).")
        return found

    @group.command("add")
    @with_appcontext
    @click.argument("handle")
    def add(handle: str) -> None:
        granted = roles.grant(get_db(), player(handle), role)
        click.echo(f"{handle} {'is now' if granted else 'was already'} one of the {name}.")

    @group.command("remove")
    @with_appcontext
    @click.argument("handle")
    def remove(handle: str) -> None:
        revoked = roles.revoke(get_db(), player(handle), role)
        click.echo(f"{handle} {'is no longer' if revoked else 'was not'} one of the {name}.")

    @group.command("list")
    @with_appcontext
    def list_() -> None:
        for holder in roles.holders(get_db(), role):
            click.echo(holder.handle)

    return group


def register(app: Flask) -> None:
    for command in (init_db_command, copy_db_command, serve_command, send_mail_command,
                    run_scheduler_command, play_bots_command, list_games_command,
                    receive_mail_command, mail_listener_command, backup_command,
                    restore_command, role_commands("operators", "operator"),
                    role_commands("moderators", "moderator"),
                    dkim_key_command):
        app.cli.add_command(command)
