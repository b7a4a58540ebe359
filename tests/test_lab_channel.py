"""The kernel side of the JupyterLab channel, driven as JupyterLab 4.6 drives it: a real ipykernel,
a subshell created on the control channel, and comm_open / comm_msg on the shell channel with
``header.subshell_id`` (``commsOverSubshells: perCommTarget``), against the bundled demo server.

What this proves: the snapshot lists a connection's tools after ``mj.connect``, follows a server-side
list change and a server's death; consent requests raised while the main thread is blocked (a sync
``conn.call``, a ``%%mcp call`` cell) are listed in the inbox and answered by ``answer`` messages; the
channel's messages are handled while the main thread is blocked, also after the kernel published
on the channel from the main thread and from another thread.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .llm_endpoint import LLMEndpoint

WAIT = 90.0  # seconds before a test gives up waiting for the kernel (never an assertion on speed)
DEMO = f"[{sys.executable!r}, '-m', 'mcp_jupyter.demo']"
PAGE = {"origin": "http://127.0.0.1:8888", "base_url": "/", "theme": "dark", "server_extension": False}


class LabFrontend:
    """The part of JupyterLab that talks to one kernel: cells, asking for the channel, the channel comm."""

    def __init__(self, kc: Any) -> None:
        self.kc = kc
        self.subshell_id: str | None = None
        self.comm_id = "lab-channel-1"
        self.kernel_opened: list[str] = []  # target names of every comm the kernel opened (none expected)
        self.received: list[dict] = []  # data of every comm_msg on the channel, in order
        self.outputs: dict[str, list[str]] = {}  # execute msg_id -> text outputs
        self.finished: set[str] = set()
        self.statuses: list[tuple[str, str]] = []  # (execution_state, parent msg_id), in IOPub order

    # -- the kernel's messages ---------------------------------------------------------------------
    def pump(self, seconds: float = 0.1) -> None:
        """Read IOPub messages for ``seconds`` (at least one poll)."""
        end = time.monotonic() + seconds
        while True:
            try:
                msg = self.kc.iopub_channel.get_msg(timeout=0.05)
            except queue.Empty:
                if time.monotonic() >= end:
                    return
                continue
            self._dispatch(msg)

    def _dispatch(self, msg: dict) -> None:
        kind, content = msg["msg_type"], msg["content"]
        parent = msg["parent_header"].get("msg_id", "")
        if kind == "comm_open":
            self.kernel_opened.append(content.get("target_name"))
        elif kind == "comm_msg" and content.get("comm_id") == self.comm_id:
            self.received.append(content["data"])
        elif kind == "stream":
            self.outputs.setdefault(parent, []).append(content["text"])
        elif kind in ("execute_result", "display_data"):
            self.outputs.setdefault(parent, []).append(content["data"].get("text/plain", ""))
        elif kind == "error":
            self.outputs.setdefault(parent, []).append("\n".join(content["traceback"]))
        elif kind == "status":
            self.statuses.append((content["execution_state"], parent))
            if content["execution_state"] == "idle":
                self.finished.add(parent)

    def wait_for(self, what: str, found: Callable[[], Any]) -> Any:
        """Pump until ``found()`` is truthy; fail after :data:`WAIT` seconds, saying ``what``."""
        end = time.monotonic() + WAIT
        while time.monotonic() < end:
            value = found()
            if value:
                return value
            self.pump()
        last = self.received[-1] if self.received else None
        raise AssertionError(f"gave up waiting for {what}; last channel message: {json.dumps(last)[:2000]}")

    # -- cells -------------------------------------------------------------------------------------
    def execute(self, code: str) -> str:
        """Start a cell (as JupyterLab does: on the main shell); returns its msg_id."""
        return self.kc.execute(code, allow_stdin=False)

    def run(self, code: str) -> str:
        """Run a cell to the end; its text output (an error in it fails the test)."""
        msg_id = self.execute(code)
        self.wait_for(f"the cell {code[:60]!r} to finish", lambda: msg_id in self.finished)
        text = "".join(self.outputs.get(msg_id, []))
        assert "Traceback" not in text, text
        return text

    # -- the channel -------------------------------------------------------------------------------
    def create_subshell(self) -> str:
        """``create_subshell_request`` on the control channel (what CommHandler does per comm target)."""
        self.kc.control_channel.send(self.kc.session.msg("create_subshell_request", {}))
        reply = self.kc.control_channel.get_msg(timeout=WAIT)
        assert reply["msg_type"] == "create_subshell_reply", reply
        self.subshell_id = reply["content"]["subshell_id"]
        return self.subshell_id

    def _shell(self, msg_type: str, content: dict) -> str:
        msg = self.kc.session.msg(msg_type, content)
        msg["header"]["subshell_id"] = self.subshell_id
        self.kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def serves_the_channel(self) -> bool:
        """What JupyterLab asks before it opens the channel: does ``comm_info`` list a comm under its
        target (on the channel's subshell once there is one, else on the main shell)."""
        msg_id = self._shell("comm_info_request", {"target_name": "mcp_jupyter.channel"})
        while True:
            reply = self.kc.get_shell_msg(timeout=WAIT)
            if reply["parent_header"].get("msg_id") == msg_id:
                assert reply["content"]["status"] == "ok", reply["content"]
                return bool(reply["content"]["comms"])

    def open_channel(self, subshell: bool = True) -> dict:
        """Open the channel with the hello (over a new subshell, or the main shell as JupyterLab does
        with ``commsOverSubshells: disabled``); returns the first snapshot."""
        if subshell:
            self.create_subshell()
        hello = {"type": "hello", "protocol": 1, "page": PAGE}
        self._shell(
            "comm_open", {"comm_id": self.comm_id, "target_name": "mcp_jupyter.channel", "data": hello}
        )
        return self.snapshot("the first snapshot", lambda s: True)

    def send(self, data: dict) -> str:
        """A comm_msg on the channel, on its subshell; returns its msg_id."""
        return self._shell("comm_msg", {"comm_id": self.comm_id, "data": data})

    @property
    def status(self) -> str:
        """The kernel's status as JupyterLab 4.6 shows it: the latest status message, whatever its
        parent (``KernelConnection._handleMessage``), as the Jupyter server records it too."""
        return self.statuses[-1][0] if self.statuses else "unknown"

    def snapshot(self, what: str, test: Callable[[dict], Any], since: int = 0) -> dict:
        """The first snapshot (received after index ``since``) that passes ``test``."""

        def match() -> dict | None:
            for data in self.received[since:]:
                if data.get("type") == "snapshot" and test(data):
                    return data
            return None

        return self.wait_for(what, match)

    def message(self, what: str, test: Callable[[dict], Any], since: int = 0) -> dict:
        """The first channel message after index ``since`` that passes ``test``."""
        return self.wait_for(what, lambda: next((d for d in self.received[since:] if test(d)), None))


def connection(snapshot: dict, name: str = "demo") -> dict | None:
    """The connection ``name`` in a snapshot."""
    return next((c for c in snapshot["connections"] if c["name"] == name), None)


def waiting(snapshot: dict, kind: str, state: str | None = None) -> dict | None:
    """The first inbox item of ``kind`` (and sampling ``state``) in a snapshot."""
    for item in snapshot["inbox"]:
        if item["kind"] == kind and (state is None or item["payload"].get("state") == state):
            return item
    return None


@pytest.fixture
def lab(venv_python_kernel: str, tmp_path: Path) -> Iterator[LabFrontend]:
    """A real kernel in ``tmp_path`` (with an mcp.json there) and the frontend driving it."""
    from jupyter_client.manager import start_new_kernel

    (tmp_path / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "configured-demo": {"command": sys.executable, "args": ["-m", "mcp_jupyter.demo"]}
                }
            }
        )
    )
    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")}
    km, kc = start_new_kernel(kernel_name=venv_python_kernel, cwd=str(tmp_path), env=env)
    try:
        yield LabFrontend(kc)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def start(lab: LabFrontend, setup: str = "", subshell: bool = True) -> dict:
    """Import the package (the kernel then serves the channel, and says nothing), open the channel,
    connect the demo server."""
    assert not lab.serves_the_channel()
    lab.run("import sys, mcp_jupyter as mj\n" + setup)
    assert lab.serves_the_channel() and lab.kernel_opened == []
    first = lab.open_channel(subshell)
    lab.run(f"conn = mj.connect('demo', {DEMO})")
    return first


