/**
 * One WebSocket's lifecycle: admission into its scene, then every incoming frame checked in order
 * — type, size, frame rate, JSON, the zod schema, the per-kind token bucket — before the scene
 * sees it. Whatever is wrong, the sender gets an `error` with a code and a precise reason; nothing
 * else changes and nobody else notices.
 *
 * Memory per connection stays bounded whatever it sends: refusals are coalesced (one `error` per
 * kind per `refusalNoticeMs`, saying how many went unanswered), every reply checks the socket's
 * unsent backlog, invalid frames spend an abuse budget (`rateLimits.refused`) whose exhaustion
 * closes the connection with 1008, an oversized frame closes it with 1009, and a socket that has
 * not said `hello` within `helloTimeoutMs` is closed with 1008.
 *
 * This layer does not know who stamps events: it talks to a `SceneEndpoint` (a local `Room`, or
 * a cluster edge's proxy of a remote owner).
 */
import {
  type ClientMessage,
  ClientMessageSchema,
  type ErrorMessage,
} from "../../shared/protocol.ts";
import { hashPerson } from "../scene/host_keys.ts";
import { storedCost } from "../scene/host_rules.ts";
import type { RateLimits } from "../scene/ratelimit.ts";
import { errorMessage as error, StorageUnavailableError } from "../scene/errors.ts";
import {
  claimDistinctName,
  cleanName,
  distinctName,
  nameKey,
  nextPeerId,
  randomPeerColor,
  randomPeerName,
  SceneNames,
} from "../scene/names.ts";
import { NAME_MAX_LENGTH } from "../../shared/constants.ts";
import { Peer, type PeerStats } from "../scene/peer.ts";
import type { SceneEndpoint } from "../scene/scene_endpoint.ts";
import type { ConnSocket } from "./ws_socket.ts";
import { type AddressBudgets, NETWORK_BUDGET_FACTOR } from "../scene/ratelimit.ts";
import { showEventCost } from "../scene/show_stamp.ts";
import { CLOSE_POLICY, CLOSE_TOO_BIG, CLOSE_TRY_LATER } from "./ws_socket.ts";

export type { SceneEndpoint } from "../scene/scene_endpoint.ts";

/** The settings a connection follows (a `ServerConfig` has them all). */
export interface ConnectionConfig {
  rateLimits: RateLimits;
  maxBufferedBytes: number;
  drainDeadlineMs: number;
  maxFrameBytes: number;
  /** A host's or composer's frames may be this long (a show; default: maxFrameBytes). */
  maxShowFrameBytes?: number;
  refusalNoticeMs: number;
  monotonic: () => number;
  log: (msg: string) => void;
}

/** Counters a connection updates (the server's `Metrics`). */
export interface ConnectionStats extends PeerStats {
  connectionsOpened: number;
  /** Connections closed for spending their abuse budget, sending a too-large frame or silence. */
  abusersClosed: number;
  refuse(code: string): void;
}

/** Close code for a room that is full ("try again later"). */
export const CLOSE_ROOM_FULL = CLOSE_TRY_LATER;

/** The `t` of every client message, to name the message kind in error reasons. */
const KNOWN_TYPES: ReadonlySet<string> = new Set(
  ClientMessageSchema.options.map((option) => option.shape.t.value),
);

/** What each event body's token bucket is called in a `rate_limited` reason. */
const BODY_NOUNS = {
  launch: "launches",
  gun: "gun shots",
  settings: "settings changes",
  show: "shows",
  "show-cancel": "show cancels",
} as const;

/** Kinds of refusal, each coalesced on its own. */
const Kind = {
  Binary: 0,
  NotJson: 1,
  Invalid: 2,
  HelloFirst: 3,
  FrameRate: 4,
  LaunchRate: 5,
  GunRate: 6,
  SettingsRate: 7,
  SkyFull: 8,
  Other: 9,
  EventBudget: 10,
  /** What the host rules refuse (forbidden, muted, removed, launches paused). */
  Rules: 11,
  ReactionRate: 12,
  Count: 13,
} as const;
type Kind = typeof Kind[keyof typeof Kind];

/**
 * Closes connections that never said `hello`. Deadlines expire in the order they were set (the
 * timeout is the same for all), so a sweep looks only at the expired ones.
 */
