// A second ActivityPub server, built on Fedify, for podhost's federation tests.
//
//   node peer.mjs --port Q --podhost http://127.0.0.1:P [--log-level info] [--rsa-only]
//                 [--exit-with-stdin]
//
// It listens on http://127.0.0.1:Q (Q = 0 picks a free port), prints exactly one line
// `ready http://127.0.0.1:Q` to stdout once it serves, and logs everything else to stderr.
// It hosts two actors, `listener` (the normal one) and `impostor` (a second actor with its own
// keys, used to sign a Create that claims to come from `listener`), and a JSON control API under
// /control/ that the Rust test drives (README.md lists it).  Everything ActivityPub here is
// Fedify's own code: WebFinger, actor documents, HTTP Signatures (RFC 9421 first, draft-cavage on
// a second knock), key fetching, inbox verification and delivery.  The only things this file
// changes around Fedify are the two shims documented below (SHIM 1 and SHIM 2) and the option
// `allowPrivateAddress: true`.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import http from "node:http";
import { parseArgs } from "node:util";

import {
  Accept,
  Activity,
  Announce,
  Create,
  Delete,
  Endpoints,
  Follow,
  Like,
  Link,
  MemoryKvStore,
  Mention,
  Note,
  Object as APObject,
  Person,
  PUBLIC_COLLECTION,
  Tombstone,
  Undo,
  createFederation,
  generateCryptoKeyPair,
  getTypeId,
  isActor,
  signRequest,
} from "@fedify/fedify";
import { Temporal } from "@js-temporal/polyfill";
import { configure, defaultTextFormatter, getLogger } from "@logtape/logtape";

