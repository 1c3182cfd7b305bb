"""The engine's words for players (``engine.Text``) in the language in force: the catalog's
translation of each template, its fields translated alike. The boards say the engine's
results in their previews; the rest of the site reads this through ``languages``."""
from __future__ import annotations

from typing import Any

from engine.core import Text, listed
from flask_babel import gettext


def translated(text: Any) -> Any:
    """``text`` in the language in force if it is ``engine.Text`` (its template looked up in
    the catalog, its fields translated alike); anything else as it is."""
    if not isinstance(text, Text):
        return text
    return gettext(text.template, **{
        name: listed(tuple(map(translated, value))) if isinstance(value, tuple)
        else translated(value) for name, value in text.fields.items()})
