/**
 * `SceneEndpoint`: what a connection (`server/ws/connection.ts`) needs from the scene it joined,
 * whichever home the scene has.
 */
import type { DraftEdit, ErrorMessage, Reaction } from "../../shared/protocol.ts";
import type { ClientBody, HostAction } from "../../shared/types.ts";
import type { Peer } from "./peer.ts";

/** What a connection needs from the scene it joined: the single node's `Room`, or a cluster edge. */
export interface SceneEndpoint {
  readonly id: string;
  /** Adds a fresh connection, or refuses it (say the scene is full). */
  admit(peer: Peer): ErrorMessage | null;
  /** The connection ended or was dropped (called at most once per admitted peer that leaves). */
  leave(peer: Peer): void;
  hello(peer: Peer, name: string | undefined, lastSeq: number | undefined): ErrorMessage | null;
  /** A welcomed peer goes by `name` now (`generated`: made up by the server). */
  rename(peer: Peer, name: string, generated: boolean): void;
  /** A validated, rate-limited launch, gun shot or settings change to stamp. */
  submit(peer: Peer, body: ClientBody): ErrorMessage | null;
  /** A validated, rate-limited host action to check and, when allowed, stamp. */
  host(peer: Peer, action: HostAction): ErrorMessage | null;
  /** A validated, rate-limited quick reaction to relay to everyone in the scene (not stored). */
  react(peer: Peer, emoji: Reaction): ErrorMessage | null;
  /** Whether the peer may compose shows now (a host, or let compose): longer frames then. */
  mayCompose(peer: Peer): boolean;
  /** A validated show draft edit to check, apply and relay to the scene's composers (not stored). */
  draft(peer: Peer, edits: readonly DraftEdit[]): ErrorMessage | null;
  pong(peer: Peer, id: number, ct: number): void;
  reportHash(peer: Peer, tick: number, hash: string): ErrorMessage | null;
  /**
   * Names of the scene's people connected to other nodes, as far as this one knows them (a
   * cluster edge: from their edges' presence). A newcomer's name is told apart from these too.
   */
  namesElsewhere?(): Iterable<string>;
  /**
   * Reserves `name` for `peer` wherever the scene's people are (a cluster edge: an atomic create
   * in NATS, giving up the name the peer held); false when someone holds it. Without it (the
   * single node, which sees everyone) names are told apart at once, synchronously.
   */
  claimName?(peer: Peer, name: string): Promise<boolean>;
  /**
   * Whether someone connected here holds `name` or is asking for it right now (a cluster edge):
   * such a candidate is passed over without asking, and without counting as a refusal.
   */
  nameBusyHere?(name: string): boolean;
}
