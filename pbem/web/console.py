"""Operating the site over HTTP: ``/healthz`` for a load balancer and a monitor,
``/metrics`` for Prometheus, and the console, a page for the site's operators.

Every figure but one is read from the database when asked (``pbem/monitoring.py``,
``outbox.backlog``), so it is the same whichever process or machine answers: the games,
the moves and the deliveries are counted by the database as they are written, and the job
process notes each run of its jobs. The one figure of the web processes themselves is the
count of requests by status: under gunicorn (``gunicorn.conf.py``), each worker counts its
own in a file of ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode) and
whichever worker is scraped adds them all up; elsewhere (``serve``) the one process counts.
On several machines each machine's ``/metrics`` counts its own requests.

The console shows its sections to the players who hold a role that a section is for
(``SECTIONS``): the site's health and figures, the failed deliveries and the addresses
that bounce (no email goes to them), for operators; the queue of open reports, for
operators and moderators (who handle them on the moderation page).
"""
from __future__ import annotations

import hmac
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request
from flask_babel import gettext, lazy_gettext
from prometheus_client import CollectorRegistry, Counter, generate_latest, multiprocess
from prometheus_client.core import (CounterMetricFamily, GaugeMetricFamily, Metric,
                                    SummaryMetricFamily)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from .. import moderation, monitoring, roles
from ..mail import bounces, outbox
from ..store import utc
from . import browser
from .database import get_db

bp = Blueprint("console", __name__)

# Not registered with prometheus-client's default registry: each scrape gathers its own.
REQUESTS = Counter("pbem_http_requests", "HTTP requests answered, by status.", ["status"],
                   registry=None)


@bp.after_app_request
def _count(response: Response) -> Response:
    REQUESTS.labels(str(response.status_code)).inc()
    return response


def _requests_collector() -> Collector:
    """The requests counted by every worker of this machine (gunicorn), or by this process."""
    if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
        workers = CollectorRegistry()
        multiprocess.MultiProcessCollector(workers)
        return workers
    return REQUESTS


# -- /healthz --------------------------------------------------------------------------------

@bp.get("/healthz")
def healthz():
    """Whether the database answers, whether the job process keeps up, and what the outbox
    has waiting: 503 "failing" when the database cannot be reached. No address, no secret."""
    try:
        db = get_db()
        jobs = monitoring.Jobs.of(monitoring.job_runs(db), utc.now())
        lanes = outbox.backlog(db)
    except Exception as error:  # noqa: BLE001 - whatever keeps the database from answering
        current_app.logger.warning("healthz: the database cannot be reached (%s: %s)",
                                   type(error).__name__, error)
        return jsonify(status="failing", database="unreachable"), 503
    return jsonify(status="ok", database="ok",
                   jobs={"last_run": jobs.last_run and utc.iso(jobs.last_run),
                         "late": jobs.late},
                   outbox={"due": sum(lane.due for lane in lanes.values()),
                           "oldest_due_seconds": max(lane.oldest_due_seconds
                                                     for lane in lanes.values())})


# -- /metrics --------------------------------------------------------------------------------

@bp.get("/metrics")
def metrics():
    """Prometheus's text format, for ``Authorization: Bearer <METRICS_TOKEN>`` alone: no
    such page for anyone else, nor while METRICS_TOKEN is not set."""
    token = current_app.config["METRICS_TOKEN"]
    sent = request.headers.get("Authorization", "").encode()
    if not token or not hmac.compare_digest(sent, f"Bearer {token}".encode()):
        abort(404, gettext("There is no such page."))
    registry = CollectorRegistry()
    registry.register(_requests_collector())
    registry.register(_Figures())
    return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)