@pytest.mark.kernel
def test_the_snapshot_follows_connections_list_changes_and_a_dead_server(
    lab: LabFrontend, tmp_path: Path
) -> None:
    first = start(lab)
    assert first["connections"] == [] or connection(first) is not None
    assert first["magics"] is False  # no %load_ext mcp_jupyter yet: the sidebar's code adds it
    assert {
        "name": "configured-demo",
        "source": str(tmp_path / "mcp.json"),
        "transport": "stdio",
    }.items() <= next(c for c in first["configured"] if c["name"] == "configured-demo").items()

    live = lab.snapshot("the demo connection with its tools", lambda s: (connection(s) or {}).get("tools"))
    demo = connection(live)
    assert demo["alive"] and demo["error"] is None and demo["transport"] == "stdio"
    assert demo["server"]["name"] == "mcp-jupyter-demo" and demo["protocol_version"]
    names = {tool["name"] for tool in demo["tools"]}
    assert {"add", "greet", "summarize", "add_tool"} <= names and "shout" not in names
    assert demo["counts"] == {"tools": len(names), "resources": 6, "templates": 1, "prompts": 2}
    assert demo["templates"][0]["uri_template"] == "demo://items/{item_id}"
    assert {a["name"] for a in next(p for p in demo["prompts"] if p["name"] == "greeting")["arguments"]} == {
        "name"
    }

    mark = len(lab.received)
    assert "Added the tool 'shout'" in lab.run("print(conn.call('add_tool', name='shout').text)")
    changed = lab.snapshot(
        "the new tool after the server's list change",
        lambda s: "shout" in {t["name"] for t in (connection(s) or {}).get("tools", [])},
        since=mark,
    )
    assert connection(changed)["counts"]["tools"] == len(names) + 1

    mark = len(lab.received)  # a burst of changes: snapshots coalesce, and the last one has them all
    lab.run("for n in range(4):\n    conn.call('add_tool', name=f'burst{n}')")
    lab.snapshot(
        "every tool of the burst",
        lambda s: (
            {f"burst{n}" for n in range(4)} <= {t["name"] for t in (connection(s) or {}).get("tools", [])}
        ),
        since=mark,
    )

    mark = len(lab.received)
    lab.send({"type": "refresh"})
    lab.snapshot("a snapshot after refresh", lambda s: connection(s) is not None, since=mark)

    mark = len(lab.received)
    lab.run("try:\n    conn.call('crash')\nexcept mj.MCPJupyterError as exc:\n    print(type(exc).__name__)")
    dead = lab.snapshot("the dead server", lambda s: connection(s) and not connection(s)["alive"], since=mark)
    assert "exited" in connection(dead)["error"]
    assert "shout" in {t["name"] for t in connection(dead)["tools"]}  # what it offered when it died

    page = lab.run(
        "from mcp_jupyter.lab import _channel as channel\nprint(channel.is_live(), channel.page())"
    )
    assert page.startswith("True") and "'theme': 'dark'" in page and "'server_extension': False" in page


