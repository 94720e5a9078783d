"""Request bodies of the MCP app, read before the SDK's app sees them."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


async def read_body(receive: Receive, max_body: int) -> tuple[list[Message], bytes | None]:
    """The messages read and the whole body; None for the body if it did not end within
    `max_body` bytes or the client went away (the last message is then `http.disconnect`)."""
    messages: list[Message] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        size += len(message.get("body", b""))
        if size > max_body:
            return messages, None
        if not message.get("more_body", False):
            return messages, b"".join(m.get("body", b"") for m in messages)


def replay(messages: list[Message], receive: Receive) -> Receive:
    """`receive` as if nothing had been read: the messages already taken first."""
    pending = list(reversed(messages))

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


class BodyFirst:
    """Reads a POST's body (up to `max_body`) before the app runs, so that a client going away
    mid-body ends its request here, quietly: the SDK's app would log a traceback for it and
    answer 500 to nobody. A body past the limit goes on to the app, which refuses it (413)."""

    def __init__(self, app: ASGIApp, *, max_body: int) -> None:
        self._app = app
        self._max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        messages, _ = await read_body(receive, self._max_body)
        if messages[-1]["type"] == "http.disconnect":
            return
        await self._app(scope, replay(messages, receive), send)
