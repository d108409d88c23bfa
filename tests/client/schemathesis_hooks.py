"""schemathesis hooks for scripts/api-clients (loaded through SCHEMATHESIS_HOOKS).

The fixtures. The document gives each path parameter an example (`feed_id` "f", `show_id`
"pod-1", `media_id` 1); schemathesis starts from those, so before the run the server gets what
they name: the podcast "f" with the episode "pod-1", and the media file 1. Without them every
case built on an example is a 404 that reaches no logic.

Keeping them. A delete of a fixture, or of the token the run authenticates with (schemathesis
learns its id from `GET /api/tokens`, and the API rightly lets a token revoke itself), or a
change of the member that token acts as (the account's founder, listed by `GET /api/members`:
restricted to one podcast, it would see no other), would leave the rest of the run 404 or 401. Such a call is sent for a well-formed id that names
nothing instead: the operation is still exercised (a 404), and its success is exercised on what
the run creates itself (the document's links lead from each create to its delete).

Environment: PODHOST_BASE (the server's URL), PODHOST_TOKEN (the run's token).
"""

import io
import json
import os
import re
import urllib.error
import urllib.request
import uuid

import schemathesis
from audio import tone

BASE = os.environ["PODHOST_BASE"].rstrip("/")
TOKEN = os.environ["PODHOST_TOKEN"]
# A token is `phk_<id>_<secret>`; its id in the API is `tok_<id>`.
OWN_TOKEN_ID = "tok_" + TOKEN.split("_")[1]


def call(method, path, body=None, content_type="application/json"):
    if isinstance(body, dict):
        body = json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=body, method=method)
    request.add_header("Authorization", f"Bearer {TOKEN}")
    if body is not None:
        request.add_header("Content-Type", content_type)
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