export class HelloDeadlines {
  readonly #timeoutMs: number;
  readonly #pending = new Map<Peer, [number, () => void]>();

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Connections still waiting for their hello. */
  get size(): number {
    return this.#pending.size;
  }

  /** Starts `peer`'s deadline; `expire` closes it. */
  add(peer: Peer, nowMs: number, expire: () => void): void {
    this.#pending.set(peer, [nowMs + this.#timeoutMs, expire]);
  }

  remove(peer: Peer): void {
    this.#pending.delete(peer);
  }

  /** Closes every connection whose deadline passed without a welcome. */
  sweep(nowMs: number): void {
    for (const [peer, [at, expire]] of this.#pending) {
      if (at > nowMs) break;
      this.#pending.delete(peer);
      if (!peer.welcomed) expire();
    }
  }
}

/**
 * Who is on the other end: the address, and the per-address budget of events stored (shared by
 * every connection of the server; `eventsPerMinute` tokens, refilled over a minute).
 */
export interface ConnectionOrigin {
  address: string;
  events: AddressBudgets;
  eventsPerMinute: number;
}

/** Wires a freshly upgraded socket to its scene. */
export function attachConnection(
  socket: ConnSocket,
  scene: SceneEndpoint,
  config: ConnectionConfig,
  stats: ConnectionStats,
  deadlines: HelloDeadlines,
  origin?: ConnectionOrigin,
): Peer {
  const peer = new Peer({
    id: nextPeerId(),
    name: randomPeerName(),
    color: randomPeerColor(),
    socket,
    limits: config.rateLimits,
    maxBufferedBytes: config.maxBufferedBytes,
    drainDeadlineMs: config.drainDeadlineMs,
    stats,
  });
  peer.address = origin?.address;
  stats.connectionsOpened++;
  const refusal = scene.admit(peer);
  if (refusal) {
    stats.refuse(refusal.code);
    peer.gone = true;
    // Sent as soon as the socket opens (the socket queues it).
    socket.send(JSON.stringify(refusal));
    socket.close(CLOSE_ROOM_FULL, refusal.message, true);
    return peer;
  }

  /** Closes the connection and takes it out of its scene now (a hostile peer may never reply). */
  const expel = (code: number, reason: string) => {
    if (!peer.gone) stats.abusersClosed++;
    peer.drop(code, reason, true);
    deadlines.remove(peer);
    sceneNames.delete(scene, peer);
    scene.leave(peer);
  };

  /** Counts a refusal, spends the abuse budget when `strike`, and answers unless coalesced. */
  const refuse = (nowMs: number, kind: Kind, error: ErrorMessage, strike: boolean) => {
    stats.refuse(error.code);
    if (strike && peer.take("refused", nowMs) > 0) {
      expel(CLOSE_POLICY, "too many refused messages");
      return;
    }
    const missed = peer.notice(kind, Kind.Count, nowMs, config.refusalNoticeMs);
    if (missed < 0) return;
    if (missed > 0) {
      error.message += ` (and ${missed} more like it since the last notice, not answered)`;
    }
    peer.reply(JSON.stringify(error));
    if (peer.gone) {
      sceneNames.delete(scene, peer);
      scene.leave(peer);
    }
  };

  const tooLarge = (size: number) => {
    stats.refuse("too_large");
    const message = `frame of ${size} bytes refused: the limit is ${config.maxFrameBytes} bytes`;
    peer.reply(JSON.stringify(error("too_large", message)));
    expel(CLOSE_TOO_BIG, message);
  };

  /** A refusal known only later (a hello that waited for its name). */
  const late = (refusal: ErrorMessage | null) => {
    const outcome = sceneOutcome(refusal);
    if (outcome !== null && !peer.gone) refuse(config.monotonic(), ...outcome);
    if (peer.welcomed) deadlines.remove(peer);
  };

  deadlines.add(peer, config.monotonic(), () => {
    expel(CLOSE_POLICY, "no hello in time");
  });

  socket.listen({
    message(text, bytes) {
      if (peer.gone) return;
      const nowMs = config.monotonic();
      if (text === null) {
        if (bytes > config.maxFrameBytes) return tooLarge(bytes);
        return refuse(nowMs, Kind.Binary, binaryRefused(), true);
      }
      if (text.length > config.maxFrameBytes / 3) {
        const size = utf8Length(text);
        if (size > config.maxFrameBytes) {
          // Only a host or composer may send more (a show), and only up to its own limit.
          const showLimit = config.maxShowFrameBytes ?? config.maxFrameBytes;
          if (size > showLimit || !peer.welcomed || !scene.mayCompose(peer)) {
            return tooLarge(size);
          }
        }
      }
      const wait = peer.take("frames", nowMs);
      if (wait > 0) return refuse(nowMs, Kind.FrameRate, rateLimited("messages", wait), true);
      let outcome: Outcome;
      try {
        outcome = handleFrame(peer, scene, text, nowMs, origin, late);
      } catch (err) {
        // A failure here (say the database cannot write) must not escape the event handler: that
        // would end the whole process. The sender hears about it; nothing was broadcast.
        if (err instanceof StorageUnavailableError) {
          // Logged once by the store when writes start failing; the sender learns why.
          outcome = [
            Kind.Other,
            error(err.code, `${err.message}; nothing changed, try again later`),
            false,
          ];
        } else {
          config.log(`error: scene ${scene.id} peer ${peer.id}: ${(err as Error).stack ?? err}`);
          outcome = [
            Kind.Other,
            error("internal", "the server could not handle that message; nothing changed"),
            false,
          ];
        }
      }
      if (outcome !== null) refuse(nowMs, outcome[0], outcome[1], outcome[2]);
      if (peer.welcomed) deadlines.remove(peer);
    },
    oversized() {
      stats.refuse("too_large");
      expel(CLOSE_TOO_BIG, `frame over the limit of ${config.maxFrameBytes} bytes`);
    },
    close() {
      peer.gone = true;
      deadlines.remove(peer);
      sceneNames.delete(scene, peer);
      scene.leave(peer);
    },
  });
  return peer;
}