@pytest.mark.kernel
def test_the_kernel_serves_the_channel_from_the_import_on_while_that_cell_still_runs(
    lab: LabFrontend, tmp_path: Path
) -> None:
    """``import mcp_jupyter`` and ``mj.connect(...)`` in one cell: JupyterLab asks on the channel's
    subshell while the cell runs, and can open the channel then (the sign-in needs it); the kernel
    says nothing by itself."""
    go_on = tmp_path / "go-on"
    lab.create_subshell()
    assert not lab.serves_the_channel()
    msg_id = lab.execute(
        "import os, time\nimport mcp_jupyter as mj\n"
        f"while not os.path.exists({str(go_on)!r}):\n    time.sleep(0.05)\nprint('ENDED')"
    )
    lab.wait_for("the kernel to serve the channel during the cell", lab.serves_the_channel)
    assert msg_id not in lab.finished  # the cell waits for go_on, which only this test creates
    first = lab.open_channel(subshell=False)  # the comm_open on the subshell created above
    assert first["type"] == "snapshot" and msg_id not in lab.finished
    go_on.touch()
    lab.wait_for("the cell to end", lambda: msg_id in lab.finished)
    assert "ENDED" in "".join(lab.outputs[msg_id]) and lab.kernel_opened == []


@pytest.mark.kernel
def test_a_headless_run_that_imports_the_package_logs_no_comm_it_cannot_handle(
    venv_python_kernel: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """nbclient (papermill, a docs build) warns "No handler found for comm target ..." for every comm
    a kernel opens to a target it lacks: importing mcp_jupyter opens none."""
    import logging

    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import mcp_jupyter as mj\n%load_ext mcp_jupyter"),
        nbformat.v4.new_code_cell("print('served', mj.__version__)"),
    ]
    log = logging.getLogger("test_lab_channel.nbclient")
    with caplog.at_level(logging.DEBUG, logger=log.name):
        NotebookClient(
            nb,
            kernel_name=venv_python_kernel,
            timeout=120,
            log=log,
            resources={"metadata": {"path": str(tmp_path)}},
        ).execute()
    assert "served" in nb.cells[1].outputs[0]["text"]
    assert "No handler found" not in caplog.text and "msg_type: comm_open" not in caplog.text, caplog.text


