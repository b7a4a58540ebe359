"""When a follower asks the server about a task next (:class:`Pace`).

The poll interval a server suggests (``pollInterval``, ``pollIntervalMs``) is a suggestion; a
deadline is the person's: the timeout of a ``conn.call`` that follows a task (its request's
:class:`~mcp_jupyter.client._session.Deadline`) or a ``task.result(timeout=...)`` waiting on a task
followed in the background (a :class:`~.state.Waiter`). The follower asks at the server's pace,
except that when its next question would come after a deadline, it asks halfway there (while that
is :data:`EARLY_MIN` seconds or more away) and once more at the deadline itself. So a task that
ended before a short timeout is found ended, and one that goes on is seen going on at the deadline,
not guessed at. Runs on the runtime loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from .state import TaskState

if TYPE_CHECKING:
    from .._session.deadlines import Deadline

EARLY_MIN = 1.0  # seconds: closer to a deadline than twice this, the next question is at the deadline
LAST_LOOK = 5.0  # seconds the question at a call's deadline may take before the call is cut off


class DeadlinePassed(Exception):  # noqa: N818 - control flow inside follow(), never shown
    """The call's deadline passed after the follower asked at it, and the task goes on."""


class Pace:
    """The follower's clock for one task: when to ask next, given the server's suggestion, the
    following call's ``deadline`` (None: a background follower) and the task's waiters."""

    def __init__(self, state: TaskState, deadline: Deadline | None = None) -> None:
        self.state = state
        self.deadline = deadline
        self.asked = 0  # questions answered (for the timeout's message)
        self.last = anyio.current_time()  # when the server last answered (or following began)
        if deadline is not None:
            deadline.allow_last_look(LAST_LOOK)  # the question at the deadline ends the call, not the alarm

    def _next_wait(self) -> float:
        """Seconds from now until the next question."""
        now = anyio.current_time()
        paced = self.last + self.state.poll_seconds - now
        lefts = [waiter.end - now for waiter in self.state.waiters if not waiter.looked]
        if self.deadline is not None and self.deadline.left() > 0:  # passed: asked at it already
            lefts.append(self.deadline.left())
        return min([paced, *(_ask_within(paced, left) for left in lefts)])

    async def wait(self) -> None:
        """Sleep until the next question is due (a new waiter wakes the sleep to count again, and
        news of the task's end, e.g. after a cancel, ends it).
        Raises :class:`DeadlinePassed` when the call's deadline has passed since the last question
        and the task has not ended."""
        state = self.state
        if self.deadline is not None and self.deadline.left() <= 0 and not state.terminal:
            raise DeadlinePassed
        while not state.terminal and (wait := self._next_wait()) > 0:  # ended: ask for the outcome now
            nudged = state.nudge_event()
            with anyio.move_on_after(wait) as sleep:
                await nudged.wait()
            if sleep.cancelled_caught:
                return

    def answered(self) -> None:
        """A question was answered: the waiters whose deadline it reached have had their look;
        they are released now, or, for an ended task, when following it ends (with its result)."""
        self.asked += 1
        now = self.last = anyio.current_time()
        for waiter in self.state.waiters:
            waiter.looked = waiter.looked or waiter.end <= now
        if not self.state.terminal:
            self.state.release_waiters(now)


def _ask_within(paced: float, left: float) -> float:
    """When to ask next with ``left`` seconds to a deadline and the server's pace asking in
    ``paced``: at that pace if it comes first, else halfway to the deadline, or at it once halfway
    is too close."""
    if paced < left:
        return paced
    half = left / 2
    return half if half >= EARLY_MIN else max(0.0, left)
