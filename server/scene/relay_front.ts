/**
 * `RelayFront`: the calls a scene's front (the single node's `Room`, a cluster's `SceneEdge`)
 * hands to its `SceneRelay` unchanged, written once for both. A front overrides the ones where it
 * does more (an edge's `leave` frees the name across the cluster first).
 *
 * @example
 * ```ts
 * import { RelayFront } from "./relay_front.ts";
 * import type { SceneRelay } from "./relay.ts";
 *
 * class Front extends RelayFront {
 *   constructor(readonly inner: SceneRelay) {
 *     super();
 *   }
 *   protected get relay(): SceneRelay {
 *     return this.inner;
 *   }
 * }
 * ```
 */
import type { DraftEdit, ErrorMessage, Reaction } from "../../shared/protocol.ts";
import type { Peer } from "./peer.ts";
import type { SceneRelay } from "./relay.ts";

/** A scene's front whose peer calls go to its relay (see the module's note). */
export abstract class RelayFront {
  /** The relay of this front's connections. */
  protected abstract get relay(): SceneRelay;

  /** Connections here, welcomed or not. */
  get peers(): ReadonlyMap<string, Peer> {
    return this.relay.peers;
  }

  /** Monotonic ms since this front has had no peers here (for unloading), or null. */
  get emptySinceMs(): number | null {
    return this.relay.emptySinceMs;
  }

  /** Peers here that got their welcome. */
  welcomedPeers(): Peer[] {
    return this.relay.welcomedPeers();
  }

  /** Adds a fresh connection, or refuses it when the scene is full here. */
  admit(peer: Peer): ErrorMessage | null {
    return this.relay.admit(peer);
  }

  /** Removes a peer (its socket closed or it was dropped) and tells the others. */
  leave(peer: Peer): void {
    this.relay.leave(peer);
  }

  /** A welcomed peer takes another name (see `SceneRelay.rename`). */
  rename(peer: Peer, name: string, generated: boolean): void {
    this.relay.rename(peer, name, generated);
  }

  /** Whether `peer` may compose shows now (a host, or a person a host lets compose). */
  mayCompose(peer: Peer): boolean {
    return this.relay.mayCompose(peer);
  }

  /** Applies show draft edits and relays them to the composers (see `SceneRelay.draft`). */
  draft(peer: Peer, edits: readonly DraftEdit[]): ErrorMessage | null {
    return this.relay.draft(peer, edits);
  }

  /** Relays a quick reaction to everyone in the scene (see `SceneRelay.react`). */
  react(peer: Peer, emoji: Reaction): ErrorMessage | null {
    return this.relay.react(peer, emoji);
  }

  /** Answers `ping` with the scene's fractional tick (see `SceneRelay.pong`). */
  pong(peer: Peer, id: number, ct: number): void {
    this.relay.pong(peer, id, ct);
  }

  /** Records or forwards a checkpoint hash (see `SceneRelay.reportHash`). */
  reportHash(peer: Peer, tick: number, hash: string): ErrorMessage | null {
    return this.relay.reportHash(peer, tick, hash);
  }
}
