"""``payments-emulator``: the command line."""

from __future__ import annotations

import argparse
import gc
import socket
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from emulator import __version__
from emulator.cli import deliveries as cli_deliveries
from emulator.cli import flows as cli_flows
from emulator.cli import holds as cli_holds
from emulator.cli import listen as cli_listen
from emulator.cli import receiver as cli_receiver
from emulator.cli import state as cli_state
from emulator.cli import trigger as cli_trigger
from emulator.cli import verbs as cli_verbs
from emulator.cli import verify as cli_verify
from emulator.cli.client import client_parent, usage_failure
from emulator.cli.client import run as run_client
from emulator.cli.serve_options import serve_flags, settings_from

if TYPE_CHECKING:  # the server's modules: imported when `serve` runs (a verb starts without)
    from emulator.runtime.settings import Settings
    from emulator.serving.startup import DatabaseState


class UsageProblem(Exception):
    """argparse found a usage error: one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse, with its usage errors as one line (``main`` prints it) instead of the usage
    text and the error; the verbs' parsers are of this class too."""

    deepest: str | None = None  # the prog of the last (sub)parser that parsed: the verb's

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        Parser.deepest = self.prog
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        raise UsageProblem(f"{message} (see {Parser.deepest or self.prog} --help)")


def _parser(serving: bool = True) -> argparse.ArgumentParser:
    """The parser; ``serving``: with the flags of ``serve`` (their defaults come from the
    server's settings: a client verb does not import them)."""
    parser = Parser(
        prog="payments-emulator",
        description="Sandbox emulator of a payments gateway (/api/v1) and bank collections (/v2).",
        # --url, --admin-token and --json before the verb too (`payments-emulator --json clock`)
        parents=[client_parent()],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve both interfaces and the control plane")
    if serving:
        serve_flags(serve)
    scenario = commands.add_parser("scenario", help="check or list scenario files")
    actions = scenario.add_subparsers(dest="action", required=True)
    validate = actions.add_parser("validate", help="check scenario files (exit 1 if any is bad)")
    validate.add_argument("files", nargs="+", type=Path, metavar="FILE")
    actions.add_parser("list", help="list the shipped scenarios")
    cli_verbs.add_scenario_actions(actions)
    cli_verbs.add_commands(commands)
    cli_trigger.add_command(commands)
    cli_listen.add_command(commands)
    cli_deliveries.add_command(commands)
    cli_verify.add_command(commands)
    cli_receiver.add_command(commands)
    cli_state.add_commands(commands)
    cli_holds.add_command(commands)
    cli_flows.add_command(commands)
    return parser


def banner(settings: Settings, state: DatabaseState | None = None) -> str:
    from emulator.resources import default_merchant
    from emulator.serving import options as serve_options
    from emulator.serving.startup import clock_lines, inspect_database

    seed = default_merchant()
    url = settings.base_url
    lines = [
        f"payments-emulator {__version__} on {url}",
        f"  gateway       {url}/api/v1/",
        f"  bank (v2)     {url}/v2/",
        f"  oauth2 token  {url}/oauth2/token",
        f"  control plane {url}/_emulator/",
        *clock_lines(settings, state or inspect_database(settings.db_path)),
        "default merchant:",
        f"  company_id     {seed.company_id}",
        f"  brand_id       {seed.brands[0].id}",
        f"  api_key        {seed.api_key}",
        f"  production key {seed.production_api_key} (always invalid_token: this is a sandbox)",
        f"  client_id      {seed.client_id}",
        f"  client_secret  {seed.client_secret}",
        f"  profiles       {', '.join(p.profileCode for p in seed.profiles)}",
    ]
    if settings.scenarios:
        lines.append(f"scenarios active: {', '.join(settings.scenarios)}")
    if settings.rate_limit is not None:
        lines.append(
            f"rate limit: {settings.rate_limit.limit} requests per merchant per"
            f" {settings.rate_limit.window_seconds} s"
        )
    lines += serve_options.banner_lines(settings)
    if settings.admin_token is not None:
        lines.append(f"admin token (control plane): {settings.admin_token}")
    return "\n".join(lines)


def tune_gc() -> None:
    """Garbage collection for a long-running server: what exists at start (modules, the app)
    is moved out of the collector's way, and young collections run less often. Each request
    allocates many short-lived objects; with the default threshold (700) the collector ran on
    almost every request and took ~9% of the event loop's time under load. No full collection
    first: it walked every object the imports made, on the way to the first answer, to free
    the few cycles they leave (some 1,400 objects, 160 KB), which stay frozen instead."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    # And the GIL: while the writer's thread runs a long advance in Python, the event loop
    # waits for the GIL at each wake-up up to the switch interval (5 ms by default), which made
    # other merchants' requests wait several of them. 0.5 ms bounds that wait.
    sys.setswitchinterval(0.0005)


def without_httpx_cli() -> None:
    """httpx imports its own command line when rich, pygments and click are installed (a sixth
    of what serve imported before its first answer); the server never runs it. An empty module
    takes its place before httpx is first imported: httpx then falls back as it does when they
    are not installed (its ``httpx.main`` says to install ``httpx[cli]``)."""
    if "httpx" not in sys.modules:
        stub = types.ModuleType("httpx._main")
        sys.modules.setdefault("httpx._main", stub)


SHUTDOWN_GRACE = 5  # seconds open requests get to finish once the server is told to stop


def refuse_if_in_use(db_path: Path) -> None:
    """Say so before the banner when another emulator holds the file (the runtime would
    refuse it anyway, from inside uvicorn's startup, with a traceback)."""
    from emulator.kernel.dbfile import FileLock

    if str(db_path) != ":memory:" and db_path.parent.is_dir():
        lock = FileLock(db_path)
        lock.acquire()
        lock.release()


def serve(settings: Settings, log_level: str = "info", sock: socket.socket | None = None) -> int:
    """Serve until stopped; the exit code. ``sock``: the listening socket, already bound (the
    port is checked before anything is created); bound here when not given."""
    import uvicorn

    from emulator.http.protocol import JoinedWritesProtocol
    from emulator.runtime.runtime import Runtime
    from emulator.serving import memory
    from emulator.serving import options as serve_options
    from emulator.serving.app import create_app
    from emulator.serving.logs import server_options
    from emulator.serving.startup import bind, inspect_database, start_warning

    sock = sock or bind(settings)
    settings = serve_options.make_certificate(settings)
    state = inspect_database(settings.db_path)
    print(banner(settings, state), flush=True)
    if (warning := start_warning(settings, state)) is not None:
        print(f"payments-emulator: {warning}", file=sys.stderr, flush=True)
    app = create_app(Runtime(settings))
    tune_gc()
    memory.tune_allocator()
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        loop="auto",
        http=JoinedWritesProtocol,
        lifespan="on",
        # A client stalled in the middle of a request must not keep a stopping server alive
        # (and skip the shutdown that saves the clock and the journal) for ever.
        timeout_graceful_shutdown=SHUTDOWN_GRACE,
        ssl_certfile=None if settings.tls_cert is None else str(settings.tls_cert),
        ssl_keyfile=None if settings.tls_key is None else str(settings.tls_key),
        **server_options(log_level),
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0 if server.started else 3  # 3: uvicorn's own code for a failed start


def scenario_command(args: argparse.Namespace) -> int:
    from emulator.scenarios import library
    from emulator.scenarios.rules import InvalidScenario

    if args.action == "list":
        for name, scenario in sorted(library.shipped().items()):
            print(f"{name}: {scenario.description}")
        return 0
    bad = 0
    for path in args.files:
        try:
            scenario = library.read_file(path)
        except InvalidScenario as exc:
            print(f"{exc}", file=sys.stderr)
            bad += 1
            continue
        n = len(scenario.rules)
        print(f"{path}: ok ({scenario.name}, {n} rule{'' if n == 1 else 's'})")
        for note in scenario.notes:  # an older form, still read: what is preferred now
            print(f"{path}: note: {note}")
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser(serving="serve" in words).parse_args(words)
    except UsageProblem as exc:
        return usage_failure("--json" in words, str(exc))
    if getattr(args, "handler", None) is not None:  # a verb for a running emulator
        return run_client(args.handler, args)
    if args.command == "scenario":
        return scenario_command(args)
    if args.command == "flow":
        return cli_flows.check_command(args)
    if args.command == "serve":
        without_httpx_cli()
        from emulator.kernel.dbfile import DatabaseInUse
        from emulator.serving.startup import bind

        sock: socket.socket | None = None
        try:
            settings = settings_from(args)
            sock = bind(settings)  # before the database is created or the banner printed
            refuse_if_in_use(settings.db_path)
        except (ValueError, DatabaseInUse) as exc:
            if sock is not None:
                sock.close()
            print(f"payments-emulator: {exc}", file=sys.stderr)
            return 2
        return serve(settings, settings.log_level, sock)
    return 0
