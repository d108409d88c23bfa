// Used only by selftest.sh: a minimal stand-in for podhost written from the contract in
// README.md ("What podhost serves"), with node:crypto only (no Fedify), so the self-test can
// check the peer's side of the podhost flow before podhost implements it:
//
//   WebFinger  GET /.well-known/webfinger?resource=acct:show@127.0.0.1:S
//   actor      GET /ap/podcasts/show                 (Service, RSA publicKey, sharedInbox)
//   episode    GET /ap/podcasts/show/episodes/ep1    (Note with a Document audio/mpeg attachment)
//   inboxes    POST /ap/podcasts/show/inbox, POST /ap/inbox   (record, 202; a Follow is answered
//              with an Accept signed draft-cavage, sent after the 202)
//   refusing   GET /ap/podcasts/refuse, POST /ap/podcasts/refuse/inbox -> 401
//   test hooks POST /fake/publish {forge?: bool}  delivers Create(Note) to the followers' shared
//              inboxes, draft-cavage signed (forge: one body byte changed after signing);
//              GET /fake/received  what its inboxes got.
//
// All its outbound requests (GETs too) are signed with draft-cavage rsa-sha256, as podhost's.
//   node fake-podhost.mjs   -> prints `ready http://127.0.0.1:S`
import { createHash, createSign, generateKeyPairSync } from "node:crypto";
import http from "node:http";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const publicKeyPem = publicKey.export({ type: "spki", format: "pem" });
let base; // http://127.0.0.1:S
const received = [];
const followers = new Map(); // actor id -> inbox to deliver to (shared if any)
let counter = 0;

const actorId = (feed) => `${base}/ap/podcasts/${feed}`;
const noteId = () => `${actorId("show")}/episodes/ep1`;

function actor(feed) {
  const id = actorId(feed);
  return {
    // `featured` is not an ActivityStreams term: without this (Mastodon's) definition a JSON-LD
    // consumer such as Fedify drops it (the self-test caught exactly that).
    "@context": [
      AS,
      "https://w3id.org/security/v1",
      { toot: "http://joinmastodon.org/ns#", featured: { "@id": "toot:featured", "@type": "@id" } },
    ],
    id,
    type: "Service",
    preferredUsername: feed,
    name: feed === "show" ? "The Show" : "Refusing show",
    summary: "<p>A podcast on podhost.</p>",
    url: `${base}/shows/${feed}`,
    icon: { type: "Image", mediaType: "image/png", url: `${base}/media/${feed}.png` },
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    followers: `${id}/followers`,
    featured: `${id}/featured`,
    endpoints: { sharedInbox: `${base}/ap/inbox` },
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
  };
}

function note() {
  return {
    id: noteId(),
    type: "Note",
    attributedTo: actorId("show"),
    content: "<p>Episode 1: Pilot</p>",
    url: `${base}/shows/show/episodes/ep1`,
    published: "2026-01-01T00:00:00Z",
    to: [PUBLIC],
    cc: [`${actorId("show")}/followers`],
    attachment: [
      { type: "Document", mediaType: "audio/mpeg", url: `${base}/media/ep1.mp3`, duration: "PT42M" },
    ],
  };
}

// draft-cavage-http-signatures-12, rsa-sha256, keyId = the show's #main-key.
function signedHeaders(method, url, body) {
  const u = new URL(url);
  const values = {
    "(request-target)": `${method.toLowerCase()} ${u.pathname}${u.search}`,
    host: u.host,
    date: new Date().toUTCString(),
  };
  if (body != null) {
    values.digest = `SHA-256=${createHash("sha256").update(body).digest("base64")}`;
    values["content-type"] = "application/activity+json";
  } else {
    values.accept = "application/activity+json";
  }
  const names = Object.keys(values);
  const text = names.map((n) => `${n}: ${values[n]}`).join("\n");
  const signature = createSign("RSA-SHA256").update(text).sign(privateKey, "base64");
  const headers = {};
  for (const n of names) if (n !== "(request-target)") headers[n] = values[n];
  headers.signature =
    `keyId="${actorId("show")}#main-key",algorithm="rsa-sha256",` +
    `headers="${names.join(" ")}",signature="${signature}"`;
  return headers;
}

