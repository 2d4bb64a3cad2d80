"""The companion server against its own OpenAPI schema: schemathesis generates requests for
every operation, valid and invalid (negative mode: wrong types, missing and extra fields,
out-of-range values), and a real server on loopback must never answer one with a 5xx, nor
with anything but the contract's one-sentence `{"detail": …}` when it refuses.

Bounded: a few examples per operation, so the file runs in well under a minute.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from live_server import LiveServer, ThreadServer
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from companion_api.app import ServerLimits

DEMO = Path(__file__).resolve().parents[1] / "tests" / "data" / "demo_game.jsonl"
EXAMPLES = 50  # per operation and mode
BOUNDED = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                   suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with a game under way, and no rate limit (the generated requests come
    quickly, all from one address). No camera: its questions are answered in test_api."""
    limits = ServerLimits(writes_per_s=1e9, write_burst=10**9)
    with ThreadServer(tmp_path_factory.mktemp("schema"), limits=limits) as server:
        events = [json.loads(line) for line in DEMO.read_text().splitlines()[:12]]
        first = events[0]
        server.post("/api/new-game", {"heroes": first["heroes"], "deck": first["deck"]}
                    ).raise_for_status()
        for event in events[1:]:
            server.event(**event)
        yield server


def _schema(live: LiveServer, modes: list[GenerationMode]):
    schema = schemathesis.openapi.from_url(live.url + "/openapi.json")
    schema.config.generation.update(modes=modes, max_examples=EXAMPLES)
    return schema


@pytest.fixture(scope="module")
def positive(live: LiveServer):
    return _schema(live, [GenerationMode.POSITIVE])


@pytest.fixture(scope="module")
def both(live: LiveServer):
    return _schema(live, [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])


def check_answer(response, case) -> None:
    """No 5xx; a refusal is the contract's `{"detail": SENTENCE}`."""
    assert response.status_code < 500, (case.method, case.path, response.text)
    if response.status_code >= 400:
        body = json.loads(response.content)
        assert set(body) == {"detail"}, body
        assert isinstance(body["detail"], str) and "\n" not in body["detail"], body
        assert "Traceback" not in body["detail"], body


@pytest.fixture(scope="module")
def http() -> Iterator[requests.Session]:
    """One kept-alive session for every request of the file."""
    with requests.Session() as session:
        yield session


def version(live: LiveServer, http: requests.Session) -> int:
    return http.get(live.url + "/api/state", timeout=10).json()["version"]


def call(case, live: LiveServer, http: requests.Session, *, token: str | None):
    if token != live.token and case.query:
        case.query.pop("token", None)  # the schema offers the token as a query parameter too
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = case.call(base_url=live.url, session=http, headers=headers, timeout=10)
    case.validate_response(response, checks=[not_a_server_error], headers=headers)
    check_answer(response, case)
    return response


@schemathesis.pytest.from_fixture("both").parametrize()
@BOUNDED
def test_requests_with_the_token(case, live, http):
    before = version(live, http)
    response = call(case, live, http, token=live.token)
    assert response.status_code != 413  # every generated body is small
    if response.status_code >= 400:  # refused: nothing changed
        assert version(live, http) == before, (case.method, case.path, response.text)


@schemathesis.pytest.from_fixture("positive").parametrize()
@BOUNDED
def test_requests_without_the_token(case, live, http):
    before = version(live, http)
    response = call(case, live, http, token=None)
    if case.method == "POST":
        assert response.status_code in (401, 422), response.text
        assert version(live, http) == before


@schemathesis.pytest.from_fixture("positive").parametrize()
@BOUNDED
def test_requests_with_a_wrong_token(case, live, http):
    before = version(live, http)
    response = call(case, live, http, token="not-the-token")
    if case.method == "POST":
        assert response.status_code in (403, 422), response.text
        assert version(live, http) == before
