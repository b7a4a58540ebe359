"""A real ipykernel driven through jupyter_client, for the serve tests."""

from __future__ import annotations

import json
import os
import queue
from pathlib import Path

from jupyter_client.manager import start_new_kernel

REPO = Path(__file__).resolve().parents[1]


class KernelFailed(AssertionError):
    """A cell raised in the test kernel."""


class Kernel:
    """One kernel process; ``run(code)`` returns what the cell printed, raising on errors."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.manager, self.client = start_new_kernel(kernel_name="python3", env=env, cwd=str(REPO))

    def run(self, code: str, timeout: float = 60) -> str:
        """Execute ``code`` and return its stdout plus text results; raise KernelFailed on error."""
        msg_id = self.client.execute(code)
        out: list[str] = []
        while True:
            try:
                msg = self.client.get_iopub_msg(timeout=timeout)
            except queue.Empty as exc:
                raise TimeoutError(f"cell did not finish: {code[:80]}") from exc
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream" and content["name"] == "stdout":
                out.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                out.append(content["data"].get("text/plain", ""))
            elif kind == "error":
                raise KernelFailed("\n".join(content["traceback"]))
            elif kind == "status" and content["execution_state"] == "idle":
                return "".join(out)

    def value(self, expression: str):
        """Evaluate a JSON-serializable expression in the kernel."""
        return json.loads(
            self.run(f"import json as _j; print(_j.dumps({expression}))").strip().splitlines()[-1]
        )

    def shutdown(self) -> None:
        """Stop the kernel process."""
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=False)