async function signedGet(url) {
  const res = await fetch(url, { headers: signedHeaders("GET", url, null) });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return await res.json();
}

async function signedPost(url, activity, { forge = false } = {}) {
  let body = JSON.stringify(activity);
  const headers = signedHeaders("POST", url, body);
  if (forge) body = body.replace("Episode 1", "Episode 2");
  const res = await fetch(url, { method: "POST", headers, body });
  return { status: res.status, body: await res.text() };
}

async function accept(follow) {
  const follower = await signedGet(follow.actor);
  const inbox = follower.endpoints?.sharedInbox ?? follower.inbox;
  followers.set(follower.id, inbox);
  const result = await signedPost(follower.inbox, {
    "@context": AS,
    id: `${actorId("show")}/accepts/${++counter}`,
    type: "Accept",
    actor: actorId("show"),
    object: follow,
    to: follower.id,
  });
  received.push({ sent: "Accept", status: result.status });
}

function json(res, status, value, type = "application/activity+json") {
  res.writeHead(status, { "Content-Type": type });
  res.end(JSON.stringify(value));
}

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = Buffer.concat(chunks).toString("utf8");
  const url = new URL(req.url, base);
  const p = url.pathname;
  try {
    if (req.method === "GET" && p === "/.well-known/webfinger") {
      const m = /^acct:([^@]+)@(.+)$/.exec(url.searchParams.get("resource") ?? "");
      if (m == null || m[2] !== new URL(base).host || !["show", "refuse"].includes(m[1])) {
        return json(res, 404, { error: "not found" }, "application/json");
      }
      return json(
        res,
        200,
        {
          subject: `acct:${m[1]}@${m[2]}`,
          links: [{ rel: "self", type: "application/activity+json", href: actorId(m[1]) }],
        },
        "application/jrd+json",
      );
    }
    if (req.method === "GET" && (p === "/ap/podcasts/show" || p === "/ap/podcasts/refuse")) {
      return json(res, 200, actor(p.split("/")[3]));
    }
    if (req.method === "GET" && p === "/ap/podcasts/show/episodes/ep1") {
      return json(res, 200, { "@context": AS, ...note() });
    }
    if (req.method === "POST" && p === "/ap/podcasts/refuse/inbox") {
      res.writeHead(401);
      return res.end("refused");
    }
    if (req.method === "POST" && (p === "/ap/podcasts/show/inbox" || p === "/ap/inbox")) {
      const activity = JSON.parse(body);
      received.push({ inbox: p, type: activity.type, activity, signature: req.headers.signature ?? null, signatureInput: req.headers["signature-input"] ?? null });
      res.writeHead(202);
      res.end();
      if (activity.type === "Follow") {
        accept(activity).catch((e) => received.push({ sent: "Accept", error: String(e) }));
      }
      return;
    }
    if (req.method === "POST" && p === "/fake/publish") {
      const { forge = false } = body ? JSON.parse(body) : {};
      const results = [];
      for (const inbox of new Set(followers.values())) {
        const create = {
          "@context": AS,
          id: `${noteId()}/activity`,
          type: "Create",
          actor: actorId("show"),
          to: [PUBLIC],
          cc: [`${actorId("show")}/followers`],
          object: note(),
        };
        results.push({ inbox, ...(await signedPost(inbox, create, { forge })) });
      }
      return json(res, 200, { results }, "application/json");
    }
    if (req.method === "GET" && p === "/fake/received") {
      return json(res, 200, { received }, "application/json");
    }
    res.writeHead(404);
    res.end();
  } catch (error) {
    json(res, 500, { error: String(error) }, "application/json");
  }
});

server.listen(0, "127.0.0.1", () => {
  base = `http://127.0.0.1:${server.address().port}`;
  process.stdout.write(`ready ${base}\n`);
});
process.on("SIGTERM", () => process.exit(0));
