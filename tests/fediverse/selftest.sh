#!/usr/bin/env bash
# Self-test of peer.mjs without podhost: two Fedify peers (A and B) and a refusing stub on
# loopback, plus fake-podhost.mjs (a stand-in for podhost written from its contract, without
# Fedify), driven through the control API as the Rust test drives one peer against podhost.
# A is started with `--podhost <B> --podhost <fake>`, so it does WebFinger over plain http to
# both.  A<->B checks Fedify against Fedify (signing, verifying, forging, double-knocking);
# A<->fake checks the podhost flow (Service actor by handle, Accept and Create signed
# draft-cavage by a non-Fedify signer, the episode attachment).  Exits non-zero on any failure;
# the last line is "N passed, N failed".
#
#   tests/fediverse/selftest.sh            (installs node_modules with `npm ci` if missing)
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -d node_modules/@fedify/fedify ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "${KEEP_SELFTEST_LOGS:-}" ]; then echo "logs kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# start_peer NAME ARGS...: starts a peer on a free port and waits for its ready line; sets
# $peer_url.  (Not run in a $(...) subshell, so that its pid reaches `pids` and gets cleaned up.)
start_peer() {
  local name="$1"
  shift
  node peer.mjs --port 0 "$@" >"$work/$name.out" 2>"$work/$name.err" &
  local pid="$!"
  pids+=("$pid")
  for _ in $(seq 600); do
    if [ -s "$work/$name.out" ]; then
      read -r word peer_url <"$work/$name.out" || true
      if [ "$word" = ready ]; then return 0; fi
    fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  echo "peer $name did not become ready; its stderr:" >&2
  cat "$work/$name.err" >&2
  return 1
}

# A stand-in for podhost (fake-podhost.mjs), written from podhost's contract without Fedify.
node fake-podhost.mjs >"$work/fake.out" 2>"$work/fake.err" &
pids+=("$!")
for _ in $(seq 100); do [ -s "$work/fake.out" ] && break; sleep 0.1; done
read -r _ F <"$work/fake.out" || true

start_peer b
B="$peer_url"
start_peer a --podhost "$B" --podhost "$F"
A="$peer_url"
echo "peer A: $A   peer B: $B   fake podhost: $F"

status=0
A="$A" B="$B" F="$F" node --input-type=module - <<'EOF' || status=$?
const { A, B, F } = process.env;
let passed = 0, failed = 0;
function check(name, cond, detail) {
  if (cond) { passed++; console.log(`ok   ${name}`); }
  else { failed++; console.log(`FAIL ${name}${detail === undefined ? "" : `: ${JSON.stringify(detail).slice(0, 600)}`}`); }
}
async function call(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { http: res.status, json: await res.json() };
}
const post = (base, path, body) => call(base, "POST", path, body);
const get = (base, path) => call(base, "GET", path);

const infoB = (await get(B, "/control/info")).json;
const bListener = infoB.actors.listener.id;
const bHost = new URL(B).host;

// 1. WebFinger + signed fetch of the actor, through a handle with a port.
const lookup = await post(A, "/control/lookup", { handle: `@listener@${bHost}` });
check("lookup @listener@host:port resolves B's actor", lookup.http === 200 && lookup.json.id === bListener, lookup.json);
check("lookup gives inbox, sharedInbox, followers, outbox, publicKeyId",
  lookup.json.inbox === infoB.actors.listener.inbox && lookup.json.sharedInbox === infoB.sharedInbox &&
  lookup.json.followers === infoB.actors.listener.followers && lookup.json.outbox === `${bListener}/outbox` &&
  lookup.json.publicKeyId === infoB.actors.listener.keyId && lookup.json.type === "Person", lookup.json);
