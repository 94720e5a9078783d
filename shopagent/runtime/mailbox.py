"""A bounded in-memory mailbox between actors.

The composition root owns the mailbox for the whole process lifetime; producers and
workers take clones of its ends, so an actor restart closes only its own clone and the
mailbox (with whatever is queued) survives. A full mailbox makes `send` wait: that is the
backpressure that keeps a fast producer from filling memory. Items are not durable; the
producer's own store is the durable record.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import anyio
import msgspec
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

T = TypeVar("T")


class MailboxStatistics(msgspec.Struct, frozen=True):
    capacity: int
    depth: int
    waiting_senders: int
    waiting_receivers: int


class Mailbox(Generic[T]):
    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("a mailbox needs a capacity of at least 1")
        self._capacity = capacity
        self._send, self._receive = anyio.create_memory_object_stream[T](capacity)

    def sender(self) -> MemoryObjectSendStream[T]:
        """A clone of the sending end; close it (use `async with`) when the producer stops."""
        return self._send.clone()

    def receiver(self) -> MemoryObjectReceiveStream[T]:
        """A clone of the receiving end for one worker; close it when the worker stops."""
        return self._receive.clone()

    def statistics(self) -> MailboxStatistics:
        stats = self._send.statistics()
        return MailboxStatistics(
            capacity=self._capacity,
            depth=stats.current_buffer_used,
            waiting_senders=stats.tasks_waiting_send,
            waiting_receivers=stats.tasks_waiting_receive,
        )

    def close(self) -> None:
        """Close the root ends; called once by the composition root at shutdown."""
        self._send.close()
        self._receive.close()

    def __enter__(self) -> Mailbox[T]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
