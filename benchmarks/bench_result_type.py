"""What does the resultType default cost an ordinary call? (client/_result_type.py reads every message)

Two stdio connections to the demo server at 2026-07-28: one with the resultType layer between the
recorded transport and the SDK (as every connection has it), one without it. Rounds of sequential
``conn.call("add")`` alternate between them; the best round of each is kept and the ratio printed:
1.0 means the layer costs an ordinary call nothing.

Usage: python benchmarks/bench_result_type.py [--calls 300] [--rounds 9]
"""

from __future__ import annotations

import argparse
import sys

from _timing import compare_layer, connect_with_transport

import mcp_jupyter as mj
from mcp_jupyter.client._history import RecordingTransport
from mcp_jupyter.client._tasks import ClientTaskTransport


def without_result_type(owner, transport):
    """The usual transport layers minus the resultType default (the baseline)."""
    recorded = RecordingTransport(transport, owner.session.history, on_eof=owner.on_eof)
    return ClientTaskTransport(recorded, owner._answer_server_request)


def main() -> None:
    """Run the alternating rounds and print calls/s and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    argv = [sys.executable, "-m", "mcp_jupyter.demo"]
    with_layer = mj.connect("layer", argv)
    compare_layer(
        f"stdio demo server ({with_layer.protocol_version})",
        with_layer,
        connect_with_transport("bare", argv, without_result_type),
        args.calls,
        args.rounds,
    )


if __name__ == "__main__":
    main()