const outA = (await get(A, "/control/outbound")).json.requests;
const wf = outA.find((r) => r.url.includes("/.well-known/webfinger"));
check("WebFinger went to http:// (shim) unsigned", wf?.url.startsWith(`${B}/.well-known/webfinger?resource=acct%3Alistener%40`) && wf.spec === null && wf.status === 200, wf);
const actorGet = outA.find((r) => r.method === "GET" && r.url === bListener);
check("actor fetch was signed (RFC 9421 first knock) as A's listener", actorGet?.spec === "rfc9421" && actorGet.keyId === (await get(A, "/control/info")).json.actors.listener.keyId && actorGet.status === 200, actorGet);
const byId = await post(A, "/control/lookup", { handle: bListener });
check("lookup by actor id works too", byId.http === 200 && byId.json.id === bListener, byId.json);
const missing = await post(A, "/control/lookup", { handle: `@nobody@${bHost}` });
check("lookup of an unknown handle is a 500 {error}", missing.http === 500 && typeof missing.json.error === "string", missing.json);

// 2. Follow: B records it (verified) and answers with Accept, which A records.
const follow = await post(A, "/control/follow", { actor: bListener });
check("follow is delivered (2xx)", follow.http === 200 && follow.json.status === 202 && follow.json.ok, follow.json);
let recB = (await get(B, "/control/received")).json;
const fB = recB.activities.find((a) => a.type === "Follow");
check("B's inbox listener saw the Follow, verified, with A's actor", fB?.id === follow.json.id && fB.verified === true && fB.actor === `${A}/users/listener` && fB.objectId === bListener, fB);
let recA = (await get(A, "/control/received")).json;
const acc = recA.activities.find((a) => a.type === "Accept");
check("A's inbox listener saw B's Accept of that Follow", acc?.objectId === follow.json.id && acc.actor === bListener && acc.objectType === "Follow", acc);
check("B lists A's listener as follower", (await get(B, "/control/followers")).json.listener.includes(`${A}/users/listener`));
const spec = (await get(A, `/control/signature-spec?origin=${encodeURIComponent(B)}`)).json;
check("A remembered RFC 9421 for B's origin", spec.spec === "rfc9421", spec);

// 3. Reply, Like, Announce from A to B's listener.
const target = `${bListener}/notes/episode-1`;
const reply = await post(A, "/control/reply", { to: bListener, inReplyTo: target, content: "<p>hi</p>", as: "listener" });
check("reply delivered (202)", reply.http === 200 && reply.json.status === 202 && reply.json.ok, reply.json);
recB = (await get(B, "/control/received")).json;
const cB = recB.activities.find((a) => a.id === reply.json.activity);
check("B saw Create(Note) with inReplyTo, content and addressing", cB?.type === "Create" && cB.objectType === "Note" && cB.objectId === reply.json.note && cB.inReplyTo === target && cB.content === "<p>hi</p>" && cB.to.includes("https://www.w3.org/ns/activitystreams#Public") && cB.to.includes(bListener) && cB.cc.includes(`${A}/users/listener/followers`), cB);
check("the Create carries an integrity proof and an LD signature", cB?.raw?.proof?.cryptosuite === "eddsa-jcs-2022" && cB.raw.signature?.type === "RsaSignature2017", cB?.raw);
const note = await post(B, "/control/lookup-object", { uri: reply.json.note });
check("the reply Note is dereferenceable (signed lookup-object)", note.json.found === true && note.json.type === "Note" && note.json.inReplyTo === target && note.json.attributedTo === `${A}/users/listener`, note.json);
check("lookup-object of a missing object is {found:false}", (await post(B, "/control/lookup-object", { uri: `${A}/users/listener/notes/nope` })).json.found === false);
const like = await post(A, "/control/like", { to: bListener, object: target });
const announce = await post(A, "/control/announce", { to: bListener, object: target });
recB = (await get(B, "/control/received")).json;
check("B saw the Like", like.json.status === 202 && recB.activities.some((a) => a.type === "Like" && a.id === like.json.activity && a.objectId === target), like.json);
check("B saw the Announce", announce.json.status === 202 && recB.activities.some((a) => a.type === "Announce" && a.id === announce.json.activity && a.objectId === target), announce.json);
const undoLike = await post(A, "/control/undo", { to: bListener, activity: like.json.activity });
recB = (await get(B, "/control/received")).json;
check("B saw Undo(Like)", undoLike.json.status === 202 && recB.activities.some((a) => a.type === "Undo" && a.objectId === like.json.activity && a.objectType === "Like"), undoLike.json);