/** A refusal: its coalescing kind, the error, and whether it spends the abuse budget. */
type Outcome = [Kind, ErrorMessage, boolean] | null;

/** What answers a refusal that comes after the frame was handled (see `hello`). */
type Late = (refusal: ErrorMessage | null) => void;

/** Parses, validates and dispatches one text frame; returns the refusal, if any. */
function handleFrame(
  peer: Peer,
  scene: SceneEndpoint,
  text: string,
  nowMs: number,
  origin: ConnectionOrigin | undefined,
  late: Late,
): Outcome {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return [Kind.NotJson, error("bad_message", `invalid JSON: ${(e as Error).message}`), true];
  }
  const parsed = ClientMessageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return [
      Kind.Invalid,
      error("bad_message", `${issuePath(json, issue.path)}: ${issue.message}`),
      true,
    ];
  }
  return dispatch(peer, scene, parsed.data, nowMs, origin, late);
}

/**
 * Where in a frame a schema issue is, for the error reason: `launch.z`, `hash.tick`. A submitted
 * body is named by its own `type` (`launch.x`, not `submit.body.x`).
 */
function issuePath(json: unknown, path: readonly PropertyKey[]): string {
  const t = (json as { t?: unknown } | null)?.t;
  let kind = typeof t === "string" && KNOWN_TYPES.has(t) ? t : "";
  let rest = path.map(String);
  if (kind === "submit" && rest[0] === "body") {
    const type = (json as { body?: { type?: unknown } }).body?.type;
    if (typeof type === "string" && Object.hasOwn(BODY_NOUNS, type)) {
      kind = type;
      rest = rest.slice(1);
    }
  }
  return [kind, ...rest].filter(Boolean).join(".") || "message";
}

/** Each body type's rate-limit refusal kind. */
const BODY_RATE_KIND = {
  launch: Kind.LaunchRate,
  gun: Kind.GunRate,
  settings: Kind.SettingsRate,
  show: Kind.SettingsRate,
  "show-cancel": Kind.SettingsRate,
} as const;

/** Names in use per scene, among the people connected to this server. */
const sceneNames = new SceneNames<SceneEndpoint, Peer>();

/**
 * Whether a name key is taken by others in `scene`: here (counted as people come and go), and on
 * other nodes as far as this one knows them.
 */
function takenNames(scene: SceneEndpoint, peer: Peer): (key: string) => boolean {
  const here = (key: string) => sceneNames.takenByOthers(scene, peer, key);
  if (!scene.namesElsewhere) return here;
  const elsewhere = new Set<string>();
  for (const name of scene.namesElsewhere()) elsewhere.add(nameKey(name));
  return (key) => here(key) || elsewhere.has(key);
}