// ---------------------------------------------------------------------------------------------
// SHIM 1 (Node 20): ArrayBuffer.prototype.transfer.
//
// Fedify 1.6.1 is the release that brought RFC 9421 signatures with double-knocking, and the
// same release raised Fedify's `engines.node` to >=22 (CHANGES.md: "The minimum supported
// version of Node.js is now 22.0.0").  The reason is its new base64/hex dependency
// `byte-encodings`, which calls `ArrayBuffer.prototype.transfer` (ES2024; V8 11.4, Node 21+).
// Node 20's V8 11.3 only has it behind `--harmony-rab-gsab-transfer`.  That is the one Node 22
// API the installed Fedify tree uses (checked by grepping node_modules, and by selftest.sh), so
// it is provided here with the standard semantics: copy into a new buffer of the requested
// length, then detach the original.  On Node >= 21 the builtin exists and this does nothing.
// ---------------------------------------------------------------------------------------------
if (typeof ArrayBuffer.prototype.transfer !== "function") {
  Object.defineProperty(ArrayBuffer.prototype, "transfer", {
    configurable: true,
    writable: true,
    value: function transfer(newLength) {
      const length = newLength === undefined ? this.byteLength : Math.trunc(Number(newLength));
      if (!(length >= 0)) throw new RangeError("Invalid array buffer length");
      const copy = new ArrayBuffer(length);
      new Uint8Array(copy).set(new Uint8Array(this, 0, Math.min(length, this.byteLength)));
      structuredClone(this, { transfer: [this] }); // detaches `this`, as the builtin does
      return copy;
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------
const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    podhost: { type: "string", multiple: true, default: [] },
    "log-level": { type: "string", default: "warning" },
    "rsa-only": { type: "boolean", default: false },
    "exit-with-stdin": { type: "boolean", default: false },
  },
  strict: true,
});
const HOST = "127.0.0.1";
const listenPort = Number(args.port);
if (!Number.isInteger(listenPort) || listenPort < 0 || listenPort > 65535) {
  process.stderr.write(`invalid --port ${args.port}\n`);
  process.exit(2);
}
// The origins (http://127.0.0.1:P) of the servers this peer treats as "podhost": only their
// WebFinger URLs are rewritten from https to http (SHIM 2).
const podhostOrigins = new Set();
for (const p of args.podhost) {
  const u = new URL(p);
  if (u.protocol !== "http:") {
    process.stderr.write(`--podhost must be an http:// URL, got ${p}\n`);
    process.exit(2);
  }
  podhostOrigins.add(u.origin);
}

// Logging: Fedify logs through LogTape; everything goes to stderr (stdout carries only the
// ready line).
await configure({
  // Fedify attaches context (e.g. the message id) to its log records through this.
  contextLocalStorage: new AsyncLocalStorage(),
  sinks: {
    stderr: (record) => process.stderr.write(defaultTextFormatter(record)),
  },
  loggers: [
    { category: ["logtape", "meta"], sinks: ["stderr"], lowestLevel: "warning" },
    { category: ["fedify"], sinks: ["stderr"], lowestLevel: args["log-level"] },
    { category: ["peer"], sinks: ["stderr"], lowestLevel: args["log-level"] },
  ],
});
const logger = getLogger(["peer"]);

// ---------------------------------------------------------------------------------------------
// State (all in memory)
// ---------------------------------------------------------------------------------------------
// Per-request context: inbound inbox POSTs carry their parsed body and signature details so the
// inbox listeners can record them; control operations collect the HTTP requests they cause.
const als = new AsyncLocalStorage();
const received = []; // activities Fedify verified and dispatched to an inbox listener
const rejected = []; // inbox POSTs Fedify answered with >= 400
const listenerErrors = []; // exceptions thrown by inbox listeners (Fedify's onError)
const outbound = []; // every HTTP request Fedify (or this script) made
const objects = new Map(); // id -> Fedify object this peer published (notes, activities)
const sentActivities = new Map(); // id -> activity this peer sent (for /control/undo)
const followers = new Map(); // identifier -> Map(actor id -> recipient {id, inboxId, endpoints})
const following = new Map(); // identifier -> Map(actor id -> Follow id)
let seq = 0;

const ACTORS = {
  listener: {
    name: "Fedify listener",
    summary: "A fediverse user on a Fedify server, used by podhost's federation tests.",
  },
  impostor: {
    name: "Fedify impostor",
    summary: "A second actor whose key signs activities that claim to be from listener.",
  },
};
const keyPairs = {};
// RSASSA-PKCS1-v1_5 (4096-bit, Fedify's generateCryptoKeyPair) is what HTTP Signatures (both
// specs) and Linked Data Signatures (RsaSignature2017, which Fedify adds to every activity it
// sends) use; it must come first, as the first key pair becomes the actor's `publicKey`
// (#main-key).  Ed25519 is what Fedify uses for Object Integrity Proofs (FEP-8b32,
// eddsa-jcs-2022): without one it warns on every send and sends no `proof`.  A Fedify server as
// its docs set it up has both, so this peer does too (the actors get an `assertionMethod`
// Multikey and sent activities a `proof`); --rsa-only leaves Ed25519 out.
// The keys are generated concurrently: RSA-4096 generation takes 1-3 s each.
await Promise.all(
  Object.keys(ACTORS).map(async (identifier) => {
    const pairs = [generateCryptoKeyPair("RSASSA-PKCS1-v1_5")];
    if (!args["rsa-only"]) pairs.push(generateCryptoKeyPair("Ed25519"));
    keyPairs[identifier] = await Promise.all(pairs);
    followers.set(identifier, new Map());
    following.set(identifier, new Map());
  }),
);

// ---------------------------------------------------------------------------------------------
// SHIM 2: fetch wrapper (WebFinger over plain http for podhost; observation of requests).
//
// Fedify's lookupWebFinger() builds `https://{host}/.well-known/webfinger` for `acct:` resources
// (src/webfinger/lookup.ts: `let protocol = "https:"` unless the resource is itself an http(s)
// URL) and has no option for plain http.  podhost on loopback has no TLS, so for the origins
// given with --podhost (and only those), a GET to https://127.0.0.1:P/.well-known/webfinger is
// sent to http://127.0.0.1:P/.well-known/webfinger instead.  Nothing else is rewritten: actor,
// key, object and inbox URLs are the http:// URLs podhost publishes, and signed requests are
// never touched (a rewritten signed request would break RFC 9421's @target-uri).
//
// The wrapper also records every request (method, URL, which signature spec signed it, key id,
// response status) in `outbound` and in the current control operation's `attempts`, so a test
// can see Fedify's double-knocking (e.g. RFC 9421 answered 401, then draft-cavage answered 202).
// Fedify calls the global `fetch` at call time, so replacing it here reaches every request.
// ---------------------------------------------------------------------------------------------
const nativeFetch = globalThis.fetch;
globalThis.fetch = async function peerFetch(input, init) {
  let url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const parsed = new URL(url);
  if (
    method === "GET" &&
    parsed.protocol === "https:" &&
    parsed.pathname === "/.well-known/webfinger" &&
    podhostOrigins.has(`http://${parsed.host}`)
  ) {
    parsed.protocol = "http:";
    logger.debug("WebFinger over plain http: {from} -> {to}", { from: url, to: parsed.href });
    url = parsed.href;
    input =
      input instanceof Request
        ? new Request(url, {
            method: "GET",
            headers: input.headers,
            redirect: input.redirect,
            signal: input.signal,
          })
        : url;
  }
  const headers = new Headers(
    input instanceof Request ? input.headers : init?.headers ?? undefined,
  );
  const entry = { method, url, ...signatureOf(headers), status: null };
  outbound.push(entry);
  als.getStore()?.attempts?.push(entry);
  try {
    const response = await nativeFetch(input, init);
    entry.status = response.status;
    return response;
  } catch (error) {
    entry.error = String(error?.cause ?? error);
    throw error;
  }
};

// Which HTTP Signatures spec signed a request, and with which key.
function signatureOf(headers) {
  const input = headers.get("signature-input");
  if (input != null) {
    return { spec: "rfc9421", keyId: /keyid="([^"]*)"/.exec(input)?.[1] ?? null };
  }
  const sig = headers.get("signature");
  if (sig != null) {
    return { spec: "draft-cavage-http-signatures-12", keyId: /keyId="([^"]*)"/.exec(sig)?.[1] ?? null };
  }
  return { spec: null, keyId: null };
}

