"""`shopagent repl` driven through a pseudo-terminal, like a person at a keyboard."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading

import anyio
import pytest

from tests.helpers import REPO, eventually

pytestmark = [pytest.mark.anyio, pytest.mark.process]


class Terminal:
    def __init__(self, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "shopagent", "repl"], stdin=slave, stdout=slave, stderr=subprocess.DEVNULL,
            env=env, cwd=REPO, close_fds=True,
        )  # fmt: skip
        os.close(slave)
        self.screen = ""
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            if not chunk:
                return
            self.screen += chunk.decode(errors="replace")

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    async def shows(self, text: str, *, after: int = 0, timeout: float = 60) -> int:
        async def present() -> int:
            return self.screen.find(text, after) + 1

        return await eventually(present, timeout=timeout) - 1


async def test_a_question_gets_an_answer_naming_a_real_sample_product(sample_shop):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOPAGENT_")}
    env["SHOPAGENT_DATABASE_URL"] = sample_shop.dsn
    terminal = Terminal(env)
    try:
        await terminal.shows("you> ")
        terminal.type("warm winter boots in size 42\n")
        answered = await terminal.shows("assistant> ")
        await terminal.shows("you> ", after=answered)
        shown = terminal.screen[answered:]
        names = [p.name for p in await sample_shop.catalog.list_products(limit=500)]
        assert any(name in shown for name in names), shown
        steps = terminal.screen[:answered]
        assert "tool product-semantic-search" in steps and '"sizes": ["42"]' in steps
        terminal.type("\x04")  # Ctrl-D
        await terminal.shows("bye")
        with anyio.fail_after(10):
            assert await anyio.to_thread.run_sync(terminal.process.wait) == 0
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait()
        os.close(terminal.master)
