"""Every fold on the live table keeps what its viewer chose across live updates.

The table is drawn afresh on every update (the answer to an action, a frame over the socket); a <details> the
viewer opened would close under their thumb half-way through filling it in. static/js/connection.js puts the
viewer's choice back on the incoming copy for any fold with an id and `data-keep-open`
(tests/e2e/test_gm_inline.py shows it on a phone and the GM's page), so every fold the table draws needs both.
"""

import re
from pathlib import Path

from django.conf import settings

TABLE_TEMPLATES = Path(settings.BASE_DIR) / "templates" / "combat"
FOLD = re.compile(r"<details\b[^>]*>")


def folds_without_keep_open(root: Path = TABLE_TEMPLATES) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.html")):
        text = re.sub(r"{% comment %}.*?{% endcomment %}", "", path.read_text(), flags=re.S)
        ids = re.findall(r'\bid="([^"]+)"', text)
        for tag in FOLD.findall(text):
            fold_id = re.search(r'\bid="([^"]+)"', tag)
            if "data-keep-open" not in tag or not fold_id:
                found.append(f"{path.relative_to(root)}: {tag}")
            elif ids.count(fold_id.group(1)) > 1:  # the choice is kept by id: it must name this fold alone
                found.append(f"{path.relative_to(root)}: {tag} shares its id")
    return found


def test_every_fold_on_the_live_table_keeps_its_viewers_choice():
    assert folds_without_keep_open() == []


def test_the_check_finds_a_fold_that_would_close_on_the_next_update(tmp_path):
    (tmp_path / "x.html").write_text(
        '<details class="spend"><summary>Spend</summary></details>'
        '<details id="kept" data-keep-open><summary>Kept</summary></details>'
        '<details id="twice" data-keep-open><summary>Spend</summary><select id="twice"></select></details>'
    )
    assert folds_without_keep_open(tmp_path) == [
        'x.html: <details class="spend">',
        'x.html: <details id="twice" data-keep-open> shares its id',
    ]
