"""Notes and descriptions render Markdown, sanitised: ordinary Markdown becomes HTML, while no script, event
handler or `javascript:` link ever reaches the page, whether typed as raw HTML or as Markdown."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.urls import reverse

from campaigns import sessions
from campaigns.markdown import render
from campaigns.models import Character
from tests.clock import EPOCH, clock  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

ORDINARY = "Meet at *the relay*, **armed**.\n\n- bring dice\n- bring snacks\n\n[Map](https://example.com/map)"

ATTACKS = [
    "<script>alert('x')</script>",
    "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>",
    '<img src="x" onerror="alert(1)">',
    '<a href="#" onclick="alert(1)">click</a>',
    '<div onmouseover="alert(1)">hover</div>',
    '<svg onload="alert(1)"></svg>',
    '<a href="javascript:alert(1)">raw link</a>',
    "[md link](javascript:alert(1))",
    "[mixed case](JaVaScRiPt:alert(1))",
    "[entity](&#106;avascript:alert(1))",
    "[spaced](java\tscript:alert(1))",
    "<javascript:alert(1)>",
    "![image](javascript:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<iframe src="javascript:alert(1)"></iframe>',
    "<style>body{display:none}</style>",
    '<p style="color:red">styled</p>',
]


class Elements(HTMLParser):
    """Every element the browser would build from the markup, with its attributes."""

    def __init__(self, markup: str):
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, {k.lower(): v or "" for k, v in attrs}))


def assert_harmless(markup: str) -> None:
    for tag, attrs in Elements(markup).found:
        assert tag not in {"script", "iframe", "style", "svg", "img", "object", "embed"}, markup
        assert not any(name.startswith("on") for name in attrs), markup
        assert "style" not in attrs, markup
        for name in ("href", "src"):
            if name in attrs:
                scheme = attrs[name].replace("\t", "").replace(" ", "").lower()
                assert scheme.startswith(("http:", "https:", "mailto:", "#", "/")), markup


def test_ordinary_markdown_renders_emphasis_lists_and_links():
    html = str(render(ORDINARY))
    assert "<em>the relay</em>" in html and "<strong>armed</strong>" in html
    assert "<ul>" in html and "<li>bring dice</li>" in html and "<li>bring snacks</li>" in html
    assert '<a href="https://example.com/map" rel="noopener noreferrer nofollow">Map</a>' in html


@pytest.mark.parametrize("attack", ATTACKS)
def test_no_script_handler_or_javascript_link_survives(attack):
    html = str(render(f"Before\n\n{attack}\n\nAfter *still Markdown*"))
    assert_harmless(html)
    assert "<em>still Markdown</em>" in html  # the rest of the note still renders


def test_empty_text_renders_nothing():
    assert render("") == "" and render("   \n") == ""


def test_the_campaign_page_renders_the_description_and_gm_notes(client, gm, campaign):
    campaign.description = "A *drifting* station.\n\n<script>alert(1)</script>"
    campaign.gm_notes = "- the relay is a **trap**\n- [plans](javascript:alert(1))"
    campaign.save()
    client.force_login(gm)
    page = client.get(reverse("campaign", args=[campaign.pk])).content.decode()
    assert "<em>drifting</em>" in page and "<strong>trap</strong>" in page and "<li>" in page
    assert "<script>alert(1)" not in page and 'href="javascript:' not in page
    assert not [attrs for _, attrs in Elements(page).found if attrs.get("href", "").startswith("javascript")]
    notes = client.get(reverse("gm_notes", args=[campaign.pk]), headers={"HX-Request": "true"}).content.decode()
    assert "<strong>trap</strong>" in notes


def test_the_session_page_renders_its_notes(client, player, campaign, gm, clock):
    game = sessions.create_session(
        campaign,
        gm,
        title="The relay",
        starts_at=EPOCH,
        duration_minutes=180,
        notes='Bring **dice**.\n\n<img src=x onerror="alert(1)">',
    )
    client.force_login(player)
    page = client.get(reverse("session", args=[campaign.pk, game.pk])).content.decode()
    assert "<strong>dice</strong>" in page
    assert not [tag for tag, _ in Elements(page).found if tag == "img"]
    assert not [attrs for _, attrs in Elements(page).found if "onerror" in attrs]


def test_an_npcs_gm_notes_render_on_its_page(client, gm, campaign, npc):
    Character.objects.filter(pk=npc.pk).update(gm_notes="Flees when **Stunned**")
    client.force_login(gm)
    page = client.get(reverse("character", args=[campaign.pk, npc.pk])).content.decode()
    assert "Flees when <strong>Stunned</strong>" in page