// 4. Broken signatures: a real Fedify inbox refuses them with 401, and records nothing.
let before = recB.activities.length;
for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"]) {
  const control = await post(A, "/control/forged", { to: bListener, inReplyTo: target, spec, tamper: "none" });
  check(`the same raw signed Create untampered (${spec}) is accepted (control)`, control.http === 200 && control.json.status === 202, control.json);
  for (const tamper of ["body", "signature"]) {
    const r = await post(A, "/control/forged", { to: bListener, inReplyTo: target, spec, tamper });
    check(`forged (${spec}, ${tamper} altered) refused with 401`, r.http === 200 && r.json.status === 401, r.json);
  }
  const m = await post(A, "/control/mismatch", { to: bListener, inReplyTo: target, spec });
  check(`mismatch (${spec}: actor listener, impostor's key) refused with 401`, m.http === 200 && m.json.status === 401 && /do not match/.test(m.json.body) && m.json.keyId.endsWith("/users/impostor#main-key"), m.json);
}
recB = (await get(B, "/control/received")).json;
const got = recB.activities.slice(before);
check("only the 2 untampered controls reached an inbox listener", got.length === 2 && got.every((a) => a.type === "Create" && a.content === "<p>signed raw</p>" && a.signature.keyId.endsWith("/users/listener#main-key")), got);
check("B recorded the 6 refusals in `rejected`", recB.rejected.length === 6 && recB.rejected.every((r) => r.status === 401 && r.type === "Create"), recB.rejected);

// 5. A reply as impostor (its own, validly signed) is accepted: the key matches the actor.
const imp = await post(A, "/control/reply", { to: bListener, inReplyTo: target, as: "impostor" });
check("a reply signed by its own actor (impostor) is accepted", imp.json.status === 202 && imp.json.attempts[0].keyId.endsWith("/users/impostor#main-key"), imp.json);

// 6. A refusing inbox: sendActivity fails, double-knocks, and the status is reported.
const refused = await post(A, "/control/reply", { to: `${F}/ap/podcasts/refuse`, inReplyTo: target });
const posts = (refused.json.attempts ?? []).filter((x) => x.method === "POST");
check("reply to a refusing inbox reports status 401 and ok:false", refused.http === 200 && refused.json.status === 401 && refused.json.ok === false, refused.json);
check("Fedify double-knocked: RFC 9421 first, then draft-cavage", posts.length === 2 && posts[0].spec === "rfc9421" && posts[1].spec === "draft-cavage-http-signatures-12", posts);
const refusedFollow = await post(A, "/control/follow", { actor: `${F}/ap/podcasts/refuse` });
check("follow to a refusing inbox is a 500 {error, status}", refusedFollow.http === 500 && refusedFollow.json.status === 401 && /401/.test(refusedFollow.json.error), refusedFollow.json);

// 7. Unfollow.
const unfollow = await post(A, "/control/unfollow", { actor: bListener, follow: follow.json.id });
recB = (await get(B, "/control/received")).json;
check("B saw Undo(Follow) and dropped the follower", unfollow.json.status === 202 && recB.activities.some((a) => a.type === "Undo" && a.objectId === follow.json.id) && (await get(B, "/control/followers")).json.listener.length === 0, unfollow.json);


// 8. Against the fake podhost: the podhost flow, with a signer that is not Fedify.
const show = await post(A, "/control/lookup", { handle: `@show@${new URL(F).host}` });
check("lookup @show@fake resolves the Service actor with the podhost fields",
  show.http === 200 && show.json.id === `${F}/ap/podcasts/show` && show.json.type === "Service" &&
  show.json.name === "The Show" && show.json.sharedInbox === `${F}/ap/inbox` &&
  show.json.featured === `${F}/ap/podcasts/show/featured` && show.json.icon === `${F}/media/show.png` &&
  show.json.url === `${F}/shows/show` && show.json.publicKeyId === `${F}/ap/podcasts/show#main-key`, show.json);
