"""A throwaway PostgreSQL server: a fresh cluster in a temporary directory, for tests and benchmarks.

It uses the server binaries of the operating system's PostgreSQL (Debian's, in
``/usr/lib/postgresql/<version>/bin``; ``scripts/install-test-servers.sh`` installs them). The server
listens on 127.0.0.1 only, on a free port, with its unix socket in the temporary directory, and
trusts every local connection as user ``postgres``. ``initdb`` and ``pg_ctl`` refuse to run as root,
so as root they run as the ``postgres`` user of the system.

    with PostgresServer() as server:
        dsn = server.create_database("scratch")  # postgresql://postgres@127.0.0.1:PORT/scratch
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Literal

__all__ = ["PostgresServer", "available", "find_bin_dir"]

INSTALL_ROOT = Path("/usr/lib/postgresql")
SERVER_PROGRAMS = ("initdb", "pg_ctl", "postgres")
SYSTEM_USER = "postgres"  # who runs initdb and pg_ctl when we are root
DATABASE_USER = "postgres"
MAX_CONNECTIONS = 200
START_SECONDS = 60  # for pg_ctl -w: until the server accepts connections
STOP_SECONDS = 60  # for pg_ctl -w: until the server has exited
COMMAND_SECONDS = 180.0  # for any one command (initdb is the slowest)
PORT_ATTEMPTS = 3  # a free port can be taken by someone else before the server binds it

StopMode = Literal["fast", "immediate"]


def _version_key(directory: Path) -> tuple[int, ...]:
    """``/usr/lib/postgresql/9.6`` -> (9, 6); a name that is not a version sorts first."""
    return tuple(int(part) for part in re.findall(r"\d+", directory.name)) or (-1,)


def find_bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/*/bin`` that holds the server programs, or None."""
    candidates = sorted(INSTALL_ROOT.glob("*/bin"), key=lambda bin_dir: _version_key(bin_dir.parent))
    for bin_dir in reversed(candidates):
        if all(os.access(bin_dir / program, os.X_OK) for program in SERVER_PROGRAMS):
            return bin_dir
    return None


