"""gunicorn settings for running the server in production: from the project folder,
``.venv/bin/gunicorn`` (gunicorn reads this file from the working folder), or
``gunicorn -c /path/to/gunicorn.conf.py``. Settings of the app itself (PUBLIC_URL, SMTP,
the database) come from ``instance/config.py`` or ``PBEM_*`` variables, as for every
command; the README's "Running in production" has the whole setup."""
import os
import shutil
import tempfile

# /metrics counts the requests of every worker (prometheus-client's multiprocess mode): each
# worker writes its counts into this folder, made anew for each start of gunicorn, which
# must be named before prometheus-client is first imported (with pbem, below).
METRICS_FOLDER = None  # the folder made here, removed when gunicorn stops
if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
    METRICS_FOLDER = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(
        prefix="pbem-metrics-")

from pbem import instance_folder  # noqa: E402 - once the folder is named

wsgi_app = "pbem:create_app()"
bind = os.environ.get("PBEM_BIND", "127.0.0.1:8000")  # behind a reverse proxy doing TLS
workers = int(os.environ.get("PBEM_WORKERS", "4"))
# Threads in each worker (gthread): a program listening to a player's events holds a thread
# for up to EVENTS_STREAM_SECONDS, not a whole worker, and the worker's other threads go on
# answering moves (EVENTS_LISTENERS, below the threads, keeps some for them; the figures of
# docs/benchmarks.md are for these numbers on two cores).
worker_class = "gthread"
threads = int(os.environ.get("PBEM_THREADS", "128"))
accesslog = "-"
logger_class = "pbem.production.RedactingLogger"  # no secret link in any log line
forwarded_allow_ips = os.environ.get("PBEM_FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicornc's control socket: each installation its own (gunicorn's default, one per user,
# is taken over by the last instance started, and removed when any of them stops)
control_socket = os.path.join(instance_folder(), "gunicorn.ctl")


def on_starting(server):
    from pbem.production import prepare

    try:
        prepare()
    except SystemExit:  # not starting (no PUBLIC_URL): gunicorn will not call on_exit
        on_exit(server)
        raise


def on_exit(server):
    if METRICS_FOLDER:
        shutil.rmtree(METRICS_FOLDER, ignore_errors=True)
