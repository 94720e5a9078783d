"""`shopagent repl`: talk to the assistant line by line and watch each step it takes.

The lines form one conversation, kept in memory exactly as the chat API stores it (the
user's messages, the tool calls and results, the answers), so follow-ups such as "cheaper
ones?" or "the second one" work as they do over HTTP. `/new` starts a fresh conversation;
nothing is written to the database. `exit` or Ctrl-D quits.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from typing import TextIO

import anyio
from anyio.lowlevel import current_token

from shopagent.application.agent import AgentEvent, AssistantAgent
from shopagent.domain.chat import ChatMessage
from shopagent.domain.errors import ShopagentError

PROMPT = "you> "


def show(event: AgentEvent, out: TextIO) -> None:
    millis = f"{event.seconds * 1000:.0f} ms"
    if event.kind == "model":
        then = f" -> {', '.join(event.calls)}" if event.calls else " -> answer"
        out.write(f"  [step {event.step}] model {event.name} ({millis}){then}\n")
    elif event.kind == "tool":
        status = "a repeat, answered with the earlier result" if event.repeated else "error" if event.is_error else "ok"
        out.write(f"  [step {event.step}] tool {event.name} {json.dumps(event.args)} ({millis}, {status})\n")
    out.flush()


async def run_repl(agent: AssistantAgent, *, out: TextIO = sys.stdout) -> None:
    tools = ", ".join(t.name for t in await agent.tools.list_tools())
    out.write(f"shopagent REPL - model {agent.model.model_id}; tools: {tools}\n")
    out.write("The lines are one conversation; /new starts another. Type exit or press Ctrl-D to quit.\n")
    out.flush()
    lines = _LineReader()
    history: list[ChatMessage] = []
    while True:
        out.write(PROMPT)
        out.flush()
        line = await lines.read()
        if line is None or line.strip() in ("exit", "quit"):
            break
        if not line.strip():
            continue
        if line.strip() == "/new":
            history = []
            out.write("(a new conversation)\n")
            out.flush()
            continue
        try:
            answer, new = await agent.run(history, line, on_event=lambda event: show(event, out))
        except ShopagentError as exc:
            out.write(f"error: {exc}\n")  # nothing of a failed turn is kept, as in the chat API
        else:
            history += [ChatMessage.user(line), *new]
            out.write(f"assistant> {answer}\n")
        out.flush()
    out.write("bye\n")


class _LineReader:
    """Reads stdin in a daemon thread, one line per request, so Ctrl-C never waits on input()."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._send, self._receive = anyio.create_memory_object_stream[str | None](1)
        token = current_token()

        def reader() -> None:
            while True:
                self._requests.get()
                try:
                    # No prompt argument: input() would write it to stderr on a terminal.
                    line: str | None = input()
                except EOFError:
                    line = None
                anyio.from_thread.run_sync(self._send.send_nowait, line, token=token)
                if line is None:
                    return

        threading.Thread(target=reader, name="repl-stdin", daemon=True).start()

    async def read(self) -> str | None:
        self._requests.put(None)
        return await self._receive.receive()
