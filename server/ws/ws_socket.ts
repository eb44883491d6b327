/**
 * `ConnSocket`: what the connection layer needs from a WebSocket, whichever engine carries it
 * (`ws_deno.ts` wraps `Deno.upgradeWebSocket`, `ws_node.ts` wraps npm `ws` on `node:http`).
 * Text arrives as a string; a binary frame arrives only as its size, since it is refused unread.
 */
import type { SharedFrame } from "../scene/shared_frame.ts";

/** Callbacks a connection installs on its socket. */
export interface ConnSocketHandlers {
  /** A text frame (`text`), or a binary frame (`text` null) of `bytes` bytes. */
  message(text: string | null, bytes: number): void;
  /** The engine refused a frame over the size limit from its header (it is closing the socket). */
  oversized(): void;
  /** The socket closed (for whatever reason); called once. */
  close(): void;
}

/** One accepted WebSocket, engine-neutral. */
export interface ConnSocket {
  /** WebSocket readyState: 0 connecting, 1 open, 2 closing, 3 closed. */
  readonly readyState: number;
  /** Bytes queued for sending that the peer has not taken yet. */
  readonly bufferedAmount: number;
  /** Sends a text frame; a socket not yet open sends it as soon as it opens. */
  send(text: string): void;
  /**
   * Sends a frame that many sockets send alike (a broadcast): an engine that frames in JavaScript
   * encodes it once (`frame.wire`) and writes the same bytes to every socket.
   */
  sendShared(frame: SharedFrame): void;
  /**
   * Starts the closing handshake. `hard` is for abusers: stop reading from them, and drop the TCP
   * connection shortly after the close frame instead of waiting for their reply (engines that
   * cannot do that close normally).
   */
  close(code: number, reason: string, hard?: boolean): void;
  /** Installs the connection's callbacks (once, right after the upgrade). */
  listen(handlers: ConnSocketHandlers): void;
}

export {
  CLOSE_GOING_AWAY,
  CLOSE_POLICY,
  CLOSE_TOO_BIG,
  CLOSE_TRY_LATER,
} from "../scene/close_codes.ts";

/** Close reasons are at most 123 bytes of UTF-8; ours are ASCII, cut to fit. */
export function closeReason(reason: string): string {
  return reason.length > 120 ? reason.slice(0, 120) : reason;
}