def _running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def available() -> str | None:
    """Why a ``PostgresServer`` cannot be started here, or None when it can."""
    if find_bin_dir() is None:
        return (
            f"no PostgreSQL server binaries ({', '.join(SERVER_PROGRAMS)}) in {INSTALL_ROOT}/*/bin"
            " (scripts/install-test-servers.sh installs them)"
        )
    if _running_as_root():
        try:
            import pwd

            pwd.getpwnam(SYSTEM_USER)
        except KeyError:
            return f"running as root, and there is no {SYSTEM_USER!r} user to run the server as"
        if shutil.which("runuser") is None:
            return f"running as root, and there is no runuser to run the server as {SYSTEM_USER!r}"
    return None


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on at the moment."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class PostgresServer:
    """A PostgreSQL cluster of its own in a temporary directory, and the server running on it.

    ``start()`` creates the cluster the first time and starts the server; after ``stop()`` it starts
    it again on the same data and the same port. ``close()`` stops it and removes the directory.
    As a context manager it is started on entry and closed on exit.
    """

    def __init__(self, bin_dir: Path | None = None) -> None:
        """Use the server programs of ``bin_dir`` (by default the newest installed: ``find_bin_dir()``)."""
        found = bin_dir or find_bin_dir()
        if found is None:
            raise RuntimeError(available() or "no PostgreSQL server binaries")
        self.bin_dir: Path = found
        self.directory: Path | None = None  # the temporary directory, once created
        self.port: int = 0  # chosen on the first start, kept afterwards
        self.running: bool = False
        self._as_root = _running_as_root()

    # Where things are.

    @property
    def data_dir(self) -> Path:
        """The cluster's data directory (PGDATA)."""
        return self._directory() / "data"

    @property
    def log_file(self) -> Path:
        """The server's log (its output, written by pg_ctl)."""
        return self._directory() / "server.log"

    @property
    def dsn(self) -> str:
        """The DSN of the ``postgres`` database: ``postgresql://postgres@127.0.0.1:PORT/postgres``."""
        return self.database_dsn("postgres")

    @property
    def postmaster_pid(self) -> int:
        """The pid of the running server's postmaster: every other process of the cluster is its child."""
        return int((self.data_dir / "postmaster.pid").read_text().split("\n", 1)[0])

    def database_dsn(self, name: str) -> str:
        """The DSN of the database ``name`` on this server."""
        if not self.port:
            raise RuntimeError("the server has not been started")
        return f"postgresql://{DATABASE_USER}@127.0.0.1:{self.port}/{name}"

    # Life cycle.

    def start(self) -> PostgresServer:
        """Create the cluster (the first time) and start the server; return when it accepts connections."""
        if self.running:
            return self
        if self.directory is None:
            self._create_cluster()
        if self.port:
            self._pg_ctl_start()
        else:
            self._start_on_a_free_port()
        self.running = True
        return self

    def stop(self, mode: StopMode = "fast") -> None:
        """Stop the server (``pg_ctl stop -m fast`` or ``-m immediate``, the latter like a crash)."""
        if not self.running:
            return
        self._run_server_program(
            ["pg_ctl", "stop", "-D", str(self.data_dir), "-m", mode, "-w", "-t", str(STOP_SECONDS)]
        )
        self.running = False

    def restart(self) -> None:
        """Stop the server (fast) and start it again on the same data and port."""
        self.stop("fast")
        self.start()

    def close(self) -> None:
        """Stop the server and remove its directory, data and all. It cannot be started again."""
        try:
            if self.running:
                try:
                    self.stop("fast")
                except (RuntimeError, subprocess.TimeoutExpired):
                    self.stop("immediate")
        finally:
            if self.directory is not None:
                shutil.rmtree(self.directory, ignore_errors=True)
                self.directory = None
            self.port = 0

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # Databases.

    def create_database(self, name: str) -> str:
        """Create an empty database ``name`` (``createdb``) and return its DSN."""
        if not self.running:
            raise RuntimeError("the server is not running")
        createdb = self.bin_dir / "createdb"
        program = str(createdb) if os.access(createdb, os.X_OK) else shutil.which("createdb")
        if program is None:
            raise RuntimeError(f"no createdb in {self.bin_dir} or on the PATH")
        self._run([program, "-h", "127.0.0.1", "-p", str(self.port), "-U", DATABASE_USER, "-w", name])
        return self.database_dsn(name)

    # The work.

    def _directory(self) -> Path:
        if self.directory is None:
            raise RuntimeError("the cluster has not been created (start the server first)")
        return self.directory

    def _create_cluster(self) -> None:
        directory = Path(tempfile.mkdtemp(prefix="mercado-postgres-"))
        self.directory = directory
        if self._as_root:
            shutil.chown(directory, user=SYSTEM_USER, group=None)
        self._run_server_program(
            [
                "initdb",
                "-D",
                str(self.data_dir),
                "-U",
                DATABASE_USER,
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C",
            ]
        )

    def _start_on_a_free_port(self) -> None:
        for attempt in range(1, PORT_ATTEMPTS + 1):
            self.port = _free_port()
            logged_before = len(self._log_text())
            try:
                self._pg_ctl_start()
                return
            except RuntimeError:
                this_start = self._log_text()[logged_before:]
                taken = "could not bind" in this_start or "already in use" in this_start
                if attempt == PORT_ATTEMPTS or not taken:
                    self.port = 0
                    raise

    def _pg_ctl_start(self) -> None:
        # The settings go on pg_ctl's command line (-o), so the cluster's own files stay as initdb wrote them.
        settings = {
            "listen_addresses": "127.0.0.1",
            "port": str(self.port),
            "unix_socket_directories": str(self._directory()),
            "max_connections": str(MAX_CONNECTIONS),
        }
        # pg_ctl hands them to a shell.
        options = shlex.join(word for name, value in settings.items() for word in ("-c", f"{name}={value}"))
        try:
            self._run_server_program(
                [
                    "pg_ctl",
                    "start",
                    "-D",
                    str(self.data_dir),
                    "-l",
                    str(self.log_file),
                    "-o",
                    options,
                    "-w",
                    "-t",
                    str(START_SECONDS),
                ]
            )
        except RuntimeError as error:
            raise RuntimeError(f"{error}\nthe server's log ends:\n{self._log_tail()}") from None

    def _log_text(self) -> str:
        try:
            return self.log_file.read_text(errors="replace")
        except OSError:
            return ""

    def _log_tail(self, lines: int = 20) -> str:
        return "\n".join(self._log_text().splitlines()[-lines:])

    def _run_server_program(self, command: list[str]) -> None:
        """Run one of the bin dir's programs, as the ``postgres`` user when we are root."""
        program = [str(self.bin_dir / command[0]), *command[1:]]
        if self._as_root:
            program = ["runuser", "-u", SYSTEM_USER, "--", *program]
        self._run(program)

    def _run(self, command: list[str]) -> None:
        # PG* variables of the caller's environment (PGDATA, PGPORT, PGHOST, ...) would override ours.
        environment = {name: value for name, value in os.environ.items() if not name.startswith("PG")}
        result = subprocess.run(
            command,
            cwd=self._directory(),  # readable by the postgres user, unlike the caller's directory maybe
            env=environment,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=COMMAND_SECONDS,
            check=False,
        )
        if result.returncode != 0:
            output = (result.stdout + result.stderr).strip()
            raise RuntimeError(f"{' '.join(command)} failed (exit status {result.returncode}):\n{output}")