@pytest.mark.kernel
def test_a_blocked_sync_call_is_answered_from_the_channel(lab: LabFrontend) -> None:
    start(lab)
    cell = lab.execute("print(conn.call('greet').text)")
    snap = lab.snapshot("the elicitation in the inbox", lambda s: waiting(s, "elicitation"))
    item = waiting(snap, "elicitation")
    assert item["connection"] == "demo" and item["title"] == "What is your name?"
    assert item["payload"]["requested_schema"]["required"] == ["name"]
    assert cell not in lab.finished  # the cell is still blocked in conn.call

    mark = len(lab.received)
    lab.send({"type": "answer", "id": item["id"], "action": "accept", "content": {"nickname": "x"}})
    refused = lab.message(
        "the refusal of a wrong answer", lambda d: d.get("type") == "answer.error", since=mark
    )
    assert refused["id"] == item["id"] and ["name"] in [e["path"] for e in refused["errors"]]

    lab.send({"type": "answer", "id": item["id"], "action": "accept", "content": {"name": "Ada Lovelace"}})
    lab.send({"type": "answer", "id": item["id"], "action": "decline"})  # too late: the first answer won
    lab.wait_for("the blocked cell to finish", lambda: cell in lab.finished)
    assert "".join(lab.outputs[cell]).strip() == "Hello, Ada Lovelace! Welcome to the MCP demo server."
    lab.snapshot("the empty inbox", lambda s: s["inbox"] == [], since=mark)


@pytest.mark.kernel
def test_roots_under_policy_ask_are_shared_from_the_channel_while_blocked(
    lab: LabFrontend, tmp_path: Path
) -> None:
    setup = (
        "import os\nos.mkdir('site')\nmj.consent.roots.add('site')\nmj.consent.policy('demo', roots='ask')"
    )
    start(lab, setup)
    cell = lab.execute("print(conn.call('roots').structured['result'])")
    item = waiting(lab.snapshot("the roots request in the inbox", lambda s: waiting(s, "roots")), "roots")
    site = (tmp_path / "site").resolve().as_uri()
    assert item["payload"] == {"roots": [{"uri": site, "name": "site"}]}
    assert cell not in lab.finished
    lab.send({"type": "answer", "id": item["id"], "action": "accept", "content": {}})
    lab.wait_for("the blocked cell to finish", lambda: cell in lab.finished)
    assert "".join(lab.outputs[cell]).strip() == str([{"uri": site, "name": "site"}])


@pytest.mark.kernel
def test_without_subshells_a_blocked_call_is_not_held_for_the_sidebar(lab: LabFrontend) -> None:
    """With commsOverSubshells off, answers would wait for the blocked cell: the request takes the
    fallback (here headless: no stdin) instead of waiting in an inbox nobody can answer from."""
    start(lab, subshell=False)
    greeting = lab.run("print(conn.call('greet').text)")
    assert greeting.strip() == "Hello, whoever you are (you chose to decline)."
    assert all(not data.get("inbox") for data in lab.received if data.get("type") == "snapshot")