// ---------------------------------------------------------------------------------------------
// HTTP server (node:http -> Fetch API Request -> federation.fetch)
// ---------------------------------------------------------------------------------------------
let federation = null; // built once the port is known
let origin = null;
const kv = new MemoryKvStore();

const server = http.createServer((req, res) => {
  handle(req, res).catch((error) => {
    logger.error("Unhandled error for {method} {url}: {error}", {
      method: req.method,
      url: req.url,
      error,
    });
    if (!res.headersSent) sendJson(res, 500, { error: String(error?.message ?? error) });
    else res.end();
  });
});

async function handle(req, res) {
  const body = await readBody(req);
  if (federation == null) return sendJson(res, 503, { error: "starting" });
  const url = new URL(req.url, `http://${req.headers.host ?? `${HOST}:${server.address().port}`}`);
  if (url.pathname.startsWith("/control/")) return await handleControl(req.method, url, body, res);

  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(url, {
    method: req.method,
    headers,
    body: hasBody ? body : undefined,
  });
  const inboxPost = req.method === "POST" && isInboxPath(url.pathname);
  let store = {};
  if (inboxPost) {
    let json = null;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      // Fedify answers 400 itself.
    }
    store = {
      inbound: { inbox: inboxName(url.pathname), json, signature: signatureOf(headers) },
    };
  }
  const response = await als.run(store, () =>
    federation.fetch(request, {
      contextData: undefined,
      onNotFound: () => jsonResponse(404, { error: "not found" }),
      onNotAcceptable: () =>
        new Response("Not Acceptable", { status: 406, headers: { Vary: "Accept" } }),
    }),
  );
  const payload = Buffer.from(await response.arrayBuffer());
  if (inboxPost && response.status >= 400) {
    const json = store.inbound.json;
    rejected.push({
      seq: ++seq,
      inbox: store.inbound.inbox,
      status: response.status,
      reason: payload.toString("utf8"),
      type: typeof json?.type === "string" ? json.type : null,
      id: typeof json?.id === "string" ? json.id : null,
      actor: typeof json?.actor === "string" ? json.actor : json?.actor?.id ?? null,
      signature: store.inbound.signature,
      raw: json,
    });
    logger.info("Inbox {inbox} refused a {type} with {status}: {reason}", {
      ...rejected.at(-1),
    });
  }
  const outHeaders = {};
  response.headers.forEach((value, key) => {
    outHeaders[key] = value;
  });
  res.writeHead(response.status, outHeaders);
  res.end(payload);
}

function isInboxPath(pathname) {
  return pathname === "/inbox" || /^\/users\/[^/]+\/inbox$/.test(pathname);
}

