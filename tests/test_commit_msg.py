"""The commit-msg hook `make setup` installs: a subject of at most 72 characters, a blank line, a body."""

import subprocess
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parents[1] / ".githooks" / "commit-msg"


def check(tmp_path, message: str) -> subprocess.CompletedProcess:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message)
    return subprocess.run(["bash", str(HOOK), str(path)], capture_output=True, text=True)


@pytest.mark.parametrize(
    "message",
    [
        "Throttles let a try through when the cache is down\n\nWith Redis stopped, joining answered 500.\n",
        "A" * 72 + "\n\nWhy it was needed.\n",
        "Merge branch 'tooling'\n",
        "Subject\n\nWhy.\n# Please enter the commit message for your changes.\n",
    ],
)
def test_a_well_formed_message_is_accepted(tmp_path, message):
    assert check(tmp_path, message).returncode == 0


@pytest.mark.parametrize(
    ("message", "says"),
    [
        ("A" * 73 + "\n\nWhy.\n", "73 characters"),
        ("Fix the throttle\n", "body that says why"),
        ("Fix the throttle\nwith no blank line\n", "blank line"),
        ("# only a comment\n", "empty"),
    ],
)
def test_a_malformed_message_is_refused_with_a_sentence(tmp_path, message, says):
    result = check(tmp_path, message)
    assert result.returncode == 1 and says in result.stderr