@pytest.mark.kernel
def test_sampling_during_an_mcp_call_cell_is_approved_from_the_channel(lab: LabFrontend) -> None:
    with LLMEndpoint() as llm:
        setup = (
            "from mcp_jupyter import consent\n"
            f"consent.sampling_provider(consent.openai('tiny-model', base_url={llm.base_url!r}))\n"
            "%load_ext mcp_jupyter"
        )
        start(lab, setup)
        body = json.dumps({"text": "Channels carry answers while the kernel is busy", "max_words": 5})
        cell = lab.execute(f"%%mcp call demo summarize -o out\n{body}")
        pending = lab.snapshot("the sampling request", lambda s: waiting(s, "sampling", "waiting"))
        assert pending["magics"] is True
        asked = waiting(pending, "sampling")
        assert asked["payload"]["system_prompt"] == "You are a concise assistant."
        assert "Channels carry answers" in asked["payload"]["messages"][0]["text"]
        assert cell not in lab.finished

        lab.send({"type": "answer", "id": asked["id"], "action": "accept", "content": {}})
        review = lab.snapshot("the model's draft to review", lambda s: waiting(s, "sampling", "review"))
        draft = waiting(review, "sampling", "review")["payload"]["draft"]
        assert draft == {
            "text": "tiny-model says: Channels carry answers while the kernel is busy",
            "model": "tiny-model",
        }
        assert cell not in lab.finished

        lab.send({"type": "answer", "id": asked["id"], "action": "accept", "content": {}})
        lab.wait_for("the %%mcp call cell to finish", lambda: cell in lab.finished)
        summary = lab.run("print(out.structured['summary'])").strip()
        assert summary == "tiny-model says: Channels carry answers while the kernel is busy"
        assert llm.requests, "the approved request reached the LLM endpoint"


@pytest.mark.kernel
def test_a_person_calls_the_offered_tool_from_the_channel_and_answers_the_follow_up(lab: LabFrontend) -> None:
    """The human provider (the default): the sidebar answers the demo's forecast with a call of its
    get_weather tool (checked: a wrong call is refused with answer.error), the server runs it and asks
    again with the result, and that request is answered in text; the blocked cell gets both."""
    start(lab)
    cell = lab.execute("print(conn.call('forecast', question='Weather in Oslo?').structured)")
    item = waiting(
        lab.snapshot("the sampling request", lambda s: waiting(s, "sampling", "waiting")), "sampling"
    )
    assert item["title"] == "Weather in Oslo?"  # the sidebar's label says who wants what
    assert item["payload"]["needs_human"] and item["payload"]["tool_choice"] == "auto"
    assert item["payload"]["tools"][0]["input_schema"]["required"] == ["city"]

    mark = len(lab.received)
    wrong = {"text": "", "tool_calls": [{"name": "get_weather", "input": {"units": "kelvin"}}]}
    lab.send({"type": "answer", "id": item["id"], "action": "accept", "content": wrong})
    refused = lab.message(
        "the refusal of a wrong call", lambda d: d.get("type") == "answer.error", since=mark
    )
    assert [e["message"] for e in refused["errors"]] == [
        "get_weather: units: 'kelvin' is not one of ['metric', 'imperial']",
        "get_weather: (input): 'city' is a required property",
    ]
    call = {"text": "", "tool_calls": [{"name": "get_weather", "input": {"city": "Oslo"}}]}
    lab.send({"type": "answer", "id": item["id"], "action": "accept", "content": call})

    def follow_up(snapshot: dict) -> dict | None:
        found = waiting(snapshot, "sampling", "waiting")
        return found if found and found["id"] != item["id"] else None

    second = follow_up(lab.snapshot("the server's follow-up", follow_up, since=mark))
    assert second["payload"]["tool_choice"] == "none"
    assert '"city":"Oslo"' in second["payload"]["messages"][-1]["text"]  # the tool's result
    assert cell not in lab.finished
    lab.send({"type": "answer", "id": second["id"], "action": "accept", "content": {"text": "Cold in Oslo."}})
    lab.wait_for("the blocked cell to finish", lambda: cell in lab.finished)
    report = "".join(lab.outputs[cell])
    assert "'tool_calls': [{'id': 'call_1', 'name': 'get_weather', 'input': {'city': 'Oslo'}}]" in report
    assert "'answer': 'Cold in Oslo.'" in report