function inboxName(pathname) {
  return pathname === "/inbox" ? "shared" : decodeURIComponent(pathname.split("/")[2]);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > 4 * 1024 * 1024) {
        reject(new Error("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function jsonResponse(status, value) {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

function sendJson(res, status, value) {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

// ---------------------------------------------------------------------------------------------
// Federation
// ---------------------------------------------------------------------------------------------
function buildFederation() {
  const fed = createFederation({
    kv,
    // Canonical URLs of this peer: http://127.0.0.1:Q.
    origin,
    // Fedify refuses to fetch (or WebFinger) private, loopback and link-local addresses unless
    // this is set (validatePublicUrl() in its document loaders and lookupWebFinger()).  podhost
    // and this peer both live on 127.0.0.1.  Setting it forbids custom documentLoader,
    // contextLoader and authenticatedDocumentLoaderFactory, so Fedify's own loaders are used.
    allowPrivateAddress: true,
    // No `queue`: activities are sent immediately inside sendActivity() (which throws when the
    // remote answers non-2xx) and inbox listeners run before the inbox answers, so a 202 from
    // this peer means the activity is already recorded.
  });

  fed
    .setActorDispatcher("/users/{identifier}", async (ctx, identifier) => {
      const info = ACTORS[identifier];
      if (info == null) return null;
      const keys = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name: info.name,
        summary: info.summary,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        outbox: ctx.getOutboxUri(identifier),
        followers: ctx.getFollowersUri(identifier),
        following: ctx.getFollowingUri(identifier),
        publicKey: keys[0].cryptographicKey,
        assertionMethods: keys.map((k) => k.multikey),
        manuallyApprovesFollowers: false,
        discoverable: true,
      });
    })
    .setKeyPairsDispatcher((_ctx, identifier) => keyPairs[identifier] ?? [])
    .mapHandle((_ctx, username) => (ACTORS[username] == null ? null : username));

  fed.setFollowersDispatcher("/users/{identifier}/followers", (_ctx, identifier) => {
    const map = followers.get(identifier);
    return map == null ? null : { items: [...map.values()] };
  });
  fed.setFollowingDispatcher("/users/{identifier}/following", (_ctx, identifier) => {
    const map = following.get(identifier);
    return map == null ? null : { items: [...map.keys()].map((id) => new URL(id)) };
  });
  fed.setOutboxDispatcher("/users/{identifier}/outbox", (ctx, identifier) => {
    if (ACTORS[identifier] == null) return null;
    const actor = ctx.getActorUri(identifier).href;
    const items = [...sentActivities.values()].filter(
      (a) => a.actorId?.href === actor && (a instanceof Create || a instanceof Announce),
    );
    return { items: items.reverse() };
  });

  // Everything this peer publishes is dereferenceable, as on a real server (podhost may fetch a
  // reply's Note, or the Follow embedded in its Accept).
  const objectRoutes = [
    [Note, "notes"],
    [Create, "creates"],
    [Follow, "follows"],
    [Undo, "undos"],
    [Like, "likes"],
    [Announce, "announces"],
    [Accept, "accepts"],
    [Delete, "deletes"],
  ];
  for (const [cls, segment] of objectRoutes) {
    fed.setObjectDispatcher(cls, `/users/{identifier}/${segment}/{id}`, (ctx, values) => {
      const obj = objects.get(ctx.getObjectUri(cls, values).href);
      return obj instanceof cls ? obj : null;
    });
  }

  fed
    .setInboxListeners("/users/{identifier}/inbox", "/inbox")
    // Key fetches for activities arriving at the shared inbox are signed as `listener` too
    // (personal inboxes already use their owner's key), so a podhost that requires signed GETs
    // can still be verified.
    .setSharedKeyDispatcher(() => ({ identifier: "listener" }))
    // An activity id is dispatched once per inbox (Fedify 2.0's default; 1.x defaults to
    // "per-origin" and warns): a redelivery to the same inbox is answered 202 and not recorded
    // again, while the same activity sent to two inboxes is recorded twice.
    .withIdempotency("per-inbox")
    .on(Follow, async (ctx, follow) => {
      await record(ctx, follow);
      await acceptFollow(ctx, follow);
    })
    .on(Undo, async (ctx, undo) => {
      await record(ctx, undo);
      // Undo(Follow) of one of our actors by its follower: drop the follower.  Only an embedded
      // Follow is looked at (nothing is fetched).
      const raw = als.getStore()?.inbound?.json;
      if (undo.actorId == null || typeof raw?.object !== "object" || raw.object === null) return;
      const follow = await undo.getObject({ crossOrigin: "trust" }).catch(() => null);
      if (!(follow instanceof Follow)) return;
      const parsed = ctx.parseUri(follow.objectId);
      if (parsed?.type === "actor") followers.get(parsed.identifier)?.delete(undo.actorId.href);
    })
    // Fedify dispatches to the most specific registered class, so this records every other
    // activity type (Accept, Reject, Create, Update, Delete, Announce, Like, ...).
    .on(Activity, record)
    .onError((_ctx, error) => {
      listenerErrors.push({ seq: ++seq, error: String(error?.stack ?? error) });
      logger.error("Inbox listener failed: {error}", { error });
    });

  return fed;
}

async function acceptFollow(ctx, follow) {
  const parsed = ctx.parseUri(follow.objectId);
  if (parsed?.type !== "actor" || ACTORS[parsed.identifier] == null) return;
  if (follow.id == null || follow.actorId == null) return;
  const follower = await follow.getActor(ctx);
  if (follower == null || follower.inboxId == null) {
    throw new Error(`cannot resolve follower ${follow.actorId.href}`);
  }
  followers.get(parsed.identifier).set(follower.id.href, {
    id: follower.id,
    inboxId: follower.inboxId,
    endpoints: follower.endpoints,
  });
  const accept = new Accept({
    id: ctx.getObjectUri(Accept, { identifier: parsed.identifier, id: randomUUID() }),
    actor: ctx.getActorUri(parsed.identifier),
    object: follow,
    to: follower.id,
  });
  remember(accept);
  await ctx.sendActivity({ identifier: parsed.identifier }, follower, accept, { immediate: true });
}

// Records an activity that Fedify verified (HTTP Signature, or LD signature / integrity proof,
// and signer == actor) and dispatched to a listener.
async function record(ctx, activity) {
  const inbound = als.getStore()?.inbound ?? null;
  const raw = inbound?.json ?? (await activity.toJsonLd({ format: "compact" }));
  const rawObject =
    raw != null && typeof raw.object === "object" && raw.object !== null && !Array.isArray(raw.object)
      ? raw.object
      : null;
  // Describe the object only when it is embedded: an id-only object is not fetched here.
  let object = null;
  if (rawObject != null) {
    try {
      object = await activity.getObject({ crossOrigin: "trust" });
    } catch (error) {
      logger.warn("Could not parse the object of {id}: {error}", { id: activity.id?.href, error });
    }
  }
  const described = object == null ? null : await describeObject(object);
  const entry = {
    seq: ++seq,
    inbox: inbound?.inbox ?? (ctx.recipient == null ? "shared" : ctx.recipient),
    type: typeName(activity),
    id: activity.id?.href ?? null,
    actor: activity.actorId?.href ?? null,
    objectId: activity.objectId?.href ?? null,
    objectType: described?.type ?? (typeof rawObject?.type === "string" ? rawObject.type : null),
    inReplyTo: described?.inReplyTo ?? null,
    content: described?.content ?? null,
    url: described?.url ?? null,
    attributedTo: described?.attributedTo ?? null,
    attachment: described?.attachment ?? [],
    to: activity.toIds.map((u) => u.href),
    cc: activity.ccIds.map((u) => u.href),
    verified: true,
    signature: inbound?.signature ?? null,
    raw,
  };
  received.push(entry);
  logger.info("Inbox {inbox} accepted {type} {id} from {actor}", entry);
}

function remember(obj) {
  if (obj.id != null) objects.set(obj.id.href, obj);
}

// ---------------------------------------------------------------------------------------------
// Describing Fedify objects as plain JSON
// ---------------------------------------------------------------------------------------------
function typeName(obj) {
  const id = getTypeId(obj).href;
  return id.includes("#") ? id.slice(id.lastIndexOf("#") + 1) : id;
}

function hrefOf(value) {
  if (value == null) return null;
  if (value instanceof URL) return value.href;
  if (value instanceof Link) return value.href?.href ?? null;
  return value.id?.href ?? null;
}

function str(value) {
  return value == null ? null : value.toString();
}

async function describeActor(actor) {
  let icon = null;
  try {
    const image = await actor.getIcon({ crossOrigin: "trust" });
    icon = image == null ? null : hrefOf(image.url);
  } catch {
    icon = actor.iconId?.href ?? null;
  }
  return {
    id: actor.id?.href ?? null,
    type: typeName(actor),
    preferredUsername: str(actor.preferredUsername),
    name: str(actor.name),
    summary: str(actor.summary),
    inbox: actor.inboxId?.href ?? null,
    sharedInbox: actor.endpoints?.sharedInbox?.href ?? null,
    outbox: actor.outboxId?.href ?? null,
    followers: actor.followersId?.href ?? null,
    following: actor.followingId?.href ?? null,
    featured: actor.featuredId?.href ?? null,
    url: hrefOf(actor.url),
    icon,
    publicKeyId: actor.publicKeyId?.href ?? null,
    manuallyApprovesFollowers: actor.manuallyApprovesFollowers ?? null,
    jsonLd: await actor.toJsonLd({ format: "compact" }),
  };
}

async function describeObject(obj) {
  if (isActor(obj)) return describeActor(obj);
  const out = { id: obj.id?.href ?? null, type: typeName(obj) };
  if (obj instanceof Activity) {
    out.actor = obj.actorId?.href ?? null;
    out.object = obj.objectId?.href ?? null;
  }
  if (obj instanceof APObject) {
    out.content = str(obj.content);
    out.name = str(obj.name);
    out.summary = str(obj.summary);
    out.url = hrefOf(obj.url);
    out.attributedTo = obj.attributionId?.href ?? null;
    out.inReplyTo = obj.replyTargetId?.href ?? null;
    out.published = str(obj.published);
    out.to = obj.toIds.map((u) => u.href);
    out.cc = obj.ccIds.map((u) => u.href);
    out.attachment = [];
    try {
      for await (const a of obj.getAttachments({ crossOrigin: "trust" })) {
        if (a instanceof APObject) {
          out.attachment.push({
            type: typeName(a),
            mediaType: a.mediaType ?? null,
            url: hrefOf(a.url),
            duration: str(a.duration),
            name: str(a.name),
          });
        } else if (a instanceof Link) {
          out.attachment.push({ type: "Link", mediaType: a.mediaType ?? null, url: hrefOf(a) });
        } else {
          out.attachment.push({ type: typeName(a), name: str(a.name), value: str(a.value) });
        }
      }
    } catch (error) {
      out.attachmentError = String(error);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Control API
// ---------------------------------------------------------------------------------------------
class ControlError extends Error {
  constructor(message, extra = {}) {
    super(message);
    this.extra = extra;
  }
}

function need(body, key) {
  const v = body[key];
  if (typeof v !== "string" || v === "") throw new ControlError(`missing "${key}"`);
  return v;
}

function senderOf(body) {
  const as = body.as ?? "listener";
  if (ACTORS[as] == null) throw new ControlError(`unknown actor "${as}" (listener or impostor)`);
  return as;
}

function newContext() {
  return federation.createContext(new URL(origin), undefined);
}

// Looks an actor up with a document loader that signs its GETs as `as` (Fedify's authenticated
// loader: RFC 9421 first, draft-cavage on a second knock, remembered per origin).
async function lookupActor(ctx, idOrHandle, as = "listener") {
  const documentLoader = await ctx.getDocumentLoader({ identifier: as });
  const actor = await ctx.lookupObject(idOrHandle, { documentLoader });
  if (actor == null) throw new ControlError(`lookup of ${idOrHandle} found nothing`);
  if (!isActor(actor)) {
    throw new ControlError(`${idOrHandle} is a ${typeName(actor)}, not an actor`);
  }
  return actor;
}

// Sends with Fedify's sendActivity (signing, double-knock, non-2xx -> throws) and reports the
// final HTTP status and every attempt.  `mustSucceed` turns a refusal into a control error.
async function send(ctx, as, recipient, activity, { mustSucceed = false, sharedInbox = false } = {}) {
  const op = { attempts: [] };
  let error = null;
  await als.run(op, async () => {
    try {
      await ctx.sendActivity({ identifier: as }, recipient, activity, {
        immediate: true,
        preferSharedInbox: sharedInbox,
      });
    } catch (e) {
      error = e;
    }
  });
  const posts = op.attempts.filter((a) => a.method === "POST");
  const last = posts.at(-1);
  const status = last?.status ?? Number(/\((\d{3})[ )]/.exec(String(error?.message))?.[1] ?? NaN);
  const result = {
    status: Number.isFinite(status) ? status : null,
    ok: error == null,
    attempts: op.attempts,
  };
  if (error != null) {
    result.error = String(error.message ?? error);
    if (mustSucceed) throw new ControlError(result.error, result);
  }
  return result;
}

function buildReply(ctx, as, target, inReplyTo, content) {
  const noteId = ctx.getObjectUri(Note, { identifier: as, id: randomUUID() });
  const me = ctx.getActorUri(as);
  const followersUri = ctx.getFollowersUri(as);
  const handle =
    target.preferredUsername == null ? null : `@${target.preferredUsername}@${target.id.host}`;
  const published = Temporal.Now.instant();
  const note = new Note({
    id: noteId,
    attribution: me,
    content,
    replyTarget: new URL(inReplyTo),
    tos: [PUBLIC_COLLECTION, target.id],
    ccs: [followersUri],
    tags: [new Mention({ href: target.id, name: handle })],
    published,
    url: noteId,
  });
  const create = new Create({
    id: ctx.getObjectUri(Create, { identifier: as, id: randomUUID() }),
    actor: me,
    object: note,
    tos: [PUBLIC_COLLECTION, target.id],
    ccs: [followersUri],
    published,
  });
  return { note, create };
}

// A raw POST to `inbox`, signed by Fedify's signRequest with `keyPair` and then optionally
// tampered with; returns the status podhost answered.
async function rawSignedPost(ctx, inbox, activity, keyPair, { spec, tamper }) {
  const json = await activity.toJsonLd({ format: "compact", contextLoader: ctx.contextLoader });
  const body = JSON.stringify(json);
  const request = new Request(inbox, {
    method: "POST",
    headers: {
      "Content-Type": "application/activity+json",
      Accept: "application/activity+json",
    },
    body,
  });
  let signed = await signRequest(request, keyPair.privateKey, keyPair.keyId, { spec });
  if (tamper === "body") {
    // One byte of the body changes after signing (inside the Note's content, so the JSON stays
    // valid): the Digest / Content-Digest no longer matches, nor does the signature's digest.
    const at = body.indexOf('"content":"') + '"content":"'.length;
    if (at < '"content":"'.length) throw new ControlError("no content to tamper with");
    const altered = body.slice(0, at) + (body[at] === "X" ? "Y" : "X") + body.slice(at + 1);
    signed = new Request(signed.url, { method: "POST", headers: signed.headers, body: altered });
  } else if (tamper === "signature") {
    // One base64 character of the signature value changes.
    const headers = new Headers(signed.headers);
    const sig = headers.get("Signature");
    const m =
      spec === "rfc9421" ? /=:([A-Za-z0-9+/]{20})/.exec(sig) : /signature="([A-Za-z0-9+/]{20})/.exec(sig);
    if (m == null) throw new ControlError(`cannot find a signature value in ${sig}`);
    const i = m.index + m[0].length - 10;
    headers.set("Signature", sig.slice(0, i) + (sig[i] === "A" ? "B" : "A") + sig.slice(i + 1));
    signed = new Request(signed.url, { method: "POST", headers, body });
  }
  const op = { attempts: [] };
  const response = await als.run(op, () => fetch(signed));
  return {
    status: response.status,
    body: await response.text(),
    spec,
    keyId: keyPair.keyId.href,
    attempts: op.attempts,
  };
}

async function rsaKeyPair(ctx, identifier) {
  const pairs = await ctx.getActorKeyPairs(identifier);
  const pair = pairs.find((p) => p.privateKey.algorithm.name === "RSASSA-PKCS1-v1_5");
  if (pair == null) throw new ControlError(`no RSA key for ${identifier}`);
  return pair;
}

function specOf(body) {
  const spec = body.spec ?? "draft-cavage-http-signatures-12";
  if (spec !== "draft-cavage-http-signatures-12" && spec !== "rfc9421") {
    throw new ControlError(`unknown spec "${spec}" (draft-cavage-http-signatures-12 or rfc9421)`);
  }
  return spec;
}

const routes = {
  "GET /control/info": async () => {
    const ctx = newContext();
    const actors = {};
    for (const identifier of Object.keys(ACTORS)) {
      const pair = await rsaKeyPair(ctx, identifier);
      actors[identifier] = {
        id: ctx.getActorUri(identifier).href,
        handle: `@${identifier}@${new URL(origin).host}`,
        inbox: ctx.getInboxUri(identifier).href,
        followers: ctx.getFollowersUri(identifier).href,
        keyId: pair.keyId.href,
      };
    }
    return { origin, sharedInbox: ctx.getInboxUri().href, podhost: [...podhostOrigins], actors };
  },

  "POST /control/lookup": async (body) => {
    const ctx = newContext();
    const handle = need(body, "handle");
    return await describeActor(await lookupActor(ctx, handle, senderOf(body)));
  },

  "POST /control/lookup-object": async (body) => {
    const ctx = newContext();
    const uri = need(body, "uri");
    const documentLoader = await ctx.getDocumentLoader({ identifier: senderOf(body) });
    const obj = await ctx.lookupObject(uri, { documentLoader });
    if (obj == null) return { found: false };
    return { found: true, ...(await describeObject(obj)) };
  },

  "POST /control/follow": async (body) => {
    const ctx = newContext();
    const as = senderOf(body);
    const target = await lookupActor(ctx, need(body, "actor"), as);
    const follow = new Follow({
      id: ctx.getObjectUri(Follow, { identifier: as, id: randomUUID() }),
      actor: ctx.getActorUri(as),
      object: target.id,
      to: target.id,
    });
    remember(follow);
    sentActivities.set(follow.id.href, follow);
    const result = await send(ctx, as, target, follow, { mustSucceed: true });
    following.get(as).set(target.id.href, follow.id.href);
    return { id: follow.id.href, ...result };
  },

  "POST /control/unfollow": async (body) => {
    const ctx = newContext();
    const as = senderOf(body);
    const target = await lookupActor(ctx, need(body, "actor"), as);
    const followId = need(body, "follow");
    const follow =
      sentActivities.get(followId) ??
      new Follow({ id: new URL(followId), actor: ctx.getActorUri(as), object: target.id });
    const undo = new Undo({
      id: ctx.getObjectUri(Undo, { identifier: as, id: randomUUID() }),
      actor: ctx.getActorUri(as),
      object: follow,
      to: target.id,
    });
    remember(undo);
    sentActivities.set(undo.id.href, undo);
    const result = await send(ctx, as, target, undo, { mustSucceed: true });
    following.get(as).delete(target.id.href);
    return { id: undo.id.href, ...result };
  },

  "POST /control/reply": async (body) => {
    const ctx = newContext();
    const as = senderOf(body);
    const target = await lookupActor(ctx, need(body, "to"), as);
    const { note, create } = buildReply(
      ctx,
      as,
      target,
      need(body, "inReplyTo"),
      body.content ?? "<p>Great episode!</p>",
    );
    remember(note);
    remember(create);
    sentActivities.set(create.id.href, create);
    const result = await send(ctx, as, target, create, { sharedInbox: body.sharedInbox === true });
    return { note: note.id.href, activity: create.id.href, ...result };
  },

  "POST /control/like": async (body) => {
    const ctx = newContext();
    const as = senderOf(body);
    const target = await lookupActor(ctx, need(body, "to"), as);
    const like = new Like({
      id: ctx.getObjectUri(Like, { identifier: as, id: randomUUID() }),
      actor: ctx.getActorUri(as),
      object: new URL(need(body, "object")),
      to: target.id,
    });
    remember(like);
    sentActivities.set(like.id.href, like);
    const result = await send(ctx, as, target, like, { sharedInbox: body.sharedInbox === true });
    return { activity: like.id.href, ...result };
  },

  "POST /control/announce": async (body) => {
    const ctx = newContext();
    const as = senderOf(body);
    const target = await lookupActor(ctx, need(body, "to"), as);
    const announce = new Announce({
      id: ctx.getObjectUri(Announce, { identifier: as, id: randomUUID() }),
      actor: ctx.getActorUri(as),
      object: new URL(need(body, "object")),
      tos: [PUBLIC_COLLECTION],
      ccs: [target.id, ctx.getFollowersUri(as)],
      published: Temporal.Now.instant(),
    });
    remember(announce);
    sentActivities.set(announce.id.href, announce);
    const result = await send(ctx, as, target, announce, { sharedInbox: body.sharedInbox === true });
    return { activity: announce.id.href, ...result };
  },

  // Undo of any activity this peer sent (a Like, an Announce, a Follow...).
  "POST /control/undo": async (body) => {
    const ctx = newContext();
    const as = senderOf(body);
    const target = await lookupActor(ctx, need(body, "to"), as);
    const original = sentActivities.get(need(body, "activity"));
    if (original == null) throw new ControlError(`this peer never sent ${body.activity}`);
    const undo = new Undo({
      id: ctx.getObjectUri(Undo, { identifier: as, id: randomUUID() }),
      actor: ctx.getActorUri(as),
      object: original,
      to: target.id,
    });
    remember(undo);
    sentActivities.set(undo.id.href, undo);
    const result = await send(ctx, as, target, undo, { sharedInbox: body.sharedInbox === true });
    return { activity: undo.id.href, ...result };
  },

  // Delete(Tombstone) of a note this peer published (e.g. a reply).
  "POST /control/delete": async (body) => {
    const ctx = newContext();
    const as = senderOf(body);
    const target = await lookupActor(ctx, need(body, "to"), as);
    const noteId = need(body, "note");
    objects.delete(noteId);
    const del = new Delete({
      id: ctx.getObjectUri(Delete, { identifier: as, id: randomUUID() }),
      actor: ctx.getActorUri(as),
      object: new Tombstone({ id: new URL(noteId) }),
      tos: [PUBLIC_COLLECTION, target.id],
      ccs: [ctx.getFollowersUri(as)],
    });
    remember(del);
    sentActivities.set(del.id.href, del);
    const result = await send(ctx, as, target, del, { sharedInbox: body.sharedInbox === true });
    return { activity: del.id.href, ...result };
  },

  // The same Create as /control/reply, properly signed by listener with Fedify's signRequest,
  // then tampered with: "body" (one byte of the body, default) or "signature" (one character of
  // the signature value).  "none" sends it untampered: the positive control, which must be
  // accepted, showing that the tampering alone is what gets the others refused.  Unlike
  // /control/reply (sendActivity), these raw requests carry no LD signature and no integrity
  // proof, so the HTTP Signature is the only thing that can authenticate them.
  "POST /control/forged": async (body) => {
    const ctx = newContext();
    const target = await lookupActor(ctx, need(body, "to"));
    const tamper = body.tamper ?? "body";
    if (tamper !== "body" && tamper !== "signature" && tamper !== "none") {
      throw new ControlError(`unknown tamper "${tamper}" (body, signature or none)`);
    }
    const { note, create } = buildReply(
      ctx,
      "listener",
      target,
      need(body, "inReplyTo"),
      body.content ?? (tamper === "none" ? "<p>signed raw</p>" : "<p>forged</p>"),
    );
    // A tampered note is not remembered: it must not be fetchable, so the only way to accept it
    // would be to trust the broken signature.
    if (tamper === "none") {
      remember(note);
      remember(create);
    }
    const result = await rawSignedPost(ctx, target.inboxId, create, await rsaKeyPair(ctx, "listener"), {
      spec: specOf(body),
      tamper,
    });
    return { note: note.id.href, activity: create.id.href, tamper, ...result };
  },

  // A Create whose actor (and attributedTo) is listener, validly signed with impostor's key
  // (keyId impostor's #main-key); raw like /control/forged, not fetchable.
  "POST /control/mismatch": async (body) => {
    const ctx = newContext();
    const target = await lookupActor(ctx, need(body, "to"));
    const { note, create } = buildReply(
      ctx,
      "listener",
      target,
      need(body, "inReplyTo"),
      body.content ?? "<p>not really listener</p>",
    );
    const result = await rawSignedPost(ctx, target.inboxId, create, await rsaKeyPair(ctx, "impostor"), {
      spec: specOf(body),
      tamper: null,
    });
    return { note: note.id.href, activity: create.id.href, ...result };
  },

  "GET /control/received": async () => ({ activities: received, rejected, errors: listenerErrors }),

  "GET /control/outbound": async () => ({ requests: outbound }),

  // The signature spec Fedify remembered for an origin after double-knocking (null: none yet).
  "GET /control/signature-spec": async (_body, url) => {
    const o = url.searchParams.get("origin");
    if (o == null) throw new ControlError('missing "origin" query parameter');
    const spec = await kv.get(["_fedify", "httpMessageSignaturesSpec", new URL(o).origin]);
    return { origin: new URL(o).origin, spec: spec ?? null };
  },

  "GET /control/followers": async () =>
    Object.fromEntries([...followers].map(([k, m]) => [k, [...m.keys()]])),

  "POST /control/reset": async () => {
    received.length = 0;
    rejected.length = 0;
    listenerErrors.length = 0;
    outbound.length = 0;
    return { ok: true };
  },
};

async function handleControl(method, url, rawBody, res) {
  const route = routes[`${method} ${url.pathname}`];
  if (route == null) return sendJson(res, 404, { error: `no control route ${method} ${url.pathname}` });
  let body = {};
  if (method === "POST" && rawBody.length > 0) {
    try {
      body = JSON.parse(rawBody.toString("utf8"));
    } catch (error) {
      return sendJson(res, 400, { error: `invalid JSON: ${error.message}` });
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      return sendJson(res, 400, { error: "the body must be a JSON object" });
    }
  }
  try {
    sendJson(res, 200, await route(body, url));
  } catch (error) {
    logger.warn("Control {method} {path} failed: {error}", {
      method,
      path: url.pathname,
      error,
    });
    sendJson(res, 500, { error: String(error?.message ?? error), ...(error?.extra ?? {}) });
  }
}

// ---------------------------------------------------------------------------------------------
// Start
// ---------------------------------------------------------------------------------------------
server.on("error", (error) => {
  process.stderr.write(`peer: ${error.message}\n`);
  process.exit(1);
});
server.listen(listenPort, HOST, () => {
  const { port } = server.address();
  origin = `http://${HOST}:${port}`;
  federation = buildFederation();
  process.stdout.write(`ready ${origin}\n`);
  logger.info("Fedify peer on {origin}; podhost origins: {podhost}", {
    origin,
    podhost: [...podhostOrigins],
  });
});

function shutdown() {
  server.close();
  server.closeAllConnections?.();
  process.exit(0);
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
if (args["exit-with-stdin"]) {
  // Exit when the parent (the Rust test) goes away and its end of our stdin closes.
  process.stdin.on("end", shutdown);
  process.stdin.on("close", shutdown);
  process.stdin.resume();
}