await post(A, "/control/reset", {});
const followShow = await post(A, "/control/follow", { actor: show.json.id });
check("follow of the show delivered", followShow.http === 200 && followShow.json.status === 202, followShow.json);
async function waitFor(pred, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    const rec = (await get(A, "/control/received")).json;
    const hit = rec.activities.find(pred);
    if (hit != null || Date.now() > end) return { hit, rec };
    await new Promise((r) => setTimeout(r, 100));
  }
}
let w = await waitFor((a) => a.type === "Accept");
check("the show's draft-cavage signed Accept was verified and recorded", w.hit?.actor === show.json.id && w.hit.objectId === followShow.json.id && w.hit.signature?.spec === "draft-cavage-http-signatures-12" && w.hit.signature.keyId === show.json.publicKeyId && w.hit.inbox === "listener", w.rec);
const published = (await post(F, "/fake/publish", {})).json;
check("the fake delivered the episode Create to A's shared inbox (202)", published.results?.length === 1 && published.results[0].inbox === `${A}/inbox` && published.results[0].status === 202, published);
w = await waitFor((a) => a.type === "Create");
const ep = `${F}/ap/podcasts/show/episodes/ep1`;
check("A recorded the Create(Note) with its audio attachment", w.hit?.id === `${ep}/activity` && w.hit.inbox === "shared" && w.hit.objectId === ep && w.hit.objectType === "Note" && w.hit.url === `${F}/shows/show/episodes/ep1` && w.hit.attachment.length === 1 && w.hit.attachment[0].type === "Document" && w.hit.attachment[0].mediaType === "audio/mpeg" && w.hit.attachment[0].url === `${F}/media/ep1.mp3` && w.hit.attachment[0].duration === "PT42M", w.hit);
const forgedPub = (await post(F, "/fake/publish", { forge: true })).json;
const recAfter = (await get(A, "/control/received")).json;
check("a Create whose body changed after signing is refused (401) and listed in rejected", forgedPub.results?.[0]?.status === 401 && recAfter.activities.filter((a) => a.type === "Create").length === 1 && recAfter.rejected.some((r) => r.status === 401 && r.inbox === "shared" && r.actor === show.json.id), { forgedPub, rejected: recAfter.rejected });
const epObj = await post(A, "/control/lookup-object", { uri: ep });
check("lookup-object of the episode Note (signed GET)", epObj.json.found === true && epObj.json.type === "Note" && epObj.json.attributedTo === show.json.id && epObj.json.attachment[0]?.mediaType === "audio/mpeg" && epObj.json.inReplyTo === null, epObj.json);
const replyShow = await post(A, "/control/reply", { to: show.json.id, inReplyTo: ep, content: "<p>Loved it</p>" });
const fakeGot = (await get(F, "/fake/received")).json.received;
const gotReply = fakeGot.find((x) => x.activity?.id === replyShow.json.activity);
check("the reply reached the show's own inbox, RFC 9421 signed on the first knock", replyShow.json.status === 202 && gotReply?.inbox === "/ap/podcasts/show/inbox" && gotReply.signatureInput != null && gotReply.activity.object.inReplyTo === ep, { replyShow: replyShow.json, gotReply });

// 9. Control API errors.
const bad = await post(A, "/control/reply", { to: bListener });
check("a missing field is a 500 {error}", bad.http === 500 && /inReplyTo/.test(bad.json.error), bad.json);

console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
EOF

# stdout of each peer carries only the ready line.
for name in a b fake; do
  if [ "$(wc -l <"$work/$name.out")" -ne 1 ]; then
    echo "FAIL peer $name printed more than its ready line on stdout:" >&2
    cat "$work/$name.out" >&2
    status=1
  fi
done
if [ "$status" -ne 0 ]; then
  for name in a b fake; do
    echo "--- peer $name stderr (last 40 lines)" >&2
    tail -n 40 "$work/$name.err" >&2
  done
fi
exit "$status"
