"""Names and sentences as literal Markdown, for the Markdown export and the session recap."""

import re

# Markdown punctuation that can start markup anywhere in a line: emphasis, code, links and images, raw HTML,
# entities, GFM strikethrough and tables, headings. A backslash makes each one literal (CommonMark).
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]<>&~|#!])")
# What starts a block when it opens a line (here, a list item's text): a list marker ("- ", "+ ", "1. ", "1) ") or
# a heading underline.
_MARKDOWN_LINE_START = re.compile(r"^(\d*)([-+=.)])")


def literal(text: str) -> str:
    """`text` as literal Markdown: on one line, with every character that could start markup escaped."""
    text = " ".join(text.split())  # a name's line break or leading spaces would start a new block
    text = _MARKDOWN_PUNCTUATION.sub(r"\\\1", text)
    return _MARKDOWN_LINE_START.sub(r"\1\\\2", text)
