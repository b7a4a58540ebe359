"""Signing in from a real kernel while a sync ``mj.connect`` blocks the cell: the card is displayed, and the
stdin prompt takes the pasted redirect address (the fallback when the browser cannot come back)."""

from __future__ import annotations

import json
import queue
import re
import time
from html import unescape
from typing import Any

import pytest

from mcp_jupyter.demo.oauth_server import start

from .oauth_agent import sign_in

pytestmark = pytest.mark.kernel


@pytest.fixture
def kernel(tmp_path: Any) -> Any:
    import os

    from jupyter_client.manager import start_new_kernel

    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"))
    km, kc = start_new_kernel(kernel_name="python3", env=env, cwd=str(tmp_path))
    yield kc
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def _reply_to(kernel: Any, msg_id: str, timeout: float = 60) -> dict[str, Any]:
    """The shell reply to one request. Replies to earlier requests are skipped: on a loaded machine
    jupyter_client's wait_for_ready sends kernel_info again after a second without an answer, and the
    late answer to the first one is still waiting on the shell channel."""
    deadline = time.monotonic() + timeout
    while True:
        reply = kernel.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def test_blocked_connect_shows_the_card_and_takes_a_pasted_address(kernel: Any) -> None:
    with start() as srv:
        code = (
            "import mcp_jupyter as mj\n"
            f"conn = mj.connect('demo', {srv.urls['mcp']!r}, auth=mj.OAuth(redirect='paste', store=False))\n"
            "print(conn.call('whoami').structured)\n"
            "conn.close()"
        )
        # As JupyterLab sends it: a cell id, stdin allowed (so the frontend renders widgets and answers prompts).
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": True,
        }
        request = kernel.session.msg("execute_request", content, metadata={"cellId": "cell-1"})
        kernel.shell_channel.send(request)
        msg_id = request["header"]["msg_id"]
        link = None
        prompt = None
        deadline = time.monotonic() + 60
        while (link is None or prompt is None) and time.monotonic() < deadline:
            try:
                msg = kernel.get_iopub_msg(timeout=0.2)
                if msg["msg_type"] in ("comm_open", "comm_msg"):
                    text = json.dumps(msg["content"].get("data", {}))
                    found = re.search(r"class='mcp-signin-link' href='([^']+)'", text.replace('\\"', '"'))
                    if found:
                        link = unescape(found.group(1))
            except queue.Empty:
                pass
            try:
                prompt = kernel.get_stdin_msg(timeout=0.05)
            except queue.Empty:
                pass
        assert link is not None, "no sign-in card with a link was displayed"
        assert prompt is not None and "paste the address" in prompt["content"]["prompt"]
        kernel.input(sign_in(link, "demo", "demo").redirect)
        reply = _reply_to(kernel, msg_id)
        assert reply["content"]["status"] == "ok", reply["content"]
        outputs = []
        while True:
            try:
                msg = kernel.get_iopub_msg(timeout=2)
            except queue.Empty:
                break
            if msg["msg_type"] == "stream":
                outputs.append(msg["content"]["text"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        assert "'subject': 'demo'" in "".join(outputs)


def test_cancel_and_paste_from_jupyterlab_while_the_cell_blocks(
    venv_python_kernel: str, tmp_path: Any
) -> None:
    """JupyterLab's notification answers over the channel (a kernel subshell) while a sync connect blocks."""
    import os

    from jupyter_client.manager import start_new_kernel

    from .test_lab_channel import LabFrontend

    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"), IPYTHONDIR=str(tmp_path / "ipython"))
    km, kc = start_new_kernel(kernel_name=venv_python_kernel, cwd=str(tmp_path), env=env)
    try:
        lab = LabFrontend(kc)
        lab.run("import mcp_jupyter as mj")
        lab.open_channel()
        with start() as srv:
            connect = f"mj.connect('demo', {srv.urls['mcp']!r}, auth=mj.OAuth(redirect='paste', store=False))"

            # Cancel: the blocked cell ends with the sign-in's error.
            mark = len(lab.received)
            cell = lab.execute(connect)
            signin = lab.message("auth.signin", lambda d: d.get("type") == "auth.signin", since=mark)
            assert signin["blocked"] is True and signin["host"] == srv.urls["issuer"].split("//")[1]
            lab.send({"type": "auth.cancel", "id": signin["id"]})
            lab.wait_for("the cancelled cell to finish", lambda: cell in lab.finished)
            lab.message(
                "auth.done", lambda d: d.get("type") == "auth.done" and d["outcome"] == "stopped", since=mark
            )

            # Paste: a wrong address is refused with a reason, the right one finishes the cell.
            mark = len(lab.received)
            cell = lab.execute(f"conn = {connect}\nprint(conn.call('whoami').structured)")
            signin = lab.message("auth.signin", lambda d: d.get("type") == "auth.signin", since=mark)
            lab.send(
                {"type": "auth.paste", "id": signin["id"], "url": "http://127.0.0.1:9/callback?nothing=1"}
            )
            error = lab.message("auth.paste.error", lambda d: d.get("type") == "auth.paste.error", since=mark)
            assert "not the redirect URL" in error["message"]
            lab.send({"type": "auth.paste", "id": signin["id"], "url": sign_in(signin["url"]).redirect})
            lab.wait_for("the signed-in cell to finish", lambda: cell in lab.finished)
            assert "'subject': 'demo'" in "".join(lab.outputs[cell])
            lab.run("conn.close()")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