@pytest.mark.kernel
def test_an_answer_on_the_subshell_leaves_the_kernel_busy_while_its_cell_runs(lab: LabFrontend) -> None:
    """ipykernel publishes busy/idle for the answer's comm_msg on the subshell; JupyterLab and the
    Jupyter server take the latest status for the kernel's. After the answer the kernel must still
    look busy (the cell runs on), and idle only once the cell ends."""
    start(lab)
    cell = lab.execute("print(conn.call('forecast', question='Weather in Oslo?').structured['answer'])")
    item = waiting(
        lab.snapshot("the sampling request", lambda s: waiting(s, "sampling", "waiting")), "sampling"
    )
    call = {"text": "", "tool_calls": [{"name": "get_weather", "input": {"city": "Oslo"}}]}
    mark = len(lab.received)  # before the answer: the follow-up may come in the same read as its idle
    answer = lab.send({"type": "answer", "id": item["id"], "action": "accept", "content": call})
    lab.wait_for("the answer's idle", lambda: ("idle", answer) in lab.statuses)
    second = lab.snapshot(
        "the follow-up",
        lambda s: (w := waiting(s, "sampling", "waiting")) and w["id"] != item["id"],
        since=mark,
    )
    after = lab.statuses[lab.statuses.index(("idle", answer)) :]
    assert after[:2] == [("idle", answer), ("busy", cell)], after  # the cell's busy, right after
    assert lab.status == "busy" and cell not in lab.finished

    reply = lab.send(
        {
            "type": "answer",
            "id": waiting(second, "sampling", "waiting")["id"],
            "action": "accept",
            "content": {"text": "Cold."},
        }
    )
    lab.wait_for("the cell to finish", lambda: cell in lab.finished)
    lab.pump(0.5)
    assert ("idle", reply) in lab.statuses
    assert lab.statuses[-1] == ("idle", cell)  # the last word is the cell's own idle
    assert "".join(lab.outputs[cell]).strip() == "Cold."


@pytest.mark.kernel
def test_channel_messages_are_handled_while_main_is_blocked_after_sends_from_any_thread(
    lab: LabFrontend,
) -> None:
    lab.run("import mcp_jupyter")
    lab.open_channel()
    lab.run(
        "import threading\n"
        "from mcp_jupyter.lab import _channel as channel\n"
        "unblocked = threading.Event()\n"
        "channel.on('app.unblock', lambda msg: unblocked.set())\n"
        "channel.on('app.ping', lambda msg: channel.send({'type': 'app.pong', 'n': msg['n']}))\n"
        "post_execute = []\n"
        "get_ipython().events.register('post_execute', lambda: post_execute.append(1))"
    )
    cell = lab.execute(
        "before = len(post_execute)\n"
        "channel.send({'type': 'app.from-main'})\n"
        "threading.Thread(target=channel.send, args=({'type': 'app.from-thread'},)).start()\n"
        "print('unblocked' if unblocked.wait(120) else 'still blocked')\n"
        "print('post_execute events during the cell:', len(post_execute) - before)"
    )
    lab.message("a message sent from another thread", lambda d: d.get("type") == "app.from-thread")
    lab.send({"type": "app.ping", "n": 7})
    assert lab.message("the handler's answer", lambda d: d.get("type") == "app.pong")["n"] == 7
    assert cell not in lab.finished
    lab.send({"type": "app.unblock"})
    lab.wait_for("the blocked cell to finish", lambda: cell in lab.finished)
    # the channel's messages are not cell executions: no IPython events fired for them (matplotlib's
    # inline backend would flush figures on post_execute)
    assert "".join(lab.outputs[cell]).splitlines() == ["unblocked", "post_execute events during the cell: 0"]