def multipart(texts, files):
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, value in texts.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (file_name, mime, data) in files.items():
        out.write(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{file_name}"\r\n'
            f"Content-Type: {mime}\r\n\r\n".encode()
        )
        out.write(data + b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def examples():
    """Each path parameter's example in the document the server serves."""
    with urllib.request.urlopen(BASE + "/api/openapi.json") as answer:
        document = json.load(answer)
    found = {}
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                if parameter["in"] == "path" and "example" in parameter:
                    found[parameter["name"]] = str(parameter["example"])
    return found


def exists(path):
    try:
        call("GET", path)
        return True
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return False
        raise


def make_fixtures():
    """Makes what the examples name, unless an earlier run on this server did."""
    named = examples()
    feed, show, media = named["feed_id"], named["show_id"], named["media_id"]
    if not exists(f"/api/media/{media}"):
        body, content_type = multipart({}, {"media": ("fixture.wav", "audio/wav", tone())})
        made = call("POST", "/api/media", body, content_type)
        assert str(made["id"]) == media, f"the first upload is media {made['id']}, the example {media}"
    if not exists(f"/api/feeds/{feed}"):
        call("POST", "/api/feeds", {"id": feed, "title": "The fixture podcast"})
        body, content_type = multipart({"title": "The fixture episode", "show_media": media}, {})
        made = call("POST", f"/api/feed/{feed}/show", body, content_type)["data"]
        assert made["id"] == show, f"the first episode is {made['id']}, the example {show}"
    # A video, for the routes that take one (packaging for HLS): a media id of the example's
    # type would name the audio file, which they rightly refuse (422).
    clip = os.path.join(os.path.dirname(__file__), "../../podhost-core/tests/fixtures/h264_aac.mp4")
    with open(clip, "rb") as file:
        body, content_type = multipart({}, {"media": ("fixture.mp4", "video/mp4", file.read())})
    video = str(call("POST", "/api/media", body, content_type)["id"])
    founder = next(
        m["id"] for m in call("GET", "/api/members")["data"] if m["role"] == "owner" and m["status"] == "active"
    )
    return {
        "/api/members/{member_id}": {"member_id": founder},
        "/api/feeds/{feed_id}": {"feed_id": feed},
        "/api/feed/{feed_id}/show/{show_id}": {"feed_id": feed, "show_id": show},
        "/api/media/{media_id}": {"media_id": media},
        "/api/tokens/{token_id}": {"token_id": OWN_TOKEN_ID},
    }, video


def feed_id_pattern():
    """The pattern of a podcast's id, as the document states it."""
    with urllib.request.urlopen(BASE + "/api/openapi.json") as answer:
        document = json.load(answer)
    create = document["paths"]["/api/feeds"]["post"]["requestBody"]["content"]["application/json"]
    name = create["schema"]["$ref"].rsplit("/", 1)[-1]
    return re.compile(document["components"]["schemas"][name]["properties"]["id"]["pattern"])


FEED_ID = feed_id_pattern()


def login_pattern():
    """The pattern of a login, as the document states it."""
    with urllib.request.urlopen(BASE + "/api/openapi.json") as answer:
        document = json.load(answer)
    invite = document["paths"]["/api/members"]["post"]["requestBody"]["content"]["application/json"]
    name = invite["schema"]["$ref"].rsplit("/", 1)[-1]
    return re.compile(document["components"]["schemas"][name]["properties"]["login"]["pattern"])


LOGIN = login_pattern()
# A delete whose path parameters are all these is a delete of a fixture.
KEPT, VIDEO = make_fixtures()
# The routes whose `id` is a video's, and the example media id they are sent instead of it.
VIDEO_ROUTES = {"/api/generate/hls/{id}"}
EXAMPLE_MEDIA = examples().get("id", examples()["media_id"])
# Well-formed ids that name nothing, by parameter.
NOTHING = {
    "feed_id": "no-such-podcast",
    "show_id": "pod-9007199254740991",
    "media_id": "9007199254740991",
    "token_id": "tok_" + "z" * 16,
    "member_id": "mem_" + "z" * 16,
}


@schemathesis.hook
def before_call(context, case, kwargs):
    kept = KEPT.get(case.operation.path)
    parameters = case.path_parameters or {}
    if (
        (case.method.upper() == "DELETE" or case.operation.path == "/api/members/{member_id}" and case.method.upper() == "PUT")
        and kept is not None
        and all(str(parameters.get(name)) == value for name, value in kept.items())
    ):
        for name in kept:
            parameters[name] = NOTHING[name]
    # The example media file is audio: a video route gets the fixture video in its place.
    if case.operation.path in VIDEO_ROUTES and str(parameters.get("id")) == EXAMPLE_MEDIA:
        parameters["id"] = VIDEO
    # A key schemathesis makes up is often a short one ("0") it uses again for other
    # requests, which the API rightly refuses (422: a key names one request). A valid key
    # becomes a fresh one, so that each request is its own; an invalid one is kept, so that
    # its refusal is still checked.
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if isinstance(key, str) and re.fullmatch(r"[!-~]{1,255}", key):
        headers["Idempotency-Key"] = uuid.uuid4().hex
    # Likewise a podcast's id: ids are the deployment's, and schemathesis makes up few of them
    # ("0", the example "my-show") and sends them again and again, so nearly every create after
    # the first was a 409 and what the document links from a new podcast (its episodes, its
    # subscribers, its stats, its deletion) was reached by luck. A valid id gets a fresh suffix;
    # an invalid one is kept, so that its refusal is still checked.
    body = case.body
    if (
        case.method.upper() == "POST"
        and case.operation.path == "/api/feeds"
        and isinstance(body, dict)
        and isinstance(body.get("id"), str)
        and FEED_ID.fullmatch(body["id"])
    ):
        body["id"] = body["id"][:80] + "-" + uuid.uuid4().hex[:12]
    # Likewise a member's login: a valid one gets a fresh part, so an invitation is not refused
    # for a login invited before (409).
    if (
        case.method.upper() == "POST"
        and case.operation.path == "/api/members"
        and isinstance(body, dict)
        and isinstance(body.get("login"), str)
        and LOGIN.fullmatch(body["login"])
    ):
        fresh = uuid.uuid4().hex[:12]
        local, at, domain = body["login"].partition("@")
        body["login"] = f"{local[:40]}-{fresh}{at}{domain}" if at else f"{local[:40]}-{fresh}"


# What a refusal a person reads must not contain: podhost-testkit's rules, one file for the Rust
# tests and this run (each line a name, a tab, an expression).
REFUSAL_RULES = [
    (name, re.compile(pattern))
    for name, pattern in (
        line.split("\t", 1)
        for line in open(os.path.join(os.path.dirname(__file__), "..", "..", "podhost-testkit", "src", "refusal_rules.txt"), encoding="utf-8")
        .read()
        .splitlines()
        if line and not line.startswith("#")
    )
]


@schemathesis.check
def refusal_reads_as_a_sentence(ctx, response, case):
    """Each 4xx answer's message (and each field's) reads as a sentence: no debug form of a type,
    no template hole, no plural after one, no schema text or source path; never empty."""
    if response.status_code < 400 or response.status_code >= 500:
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    texts = []
    # The API's message, and OAuth's error_description (RFC 6749).
    for key in ("message", "error_description"):
        if isinstance(body.get(key), str):
            texts.append(body[key])
    for field, messages in (body.get("errors") or {}).items():
        for message in messages if isinstance(messages, list) else []:
            texts.append(f"{field}: {message}")
    if not texts:
        raise AssertionError(f"a {response.status_code} without a message: {body}")
    for text in texts:
        if not text.strip():
            raise AssertionError(f"an empty message in {body}")
        for name, rule in REFUSAL_RULES:
            found = rule.search(text)
            if found:
                raise AssertionError(f"{name} ({found.group(0)!r}) in the refusal {text!r}")
    return None
