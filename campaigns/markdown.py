"""Notes and descriptions are written in Markdown: CommonMark through markdown-it-py, with raw HTML left as text,
then the HTML cleaned by nh3 (Ammonia) against an allow-list, so no script, event handler, style or `javascript:`
link ever reaches a page (the Content-Security-Policy would refuse them anyway; this keeps them out of the markup).
"""

from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_PARSER = MarkdownIt("commonmark", {"html": False})

TAGS = {
    "p", "br", "hr", "em", "strong", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h1", "h2", "h3", "h4", "h5", "h6",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}


def render(text: str) -> SafeString:
    """The Markdown `text` as safe HTML ("" for none)."""
    if not text or not text.strip():
        return mark_safe("")
    html = _PARSER.render(text)
    clean = nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return mark_safe(clean)  # noqa: S308  (cleaned by nh3 against the allow-list above)
