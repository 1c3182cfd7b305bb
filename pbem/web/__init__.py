"""The ways in over HTTP: the play pages, the JSON API, the public pages, feeds and the email
settings pages, one blueprint each."""
