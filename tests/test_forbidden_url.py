"""A 403 blames credentials only when some were sent.

The realistic case: a URL that is not an MCP endpoint on a real Jupyter server, which forbids every
request without its own token. Connecting there with no credentials says the URL answered 403 and
what that usually means (a wrong URL, not an MCP endpoint, a sign-in needed); connecting with a bearer
header the server refuses still says the credentials lack a permission, naming which were sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mcp_jupyter as mj

from .browser.harness import LabServer, start_jupyter


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    server = start_jupyter(Path(tmp_path_factory.mktemp("jupyter")))
    try:
        yield server
    finally:
        mj.disconnect_all()
        server.stop()


def test_a_403_without_credentials_says_what_the_url_likely_is(jupyter: LabServer, capsys) -> None:
    url = f"{jupyter.url}nope/mcp"
    with pytest.raises(mj.AuthorizationFailed) as info:
        mj.connect("nf", url)
    message = str(info.value)
    assert info.value.status == 403 and info.value.step == "credentials"
    assert f"({url}) answered HTTP 403 (forbidden) while connecting, and no credentials were sent" in message
    for meaning in ("wrong URL", "not an MCP endpoint", "/mcp", "sign-in", "headers={'Authorization'"):
        assert meaning in message, message
    assert "lack a permission" not in message and "refused authorization" not in message
    # the magic of the issue says the same, in one line
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_jupyter")
    capsys.readouterr()  # another test of this worker may have loaded it first: that notice is not ours
    shell.run_line_magic("mcp", f"connect nf {url}")
    printed = capsys.readouterr()
    shown = (printed.out + printed.err).strip()
    assert shown.startswith("error:") and "no credentials were sent" in shown and len(shown.splitlines()) == 1


def test_a_403_to_sent_credentials_still_blames_them(jupyter: LabServer) -> None:
    with pytest.raises(mj.AuthorizationFailed) as info:
        mj.connect("nf", f"{jupyter.url}nope/mcp", headers={"Authorization": "Bearer not-the-token"})
    message = str(info.value)
    assert info.value.status == 403
    assert "refused authorization with HTTP 403" in message, message
    assert "the credentials sent (header Authorization) lack a permission this needs" in message, message
    assert "not-the-token" not in message and "no credentials were sent" not in message