class _Figures(Collector):
    """The database's figures, read at each scrape."""

    def collect(self) -> Iterator[Metric]:
        db, now = get_db(), utc.now()
        counts = monitoring.counts(db)
        for status in ("active", "waiting"):
            yield GaugeMetricFamily(f"pbem_games_{status}", f"Games {status}.",
                                    value=counts.games.get(status, 0))
        yield CounterMetricFamily("pbem_games_finished", "Games finished.",
                                  value=counts.games.get("finished", 0))
        yield CounterMetricFamily("pbem_moves", "Moves recorded.", value=counts.moves)
        deliveries = CounterMetricFamily(
            "pbem_deliveries", "Attempts to deliver emails, webhook posts and push messages, "
            "by outcome: sent, deferred (tried again later), failed (given up).",
            labels=["channel", "outcome"])
        for (channel, outcome), count in counts.deliveries.items():
            deliveries.add_metric([channel, outcome], count)
        yield deliveries
        lanes = outbox.backlog(db)
        yield GaugeMetricFamily("pbem_outbox_due", "Messages due and not yet sent.",
                                value=sum(lane.due for lane in lanes.values()))
        yield GaugeMetricFamily("pbem_outbox_oldest_due_seconds",
                                "How long the message due longest has waited.",
                                value=max(lane.oldest_due_seconds for lane in lanes.values()))
        by_lane = GaugeMetricFamily("pbem_outbox_lane_due", "Messages due, by lane.",
                                    labels=["lane"])
        for name, lane in lanes.items():
            by_lane.add_metric([name], lane.due)
        yield by_lane
        yield from _job_metrics(monitoring.job_runs(db), now)


def _job_metrics(runs: list[monitoring.JobRuns], now) -> Iterator[Metric]:
    took = SummaryMetricFamily("pbem_job_run_seconds", "The background jobs' runs.",
                               labels=["job"])
    failures = CounterMetricFamily("pbem_job_failures", "Runs that failed.", labels=["job"])
    last = GaugeMetricFamily("pbem_job_last_run_seconds", "How long the last run took.",
                             labels=["job"])
    ended = GaugeMetricFamily("pbem_job_last_run_timestamp_seconds", "When the last run ended.",
                              labels=["job"])
    for run in runs:
        took.add_metric([run.job], run.runs, run.seconds)
        failures.add_metric([run.job], run.failures)
        last.add_metric([run.job], run.last_seconds)
        ended.add_metric([run.job], run.last_ended_at.timestamp())
    yield from (took, failures, last, ended)
    yield GaugeMetricFamily("pbem_jobs_late", "1 while the job process is late.",
                            value=int(monitoring.Jobs.of(runs, now).late))


# -- the console -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Section:
    """A part of the console: its template (``templates/console/<name>.html``), the roles
    that see it, and what it shows (the template's names)."""
    name: str
    title: Any  # lazy_gettext
    roles: frozenset[str]
    shows: Callable[[], dict[str, Any]]


def _health() -> dict[str, Any]:
    db, now = get_db(), utc.now()
    runs = monitoring.job_runs(db)
    return {"now": now, "runs": runs, "jobs": monitoring.Jobs.of(runs, now),
            "lanes": outbox.backlog(db), "counts": monitoring.counts(db),
            "requests": sorted((sample.labels["status"], int(sample.value))
                               for metric in _requests_collector().collect()
                               for sample in metric.samples
                               if sample.name == "pbem_http_requests_total")}


def _failures() -> dict[str, Any]:
    return {"failures": outbox.recent_failures(get_db())}


def _bouncing() -> dict[str, Any]:
    return {"bouncing": bounces.bouncing(get_db())}


def _reports() -> dict[str, Any]:
    return {"reports": moderation.open_reports(get_db())}


# In the order shown.
SECTIONS = [
    Section("health", lazy_gettext("Health"), frozenset({"operator"}), _health),
    Section("failures", lazy_gettext("Failed deliveries"), frozenset({"operator"}), _failures),
    Section("bouncing", lazy_gettext("Addresses that bounce"), frozenset({"operator"}),
            _bouncing),
    Section("reports", lazy_gettext("Reports"), frozenset({"operator", "moderator"}),
            _reports),
]


@bp.get("/console")
def console():
    """The sections of the console that the signed-in player's roles open; 403 for anyone
    whose roles open none."""
    player = browser.current_player(get_db())
    held = roles.of(get_db(), player)
    shown = [section for section in SECTIONS if section.roles & held]
    if not shown:
        abort(403, gettext("The console is for the site's operators: sign in as one.")
              if player is None else gettext("The console is for the site's operators."))
    return render_template("console.html", player=player,
                           sections=[(section, section.shows()) for section in shown])
