"""Running a flow over HTTP against an emulator (a URL, or the app in process through httpx's
ASGI transport), on a fresh merchant of its own per run (made through the control plane with
its clock, deleted at the end unless kept), so runs in parallel never see each other.

Gateway calls carry the merchant's API key, bank calls an OAuth token of its client
credentials (a new one after a 401), control calls the admin token when there is one. Each
step gives a ``StepResult``: outcome, milliseconds, the merchant's instant after it, and on
failure the request and answer or the expectations' report. A failed step stops its run
unless it says ``continue_on_failure: true``; the steps after it are skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
import msgspec

from emulator.flows import moves
from emulator.flows.model import Act, Flow, Step
from emulator.flows.moves import Move
from emulator.flows.references import ReferenceProblem, resolve
from emulator.flows.report import Report, StepResult

OnStep = Callable[[Report, StepResult], None]


class StepFailed(Exception):
    def __init__(
        self,
        message: str,
        request: dict[str, Any] | None = None,
        answer: dict[str, Any] | None = None,
        report: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.request, self.answer, self.report = request, answer, report


class RunFailed(Exception):
    """The run could not go on (its merchant could not be made, say)."""


class Runner:
    """Runs flows through ``http`` (its ``base_url`` the emulator); ``on_step`` hears each
    result as it comes."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        admin_token: str | None = None,
        *,
        keep: bool = False,
        on_step: OnStep | None = None,
        url: str | None = None,
    ) -> None:
        """``url``: the emulator's own address as its deliveries reach it (``${run.url}``;
        ``http``'s base URL by default)."""
        self.http, self.keep, self.on_step = http, keep, on_step
        self.url = (url or str(http.base_url)).rstrip("/")
        self.admin = {"Authorization": f"Bearer {admin_token}"} if admin_token else {}

    async def run(self, flow: Flow, run_id: str, report: Report | None = None) -> Report:
        """One run of ``flow``; ``report`` (when given) is filled in as the run goes."""
        report = report or Report(id=run_id, flow=flow.name, source=flow.source)
        started = time.perf_counter()
        run = _Run(self, flow, report)
        try:
            await run.start()
            await run.block(flow.spec.steps, "steps", [])
        except RunFailed as exc:
            report.error = str(exc)
        except httpx.HTTPError as exc:
            report.error = f"the emulator did not answer: {exc!r}"
        finally:
            await run.finish()
            report.ms = round((time.perf_counter() - started) * 1000, 1)
        failed = report.error is not None or any(s.outcome == "failed" for s in report.steps)
        report.state = "failed" if failed else "passed"
        return report


