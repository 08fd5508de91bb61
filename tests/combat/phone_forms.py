"""Read a rendered phone fragment the way the browser would submit it: each form's class, the values it sends as
it stands (hidden inputs, text inputs, each select's selected option or else its first enabled one), every
select's options, and its buttons' words; plus the page's text outside the tags."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser


@dataclass
class Form:
    classes: tuple[str, ...]
    sends: dict[str, str] = field(default_factory=dict)
    options: dict[str, list[str]] = field(default_factory=dict)  # select name -> option values, in order
    buttons: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: str | None = None
        self._chosen: str | None = None  # the select's selected option, or its first enabled one
        self._picked = False
        self._button: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self._form = Form(classes=tuple((a.get("class") or "").split()))
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag == "input" and a.get("name") and a.get("type") not in ("checkbox", "radio"):
            self._form.sends[a["name"]] = a.get("value") or ""
        elif tag == "select":
            self._select, self._chosen, self._picked = a.get("name"), None, False
            self._form.options[self._select] = []
        elif tag == "option" and self._select:
            value = a.get("value") or ""
            self._form.options[self._select].append(value)
            if "selected" in a and not self._picked:
                self._chosen, self._picked = value, True
            elif self._chosen is None and "disabled" not in a:
                self._chosen = value
        elif tag == "button":
            self._button = []

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "select" and self._form is not None and self._select:
            self._form.sends[self._select] = self._chosen or ""
            self._select = None
        elif tag == "button" and self._button is not None and self._form is not None:
            self._form.buttons.append(" ".join("".join(self._button).split()))
            self._button = None

    def handle_data(self, data):
        if self._button is not None:
            self._button.append(data)


def forms(html: str) -> list[Form]:
    reader = _Reader()
    reader.feed(html)
    return reader.forms


def form_with(html: str, css_class: str) -> Form | None:
    """The first form with `css_class`, or None."""
    return next((f for f in forms(html) if css_class in f.classes), None)


def buttons(html: str) -> list[str]:
    return [b for f in forms(html) for b in f.buttons]


def text(html: str) -> str:
    """The fragment's words, tags dropped and entities read, spaces squeezed."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def form_sending(html: str, command: str) -> Form | None:
    """The first form that sends `command`, or None."""
    return next((f for f in forms(html) if f.sends.get("command") == command), None)
