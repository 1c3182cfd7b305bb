"""Reminders that help: before a clock runs out, a reminder at each of the hours the seat
chose (``preferences.set_deadline_reminders``), once per turn and threshold, also across a
restart of the job process; and the digest sent once until the player's next visit. Set
on the settings page and through the API, written in the seat's language."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from pbem import create_app
from pbem.jobs import scheduler
from pbem.matches import CACHE
from pbem.store import utc

from test_clocks import DAY, HOUR, apis, create, later, outbox, warnings_to
from helpers import path_of

MINUTE = timedelta(minutes=1)
THREE_DAYS = {"mode": "per_move", "days": 3}
RUSSIAN = [{"name": "Аня", "email": "ann@example.org", "language": "ru"},
           {"name": "Bob", "email": "bob@example.org"}]


def reminders_to(app, recipient: str) -> list[dict]:
    """The deadline emails to ``recipient``, in either language."""
    return outbox(app, "WHERE recipient = ? AND kind = 'deadline'", [recipient])


def test_reminders_at_the_hours_chosen_once_each_even_across_a_restart(client, app):
    created = create(client, THREE_DAYS)
    dark, _light = apis(created)
    chosen = client.put(f"{dark}/email", json={"deadline_reminders": [24, 8, 1]})
    assert chosen.status_code == 200
    assert chosen.json == {"emails": "each", "deadline_reminders": [24, 8, 1]}
    assert scheduler.check_clocks(app, later(DAY + 23 * HOUR)) == (0, 0)  # 25 h left
    assert scheduler.check_clocks(app, later(2 * DAY + HOUR)) == (0, 1)  # 23 h left
    assert scheduler.check_clocks(app, later(2 * DAY + 2 * HOUR)) == (0, 0)
    # a new job process on the same database knows what was sent
    CACHE.clear()
    restarted = create_app({**app.config, "TESTING": True})
    assert scheduler.check_clocks(restarted, later(2 * DAY + 3 * HOUR)) == (0, 0)
    assert scheduler.check_clocks(restarted, later(2 * DAY + 17 * HOUR)) == (0, 1)  # 7 h
    assert scheduler.check_clocks(app, later(2 * DAY + 18 * HOUR)) == (0, 0)
    assert scheduler.check_clocks(restarted, later(2 * DAY + 22 * HOUR)) == (0, 0)
    assert scheduler.check_clocks(restarted, later(2 * DAY + 23 * HOUR + 10 * MINUTE)) == (0, 1)
    sent = reminders_to(app, "ann@example.org")
    assert [re.search(r"running out: (\d+) (hours?|minutes)", r["body"]).group(1)
            for r in sent] == ["22", "6", "49"]  # the clock as each was written
    assert len(sent) == 3 and not reminders_to(app, "bob@example.org")


def test_a_job_that_missed_thresholds_sends_only_the_nearest(client, app):
    created = create(client, THREE_DAYS)
    dark, _light = apis(created)
    assert client.put(f"{dark}/email", json={"deadline_reminders": [48, 24, 8]}).status_code \
        == 200
    assert scheduler.check_clocks(app, later(2 * DAY + 20 * HOUR)) == (0, 1)  # 4 h left
    [sent] = reminders_to(app, "ann@example.org")
    assert "3 hours" in sent["body"] or "4 hours" in sent["body"]
    assert scheduler.check_clocks(app, later(2 * DAY + 21 * HOUR)) == (0, 0)


def test_no_reminders_ticked_sends_none_and_the_one_warning_is_the_default(client, app):
    created = create(client, THREE_DAYS)
    dark, light = apis(created)
    assert client.get(f"{dark}/email").json == {"emails": "each", "deadline_reminders": None}
    assert client.put(f"{dark}/email", json={"deadline_reminders": []}).status_code == 200
    assert scheduler.check_clocks(app, later(2 * DAY + 23 * HOUR)) == (0, 0)
    assert client.put(f"{dark}/email", json={"deadline_reminders": None}).status_code == 200
    assert scheduler.check_clocks(app, later(2 * DAY + 23 * HOUR)) == (0, 1)  # the warning
    assert len(warnings_to(app, "ann@example.org")) == 1


def test_the_reminders_durations_and_dates_are_in_the_seats_language(client, app):
    created = create(client, THREE_DAYS, players=RUSSIAN)
    dark, _light = apis(created)
    assert client.put(f"{dark}/email", json={"deadline_reminders": [8]}).status_code == 200
    assert scheduler.check_clocks(app, later(2 * DAY + 17 * HOUR)) == (0, 1)
    [sent] = reminders_to(app, "ann@example.org")
    assert re.search(r"\d+ (час|часа|часов)", sent["body"]), sent["body"]
    assert not re.search(r"\b(hours?|minutes?|left|UTC, )\b|\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b",
                         sent["body"].split("--")[0]), sent["body"]


def test_the_reminder_of_a_long_wait_is_in_the_seats_language_too(client, app):
    create(client, players=RUSSIAN)
    assert scheduler.send_reminders(app, later(49 * HOUR)) == 1
    [sent] = outbox(app, "WHERE recipient = 'ann@example.org' AND kind = 'reminder'")
    assert "ждёт вашего хода" in sent["body"] or "ждет" in sent["body"], sent["body"]
    assert re.search(r"\d+ (час|часа|часов|дня|дней|день)", sent["body"]), sent["body"]
    assert not re.search(r"\b(hours?|days?)\b|\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b",
                         sent["body"].split("--")[0]), sent["body"]


@pytest.mark.one_database  # what is refused, before anything is stored
def test_the_api_refuses_what_is_not_a_choice_and_changes_nothing(client):
    created = create(client, THREE_DAYS)
    dark, _light = apis(created)
    for body in ({"emails": "weekly"}, {"deadline_reminders": [5]},
                 {"deadline_reminders": "24"}, {"deadline_reminders": [True]},
                 {"emails": "digest", "deadline_reminders": [2]}):
        refused = client.put(f"{dark}/email", json=body)
        assert refused.status_code == 400 and refused.json["error"], body
    assert client.get(f"{dark}/email").json == {"emails": "each", "deadline_reminders": None}


def test_the_settings_page_sets_the_reminders_and_the_digest_once(client, app):
    created = create(client, THREE_DAYS)
    dark, _light = apis(created)
    page = path_of(created["seats"][0]["url"]) + "/email"
    field = f"{created['id']}-0"
    shown = client.get(page).get_data(as_text=True)
    assert "Before your time runs out" in shown and "8 hours before" in shown
    saved = client.post(page, data={f"notify-{field}": "once",
                                    f"reminders-notify-{field}": "chosen",
                                    f"hours-notify-{field}": ["24", "1", "7"]})
    assert saved.status_code == 303
    assert client.get(f"{dark}/email").json == {"emails": "once",
                                                 "deadline_reminders": [24, 1]}
    russian = client.get(page, headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "Пока не истекло время" in russian and "за 8 часов" in russian
    assert client.post(page, data={f"reminders-notify-{field}": "warning"}).status_code == 303
    assert client.get(f"{dark}/email").json["deadline_reminders"] is None


def test_the_digest_once_until_the_next_visit(client, app, monkeypatch):
    created = create(client)
    dark, light = apis(created)
    assert client.put(f"{dark}/email", json={"emails": "once"}).status_code == 200
    day = datetime.now(timezone.utc).replace(hour=12, minute=0, second=0, microsecond=0)
    digests = "WHERE recipient = 'ann@example.org' AND kind = 'digest'"
    assert scheduler.send_digests(app, day + DAY) == 1
    assert scheduler.send_digests(app, day + 2 * DAY) == 0  # not visited since
    assert len(outbox(app, digests)) == 1
    monkeypatch.setattr(utc, "now", lambda: day + 2 * DAY + HOUR)
    client.get(path_of(created["seats"][0]["url"]))  # the game's page: a visit
    monkeypatch.undo()
    assert scheduler.send_digests(app, day + 3 * DAY) == 1
    CACHE.clear()
    restarted = create_app({**app.config, "TESTING": True})
    assert scheduler.send_digests(restarted, day + 4 * DAY) == 0
    assert len(outbox(app, digests)) == 2
