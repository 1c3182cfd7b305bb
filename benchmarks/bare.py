"""A bare Flask page, the limit a page of the app is measured against under the same
server (``./dev bench``): gunicorn with the same workers serving ``bare:app``."""
from flask import Flask

app = Flask(__name__)


@app.get("/")
def page():
    return "<!doctype html><title>Bare</title><p>A bare Flask page."