/** Peers whose hello or rename waits for the scene-wide names (one wait at a time). */
const naming = new WeakSet<Peer>();

/**
 * `base`, or the first of its suffixed forms (`nameCandidates`) nobody in `scene` goes by, handed
 * to `take`: at once on a single node (`distinctName` over the names here); in a cluster once the
 * scene's names bucket granted it (`claimDistinctName`), skipping the names known taken; a
 * failure then goes to `late` (never out of the promise: that would end the process). Returns
 * false when a wait for the bucket is already under way for this peer.
 */
function takeDistinctName(
  peer: Peer,
  scene: SceneEndpoint,
  base: string,
  take: (name: string) => void,
  late: Late,
): boolean {
  const taken = takenNames(scene, peer);
  if (!scene.claimName) {
    take(distinctName(base, taken, NAME_MAX_LENGTH));
    return true;
  }
  if (naming.has(peer)) return false;
  naming.add(peer);
  const claim = (candidate: string) => scene.claimName!(peer, candidate);
  const busy = (candidate: string) => scene.nameBusyHere?.(candidate) ?? false;
  claimDistinctName(base, taken, claim, NAME_MAX_LENGTH, busy).then((name) => {
    naming.delete(peer);
    if (!peer.gone) take(name);
  }).catch((e) => {
    naming.delete(peer);
    late(error("internal", `the server could not take your name (${(e as Error).message})`));
  });
  return true;
}

/**
 * Says hello with a name that cannot deceive: the chosen one cleaned (`cleanName`), or the
 * generated one, with a suffix when someone in the scene already goes by it. In a cluster the
 * welcome waits for the name (`takeDistinctName`); a refusal then goes to `late`.
 */
function hello(
  peer: Peer,
  scene: SceneEndpoint,
  msg: { name?: string; lastSeq?: number; person?: string },
  late: Late,
): ErrorMessage | null {
  if (peer.welcomed) return scene.hello(peer, undefined, msg.lastSeq);
  // A second hello while the first waits for its name: the first one answers.
  if (naming.has(peer)) return null;
  if (msg.person !== undefined) peer.person = hashPerson(scene.id, msg.person);
  const chosen = cleanName(msg.name, NAME_MAX_LENGTH);
  peer.generated = chosen === undefined;
  let refusal: ErrorMessage | null = null;
  let waited = false;
  takeDistinctName(peer, scene, chosen ?? peer.name, (name) => {
    refusal = scene.hello(peer, name, msg.lastSeq);
    if (refusal === null && !peer.gone) sceneNames.set(scene, peer, peer.name);
    if (waited) late(refusal);
  }, late);
  waited = true;
  return refusal;
}

/**
 * Takes another name on an open connection, cleaned and told apart as in `hello`; without a
 * usable name the peer goes back to a made-up one (its current one when it already had one).
 * False when the peer's previous rename still waits for its name.
 */
function rename(peer: Peer, scene: SceneEndpoint, msg: { name?: string }, late: Late): boolean {
  const chosen = cleanName(msg.name, NAME_MAX_LENGTH);
  const base = chosen ?? (peer.generated ? peer.name : randomPeerName());
  return takeDistinctName(peer, scene, base, (name) => {
    scene.rename(peer, name, chosen === undefined);
    if (!peer.gone) sceneNames.set(scene, peer, peer.name);
  }, late);
}