class _Run:
    def __init__(self, runner: Runner, flow: Flow, report: Report) -> None:
        self.runner, self.flow, self.report = runner, flow, report
        self.http = runner.http
        self.merchant: dict[str, Any] = {}
        self.scope: dict[str, Any] = {"run": {"id": report.id, "url": runner.url}}
        self.token: str | None = None
        self.owned = False
        self.stopped = False

    # -- the merchant ------------------------------------------------------------------------

    async def start(self) -> None:
        spec = self.flow.spec.merchant
        if spec is not None and spec.use is not None:
            answer = await self.control("GET", "/_emulator/merchants")
            found = [m for m in answer.get("merchants", []) if m.get("company_id") == spec.use]
            if not found:
                raise RunFailed(f"merchant.use: no merchant {spec.use!r} on this emulator")
            self.merchant = found[0]
        else:
            clock: dict[str, Any] = {"mode": "frozen"}
            if spec is not None and spec.clock is not None:
                clock = {"mode": spec.clock.mode, "now": spec.clock.now}
            elif spec is not None and spec.start is not None:
                clock["now"] = spec.start
            name = (spec.name if spec is not None else None) or f"flow {self.flow.name}"
            body = {"name": name[:128], "clock": {k: v for k, v in clock.items() if v}}
            self.merchant = await self.control("POST", "/_emulator/merchants", body)
            self.owned = True
        self.report.merchant = str(self.merchant["company_id"])
        self.scope["merchant"] = self.merchant
        for name in self.flow.spec.scenarios:
            path = f"/_emulator/scenarios/{moves.segment(name)}/activate"
            await self.control("POST", path, {"merchant": self.report.merchant})

    async def finish(self) -> None:
        company_id = self.report.merchant
        if company_id is None:
            return
        try:
            if self.owned and not self.runner.keep:
                await self.control("DELETE", moves.merchant_path(company_id))
            else:
                self.report.kept = self.owned
                for name in self.flow.spec.scenarios:
                    path = f"/_emulator/scenarios/{moves.segment(name)}/deactivate"
                    await self.control("POST", path, {"merchant": company_id})
        except (RunFailed, httpx.HTTPError) as exc:
            self.report.error = self.report.error or f"cleaning up: {exc}"

    async def control(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        response = await self.http.request(method, path, json=body, headers=self.runner.admin)
        if response.is_error:
            raise RunFailed(f"{method} {path} -> {response.status_code}: {response.text[:500]}")
        answer: dict[str, Any] = response.json()
        return answer

    # -- steps -------------------------------------------------------------------------------

    async def block(self, steps: list[Step], where: str, iteration: list[int]) -> bool:
        """Runs the steps in order; False once one failed that stops the run."""
        for index, step in enumerate(steps):
            at = f"{where}[{index}]"
            if self.stopped:
                self.result(at, step.kind, _summary(step), "skipped", iteration)
                continue
            ok = await self.step(step, at, iteration)
            if not ok and not step.continue_on_failure:
                self.stopped = True
        return not self.stopped

    async def step(self, step: Step, where: str, iteration: list[int]) -> bool:
        kind = step.kind
        if kind in ("repeat", "for_each"):
            return await self.loop(step, kind, where, iteration)
        spec = getattr(step, kind)
        started = time.perf_counter()
        summary = _summary(step)
        try:
            if kind == "call":
                await self.call(spec)
            elif kind == "act":
                await self.act(spec)
            else:
                await self.wait_or_move(kind, spec)
        except (StepFailed, ReferenceProblem) as exc:
            failed = exc if isinstance(exc, StepFailed) else StepFailed(str(exc))
            self.result(where, kind, summary, "failed", iteration, started, failed)
        else:
            self.result(where, kind, summary, "passed", iteration, started)
        result = self.report.steps[-1]
        result.instant = await self.instant()
        if self.runner.on_step is not None:
            self.runner.on_step(self.report, result)
        return result.outcome == "passed"

    async def loop(self, step: Step, kind: str, where: str, iteration: list[int]) -> bool:
        if kind == "repeat":
            items: list[Any] = list(range(int(step.repeat or 0)))
        else:
            try:
                found = resolve(step.for_each, self.scope)
            except ReferenceProblem as exc:
                self.result(where, kind, kind, "failed", iteration, None, StepFailed(str(exc)))
                return False
            if not isinstance(found, list):
                message = f"for_each: {found!r:.100} is not a list"
                self.result(where, kind, kind, "failed", iteration, None, StepFailed(message))
                return False
            items = found
        outer: dict[str, Any] = {n: self.scope[n] for n in ("i", "item") if n in self.scope}
        try:
            for i, item in enumerate(items):
                self.scope["i"] = i
                if kind == "for_each":
                    self.scope["item"] = item
                await self.block(step.steps or [], f"{where}.steps", [*iteration, i])
                if self.stopped:  # a step inside failed and stops the run, or this loop
                    self.stopped = not step.continue_on_failure
                    return False
            return True
        finally:  # an enclosing loop's i and item again
            for name in ("i", "item"):
                self.scope.pop(name, None)
            self.scope.update(outer)

    def result(
        self,
        where: str,
        kind: str,
        summary: str,
        outcome: str,
        iteration: list[int],
        started: float | None = None,
        failed: StepFailed | None = None,
    ) -> None:
        ms = 0.0 if started is None else round((time.perf_counter() - started) * 1000, 2)
        result = StepResult(
            index=len(self.report.steps) + 1, where=where, kind=kind, summary=summary,
            outcome=outcome,  # type: ignore[arg-type]
            ms=ms, iteration=list(iteration),
        )  # fmt: skip
        if failed is not None:
            result.error, result.request = str(failed), failed.request
            result.answer, result.report = failed.answer, failed.report
        self.report.steps.append(result)
        if self.runner.on_step is not None and started is None:  # a step's waits its instant
            self.runner.on_step(self.report, result)

    async def instant(self) -> str | None:
        company_id = self.report.merchant
        if company_id is None:
            return None
        response = await self.http.get(
            moves.merchant_path(company_id, "clock"), headers=self.runner.admin
        )
        return str(response.json().get("now")) if response.status_code == 200 else None

    # -- the kinds ---------------------------------------------------------------------------

    async def call(self, spec: Any) -> None:
        path, body = resolve(spec.path, self.scope), resolve(spec.body, self.scope)
        query = resolve(spec.query, self.scope)
        move = Move(spec.api, spec.method, str(path), body, query)
        response, answer = await self.send(move)
        expected = spec.expect_status
        wanted = [expected] if isinstance(expected, int) else expected
        ok = response.is_success if wanted is None else response.status_code in wanted
        if not ok:
            what = "a 2xx" if wanted is None else " or ".join(str(s) for s in wanted)
            raise StepFailed(
                f"expected {what}, got {response.status_code}", _request(move), _answer(response)
            )
        if spec.save is not None:
            self.scope[spec.save] = answer

    async def act(self, spec: Any) -> None:
        spec = msgspec.convert(resolve(msgspec.to_builtins(spec), self.scope), Act)
        verb, move = moves.act(spec)
        if verb == "execute_payout":
            payout = await self.checked(move)
            url = payout.get("execution_url") if isinstance(payout, dict) else None
            if not isinstance(url, str):
                raise StepFailed("the payout has no execution_url", _request(move), payout)
            target = urlsplit(url)
            path = target.path + (f"?{target.query}" if target.query else "")
            move = Move("page", "POST", path, moves.payout_card(spec))
        answer = await self.checked(move)
        if spec.save is not None:
            self.scope[spec.save] = answer

    async def wait_or_move(self, kind: str, spec: Any) -> None:
        company_id = str(self.report.merchant)
        how = resolve(spec, self.scope)
        make = moves.advance if kind == "advance" else moves.expect
        move = make(company_id, how)
        answer = await self.checked(move)
        if move.path.endswith(("/verify", "/wait")) and not answer.get("ok"):
            timed = " (timed out)" if answer.get("timed_out") else ""
            raise StepFailed(
                f"the expectations do not hold{timed}", report=moves.failed_items(answer)
            )

    async def checked(self, move: Move) -> Any:
        response, answer = await self.send(move)
        if response.is_error:
            raise StepFailed(
                f"the emulator answered {response.status_code}", _request(move), _answer(response)
            )
        return answer

    async def send(self, move: Move) -> tuple[httpx.Response, Any]:
        timeout = httpx.Timeout(max(30.0, move.wait_s + 30.0))
        for attempt in (1, 2):
            headers = await self.headers(move.api, fresh=attempt == 2)
            response = await self.http.request(
                move.method, move.path, json=move.body, params=move.query, headers=headers,
                timeout=timeout,
            )  # fmt: skip
            if not (move.api == "bank" and response.status_code == 401 and attempt == 1):
                break
        try:
            answer = response.json() if response.content else None
        except ValueError:
            answer = response.text
        return response, answer

    async def headers(self, api: str, fresh: bool = False) -> dict[str, str]:
        if api == "gateway":
            return {"Authorization": f"Bearer {self.merchant['api_key']}"}
        if api == "bank":
            if self.token is None or fresh:
                self.token = await self.oauth()
            return {"Authorization": f"Bearer {self.token}"}
        return self.runner.admin if api == "control" else {}

    async def oauth(self) -> str:
        auth = (str(self.merchant["client_id"]), str(self.merchant["client_secret"]))
        response = await self.http.post(
            "/oauth2/token", auth=auth, data={"grant_type": "client_credentials"}
        )
        if response.status_code != 200:
            raise StepFailed("no OAuth token for the merchant", None, _answer(response))
        return str(response.json()["access_token"])


def _summary(step: Step) -> str:
    kind = step.kind
    return kind if kind in ("repeat", "for_each") else moves.summary(kind, getattr(step, kind))


def _request(move: Move) -> dict[str, Any]:
    found: dict[str, Any] = {"api": move.api, "method": move.method, "path": move.path}
    if move.query:
        found["query"] = move.query
    if move.body is not None:
        found["body"] = move.body
    return found


def _answer(response: httpx.Response) -> dict[str, Any]:
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text[:2000]
    return {"status": response.status_code, "body": body}
