/**
 * One WebSocket's lifecycle: admission into its room, then every incoming frame checked in order
 * — size, frame rate, JSON, the zod schema, the per-kind token bucket — before the room sees it.
 * Whatever is wrong, the sender gets an `error` with a code and a precise reason; nothing else
 * changes and nobody else notices.
 */
import { type ClientMessage, ClientMessageSchema, type ErrorMessage } from "../shared/protocol.ts";
import type { ServerConfig } from "./config.ts";
import { errorMessage as error, StorageUnavailableError } from "./errors.ts";
import type { Metrics } from "./metrics.ts";
import { nextPeerId, randomPeerColor, randomPeerName } from "./names.ts";
import { Peer } from "./peer.ts";
import type { Room } from "./room.ts";

/** The `t` of every client message, to name the message kind in error reasons. */
const KNOWN_TYPES: ReadonlySet<string> = new Set(
  ClientMessageSchema.options.map((option) => option.shape.t.value),
);

/** What a connection needs from its scene: the single node's `Room` or a cluster edge. */
export type SceneRoom = Pick<
  Room,
  "id" | "admit" | "hello" | "submit" | "pong" | "reportHash" | "leave"
>;

/** What each event body's token bucket is called in a `rate_limited` reason. */
const BODY_NOUNS = { launch: "launches", gun: "gun shots", settings: "settings changes" } as const;

/** Close code for a room that is full ("try again later"). */
export const CLOSE_ROOM_FULL = 1013;

/** Wires a freshly upgraded socket to its room. */
export function attachConnection(
  socket: WebSocket,
  room: SceneRoom,
  config: ServerConfig,
  metrics: Metrics,
): Peer {
  const peer = new Peer({
    id: nextPeerId(),
    name: randomPeerName(),
    color: randomPeerColor(),
    socket,
    limits: config.rateLimits,
    maxBufferedBytes: config.maxBufferedBytes,
    stats: metrics,
  });
  metrics.connectionsOpened++;
  // Admission happens at the upgrade, so an admitted connection needs no open handler: every
  // listener is retained per connection, and idle connections are what a big scene is made of.
  const refusal = room.admit(peer);
  if (refusal) {
    metrics.refuse(refusal.code);
    socket.onopen = () => {
      socket.send(JSON.stringify(refusal));
      peer.drop(CLOSE_ROOM_FULL, "room full");
    };
    return peer;
  }
  socket.onmessage = (e: MessageEvent) => {
    if (peer.gone) return;
    let refusal: ErrorMessage | null;
    try {
      refusal = handleFrame(peer, room, config, e.data);
    } catch (err) {
      // A failure here (say the database cannot write) must not escape the event handler: that
      // would end the whole process. The sender hears about it; nothing was broadcast.
      if (err instanceof StorageUnavailableError) {
        // Logged once by the store when writes start failing; the sender learns why.
        refusal = error(err.code, `${err.message}; nothing changed, try again later`);
      } else {
        config.log(`error: scene ${room.id} peer ${peer.id}: ${(err as Error).stack ?? err}`);
        refusal = error("internal", "the server could not handle that message; nothing changed");
      }
    }
    if (refusal) {
      metrics.refuse(refusal.code);
      peer.send(JSON.stringify(refusal));
    }
  };
  // No error listener: an error event is always followed by this close event.
  socket.onclose = () => {
    peer.gone = true;
    room.leave(peer);
  };
  return peer;
}

/** Checks one frame and hands it to the room; returns the refusal to send back, if any. */
function handleFrame(
  peer: Peer,
  room: SceneRoom,
  config: ServerConfig,
  data: unknown,
): ErrorMessage | null {
  if (typeof data !== "string") {
    const size = data instanceof ArrayBuffer ? data.byteLength : (data as Blob).size ?? 0;
    if (size > config.maxFrameBytes) return tooLarge(size, config.maxFrameBytes);
    return error("bad_message", "binary frames are not accepted: send JSON text");
  }
  if (data.length > config.maxFrameBytes / 3) {
    const size = utf8Length(data);
    if (size > config.maxFrameBytes) return tooLarge(size, config.maxFrameBytes);
  }
  const nowMs = config.monotonic();
  const wait = peer.take("frames", nowMs);
  if (wait > 0) return rateLimited("messages", wait);

  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch (e) {
    return error("bad_message", `invalid JSON: ${(e as Error).message}`);
  }
  const parsed = ClientMessageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return error("bad_message", `${issuePath(json, issue.path)}: ${issue.message}`);
  }
  return dispatch(peer, room, parsed.data, nowMs);
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

function dispatch(
  peer: Peer,
  room: SceneRoom,
  msg: ClientMessage,
  nowMs: number,
): ErrorMessage | null {
  if (msg.t === "hello") return room.hello(peer, msg.name, msg.lastSeq);
  if (!peer.welcomed) {
    const kind = msg.t === "submit" ? msg.body.type : msg.t;
    return error("bad_message", `${kind}: send hello first`);
  }
  switch (msg.t) {
    case "submit": {
      const type = msg.body.type;
      const wait = peer.take(type, nowMs);
      if (wait > 0) return rateLimited(BODY_NOUNS[type], wait);
      return room.submit(peer, msg.body);
    }
    case "ping":
      room.pong(peer, msg.id, msg.ct);
      return null;
    case "hash":
      return room.reportHash(peer, msg.tick, msg.h);
  }
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

function tooLarge(size: number, max: number): ErrorMessage {
  return error("too_large", `frame of ${size} bytes refused: the limit is ${max} bytes`);
}

function rateLimited(what: string, waitMs: number): ErrorMessage {
  return error("rate_limited", `too many ${what}; slow down`, waitMs);
}
