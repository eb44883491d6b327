/**
 * Who hears a scene: the welcomed connections that every stamped event and heartbeat fans out to,
 * and the people announced by presence. It does not care who stamps the events it carries.
 */
import type { PeerInfo } from "../../shared/protocol.ts";
import { SharedFrame } from "./shared_frame.ts";

/** Every this many heartbeats, each socket's unsent backlog is checked against the cap. */
const BACKPRESSURE_EVERY = 4;

/** What the audience needs from a connection. */
export interface Listener {
  /**
   * Sends a text frame (nothing once the listener is gone); a broadcast passes the same
   * `SharedFrame` to every listener, so it is encoded once for all of them.
   */
  send(frame: string | SharedFrame): void;
  /** Like `send`, but first drops the listener when its socket is too far behind. */
  sendChecked(frame: string | SharedFrame): void;
  /** True once dropped or closed. */
  readonly gone: boolean;
  /** Position in the audience (kept by the audience; -1 when not in it). */
  audienceIndex: number;
  /** Public identity, for presence. */
  info(): PeerInfo;
}

/** A scene's welcomed listeners and announced people. */
export class Audience<L extends Listener> {
  /** Welcomed listeners, the ones broadcasts go to (a dense array: the fan-out loop is hot). */
  readonly #listeners: L[] = [];
  /**
   * The people announced to everyone. Announcing every join and leave to everyone costs
   * O(people²) frames and welcomes grow O(people); past `presenceLimit` newcomers are present
   * (and counted by the API) but not announced.
   */
  readonly #announced = new Set<L>();
  readonly #presenceLimit: number;
  /** Heartbeats sent; every BACKPRESSURE_EVERY-th one checks the sockets' backlog. */
  #beats = 0;

  constructor(presenceLimit: number) {
    this.#presenceLimit = presenceLimit;
  }

  /** Number of welcomed listeners. */
  get size(): number {
    return this.#listeners.length;
  }

  /** The welcomed listeners (a copy). */
  members(): L[] {
    return [...this.#listeners];
  }

  /** The announced people, as a welcome lists them. */
  announced(): PeerInfo[] {
    return [...this.#announced].map((l) => l.info());
  }

  /** Adds a listener to the fan-out (once). */
  add(listener: L): void {
    if (listener.audienceIndex >= 0 && this.#listeners[listener.audienceIndex] === listener) return;
    listener.audienceIndex = this.#listeners.length;
    this.#listeners.push(listener);
  }

  /**
   * Marks a newcomer as announced while fewer than the presence limit are; true when it was (the
   * caller sends the join presence once the newcomer has its welcome).
   */
  announce(listener: L): boolean {
    if (this.#announced.size >= this.#presenceLimit) return false;
    this.#announced.add(listener);
    return true;
  }

  /** Tells everyone but `listener` that it joined. */
  presenceJoin(listener: L): void {
    this.broadcast(
      JSON.stringify({ t: "presence", kind: "join", peer: listener.info() }),
      listener,
    );
  }

  /**
   * Tells everyone (`listener` included, so it learns the name it got) that `listener`, once
   * called `was`, took its current name; true when it had been announced. An unannounced listener
   * is told alone (nobody else knows it is here), and so is one told `alone` (the others hear it
   * later, see `presenceRenameToOthers`).
   */
  presenceRename(listener: L, was: string, alone = false): boolean {
    const frame = JSON.stringify({ t: "presence", kind: "rename", peer: listener.info(), was });
    if (alone || !this.#announced.has(listener)) {
      listener.send(frame);
      return this.#announced.has(listener);
    }
    this.broadcast(frame);
    return true;
  }

  /**
   * Tells everyone but `listener` (who was told already) that it, once called `was`, goes by its
   * current name; true when it is announced (else nobody else knows it is here).
   */
  presenceRenameToOthers(listener: L, was: string): boolean {
    if (!this.#announced.has(listener)) return false;
    const frame = JSON.stringify({ t: "presence", kind: "rename", peer: listener.info(), was });
    this.broadcast(frame, listener);
    return true;
  }

  /** Takes a listener out; tells the others when it had been announced (and returns true). */
  remove(listener: L): boolean {
    this.#unlist(listener);
    if (!this.#announced.delete(listener)) return false;
    this.broadcast(JSON.stringify({ t: "presence", kind: "leave", peer: listener.info() }));
    return true;
  }

  /** Sends `text` to every welcomed listener except `except` (one `SharedFrame` for all). */
  broadcast(text: string, except?: L): void {
    const listeners = this.#listeners;
    const frame = new SharedFrame(text);
    for (let i = 0; i < listeners.length; i++) {
      if (listeners[i] !== except) listeners[i].send(frame);
    }
  }

  /**
   * Sends a heartbeat to everyone. Asking the runtime for each socket's backlog costs a call per
   * listener; every few beats is enough to keep the backlog bounded (between checks only a few
   * periods' frames add up). Listeners dropped for backpressure are passed to `dropped`.
   */
  heartbeat(text: string, dropped: (listener: L) => void): void {
    const listeners = this.#listeners;
    const frame = new SharedFrame(text);
    if (this.#beats++ % BACKPRESSURE_EVERY === 0) {
      // Backwards, so that a dropped listener's swap-remove only moves an already visited one.
      for (let i = listeners.length - 1; i >= 0; i--) {
        const listener = listeners[i];
        listener.sendChecked(frame);
        // A dropped reader may never finish the close handshake: it leaves now.
        if (listener.gone) dropped(listener);
      }
    } else {
      for (let i = 0; i < listeners.length; i++) listeners[i].send(frame);
    }
  }

  /** Forgets everyone without telling anyone (shutdown). */
  clear(): void {
    for (const listener of this.#listeners) listener.audienceIndex = -1;
    this.#listeners.length = 0;
    this.#announced.clear();
  }

  /** Swap-remove from the fan-out: broadcast order carries no meaning. */
  #unlist(listener: L): void {
    const i = listener.audienceIndex;
    if (i < 0 || this.#listeners[i] !== listener) return;
    const last = this.#listeners.pop()!;
    if (last !== listener) {
      this.#listeners[i] = last;
      last.audienceIndex = i;
    }
    listener.audienceIndex = -1;
  }
}