function dispatch(
  peer: Peer,
  scene: SceneEndpoint,
  msg: ClientMessage,
  nowMs: number,
  origin: ConnectionOrigin | undefined,
  late: Late,
): Outcome {
  if (msg.t === "hello") return sceneOutcome(hello(peer, scene, msg, late));
  if (!peer.welcomed) {
    const kind = msg.t === "submit" ? msg.body.type : msg.t;
    return [Kind.HelloFirst, error("bad_message", `${kind}: send hello first`), true];
  }
  switch (msg.t) {
    case "submit": {
      const type = msg.body.type;
      // Shows and their cancels share the settings bucket (a host's rare, scene-wide acts).
      const wait = peer.take(type === "show" || type === "show-cancel" ? "settings" : type, nowMs);
      if (wait > 0) return [BODY_RATE_KIND[type], rateLimited(BODY_NOUNS[type], wait), false];
      // A show spends more than one (see showEventCost).
      const cost = msg.body.type === "show" ? showEventCost(msg.body.cues.length) : 1;
      return withinEventBudget(
        origin,
        nowMs,
        cost,
        (perMinute, waitS) =>
          `your address stored its budget of ${perMinute} events a minute ` +
          `(or its network, ${NETWORK_BUDGET_FACTOR}x that)${
            cost > 1 ? `; this show counts as ${cost}` : ""
          }; nothing was stored, try again in ${waitS} s`,
        () => scene.submit(peer, msg.body),
      );
    }
    case "rename": {
      // A rename fans out to everyone like a settings change, and shares its bucket.
      const wait = peer.take("settings", nowMs);
      if (wait > 0) return [Kind.SettingsRate, rateLimited("renames", wait), false];
      if (!rename(peer, scene, msg, late)) {
        return [
          Kind.SettingsRate,
          rateLimited("renames (the last one is still under way)", 500),
          false,
        ];
      }
      return null;
    }
    case "host": {
      // Host actions share the settings changes' bucket: both steer the scene for everyone.
      const wait = peer.take("settings", nowMs);
      if (wait > 0) return [Kind.SettingsRate, rateLimited("host actions", wait), false];
      // What it stores (one rules event: a finale is derived) spends the stored-event budget.
      const cost = storedCost(msg.action);
      return withinEventBudget(
        origin,
        nowMs,
        cost,
        (perMinute, waitS) =>
          `this would store ${cost} event${cost === 1 ? "" : "s"}, past your ` +
          `address's budget of ${perMinute} events a minute (or its ` +
          `network's, ${NETWORK_BUDGET_FACTOR}x that); try again in ${waitS} s`,
        () => scene.host(peer, msg.action),
      );
    }
    case "react": {
      // Reactions fan out to everyone like launches, with a bucket of their own.
      const wait = peer.take("reaction", nowMs);
      if (wait > 0) return [Kind.ReactionRate, rateLimited("reactions", wait), false];
      return sceneOutcome(scene.react(peer, msg.emoji));
    }
    case "ping":
      scene.pong(peer, msg.id, msg.ct);
      return null;
    case "hash":
      return sceneOutcome(scene.reportHash(peer, msg.tick, msg.h));
    case "draft":
      // Not stored: bounded by the draft relay's own buckets (see server/scene/draft_relay.ts).
      return sceneOutcome(scene.draft(peer, msg.edits));
  }
}

/** Refusals by the host rules. */
const RULES_CODES: ReadonlySet<string> = new Set([
  "forbidden",
  "muted",
  "removed",
  "launches_paused",
]);

/**
 * Does `act` under the address's (and its network's) budget of stored events, when the
 * connection has one: `cost` tokens are looked at first and spent only once `act` stored;
 * over the budget nothing is done and `refusal(perMinute, waitS)` says why.
 */
function withinEventBudget(
  origin: ConnectionOrigin | undefined,
  nowMs: number,
  cost: number,
  refusal: (perMinute: number, waitS: number) => string,
  act: () => ErrorMessage | null,
): Outcome {
  if (!origin) return sceneOutcome(act());
  origin.events.sweep(nowMs);
  const spent = origin.events.take(origin.address, nowMs, true, cost);
  if (spent > 0) {
    const text = refusal(origin.eventsPerMinute, Math.ceil(spent / 1000));
    return [Kind.EventBudget, error("rate_limited", text, spent), false];
  }
  const refused = act();
  if (refused === null) origin.events.take(origin.address, nowMs, false, cost);
  return sceneOutcome(refused);
}

/** A scene's refusal: a bad message spends the abuse budget, a full sky does not. */
function sceneOutcome(refusal: ErrorMessage | null): Outcome {
  if (refusal === null) return null;
  if (refusal.code === "bad_message") return [Kind.Invalid, refusal, true];
  if (refusal.code === "sky_full") return [Kind.SkyFull, refusal, false];
  if (RULES_CODES.has(refusal.code)) return [Kind.Rules, refusal, false];
  return [Kind.Other, refusal, false];
}

/** Bytes of `text` in UTF-8, without encoding it. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function binaryRefused(): ErrorMessage {
  return error("bad_message", "binary frames are not accepted: send JSON text");
}

function rateLimited(what: string, waitMs: number): ErrorMessage {
  return error("rate_limited", `too many ${what}; slow down`, waitMs);
}