def test_snapshots_coalesce_and_one_requested_while_building_follows(monkeypatch) -> None:
    """In-process, with the real runtime: a change during a build starts one more build when it ends
    (from the runtime thread itself), and the channel is never left 'building'."""
    import threading

    import mcp_jupyter.lab._snapshot as snapshot
    from mcp_jupyter.lab import _channel as channel
    from mcp_jupyter.runtime import runtime

    sent: list[dict] = []
    release = threading.Event()
    builds = iter(range(100))

    async def slow_build() -> dict:
        import anyio

        number = next(builds)
        if number == 0:
            await anyio.to_thread.run_sync(release.wait)
        return {"type": "snapshot", "build": number}

    monkeypatch.setattr(snapshot, "abuild", slow_build)
    monkeypatch.setattr(channel, "send", sent.append)
    runtime().portal  # noqa: B018 - started, as it is once anything is connected
    channel._push()  # build 0 waits
    channel._push()  # requested while building: remembered
    channel._push()  # coalesced with the one before
    release.set()
    deadline = time.monotonic() + WAIT
    while (len(sent) < 2 or channel._building) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert [m["build"] for m in sent] == [0, 1] and not channel._building


def test_the_client_tells_observers_about_connections_without_importing_them() -> None:
    """The CONNECTION_EVENTS hook: the registry and the session tell opened, status, list_changed, closed."""
    import mcp_jupyter as mj
    from mcp_jupyter import _hooks as hooks
    from mcp_jupyter.demo import create_server

    seen: list[tuple[str, str]] = []
    remove = hooks.CONNECTION_EVENTS.provide(lambda event, name: seen.append((event, name)))
    try:
        conn = mj.connect("observed", create_server())
        assert ("opened", "observed") in seen and ("status", "observed") in seen
        conn.call("add_tool", name="observed_tool")
        deadline = time.monotonic() + WAIT
        while ("list_changed", "observed") not in seen and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ("list_changed", "observed") in seen
        conn.close()
        assert seen[-1] == ("closed", "observed")
    finally:
        remove()
        mj.disconnect_all()


@pytest.mark.kernel
def test_tasks_are_live_in_the_snapshot_and_cancelled_from_the_channel_while_blocked(
    lab: LabFrontend, task_server: tuple[str, str], tmp_path: Path
) -> None:
    """The snapshot lists a connection's tasks and follows their status (a ``task`` client event, no
    refresh asked); ``task.cancel`` stops a task whose ``result()`` blocks the main thread; a cancel
    the kernel cannot carry out comes back as ``task.error``."""
    url, token = task_server
    lab.run(
        "import os, mcp_jupyter as mj\n"
        f"os.environ['JUPYTER_DATA_DIR'] = {str(tmp_path / 'data')!r}\n"  # the task store, isolated
        f"own = mj.connect('own', {url!r}, headers={{'Authorization': 'Bearer ' + {token!r}}})"
    )
    lab.open_channel()
    task_id = lab.run("t = own.start('slow_compute', seconds=60, label='sidebar')\nprint(t.id)").strip()

    def task(snapshot: dict) -> dict | None:
        return next(
            (t for t in (connection(snapshot, "own") or {}).get("tasks", []) if t["id"] == task_id), None
        )

    # the server's status messages arrive as snapshots by themselves: the kernel follows the task
    moving = lab.snapshot(
        "the task's second status", lambda s: "sidebar: 2 s" in ((task(s) or {}).get("message") or "")
    )
    shown = task(moving)
    assert shown["tool"] == "slow_compute" and shown["status"] == "working" and not shown["gone"]
    assert shown["created"] and shown["updated"]

    blocked = lab.execute(
        "try:\n    t.result()\nexcept mj.RequestCancelled as exc:\n    print('CANCELLED', exc)"
    )
    lab.pump(0.5)
    assert blocked not in lab.finished  # result() holds the main thread
    mark = len(lab.received)
    lab.send({"type": "task.cancel", "connection": "own", "id": task_id})
    cancelled = lab.snapshot(
        "the cancelled task", lambda s: (task(s) or {}).get("status") == "cancelled", since=mark
    )
    assert task(cancelled)["status"] == "cancelled"
    lab.wait_for("the blocked cell to end", lambda: blocked in lab.finished)
    assert "".join(lab.outputs[blocked]).startswith(f"CANCELLED task {task_id}")

    mark = len(lab.received)
    lab.send({"type": "task.cancel", "connection": "nope", "id": task_id})
    error = lab.message("the refusal", lambda d: d.get("type") == "task.error", since=mark)
    assert error["connection"] == "nope" and "no connection named 'nope'" in error["message"]
