/**
 * A cluster edge's view of its scene's people on other nodes: each edge publishes who is
 * announced here (at once on a join, leave or rename; a whole roster every 2 s) and tells its own
 * clients of the others' people, within the presence limit; a node whose rosters stop is
 * forgotten. Token hashes travel between nodes only, never to clients.
 */
import type { PeerInfo } from "../../shared/protocol.ts";
import type { ServerClock } from "../scene/clock.ts";
import type { SceneRelay } from "../scene/relay.ts";
import type { NatsLink } from "./nats_link.ts";
import { presenceSubject } from "./subjects.ts";

/** Each edge publishes its announced people this often, so other nodes converge… */
const ROSTER_EVERY_MS = 2000;
/** …and forgets another node's people when its roster stops for this long (the node died). */
const ROSTER_EXPIRY_MS = 3 * ROSTER_EVERY_MS;

/** A presence message between a scene's edges. */
export interface PresenceNote {
  node: string;
  kind: "join" | "leave" | "rename" | "roster";
  peer?: PeerInfo;
  peers?: PeerInfo[];
  /**
   * The hashes of these people's browser tokens (see `Peer.person`), by peer id: between nodes
   * only, never to clients, so a host on any node can remove a person for good.
   */
  persons?: Record<string, string>;
}

/** What an edge's presence needs. */
export interface EdgePresenceDeps {
  scene: string;
  /** This node's id (presence messages name their node). */
  nodeId: string;
  link: NatsLink;
  clock: ServerClock;
  presenceLimit: number;
  /** The edge's relay: its announced people, and its clients to tell. */
  relay(): Pick<SceneRelay, "announced" | "personOf" | "broadcast">;
}

/**
 * The people of other nodes' edges of one scene.
 *
 * @example
 * ```ts ignore
 * const presence = new EdgePresence({ scene, nodeId, link, clock, presenceLimit, relay: () => relay });
 * presence.receive(msg.json<PresenceNote>());
 * presence.pass(clock.monotonicMs()); // a roster every 2 s, and forget silent nodes
 * ```
 */
export class EdgePresence {
  readonly #deps: EdgePresenceDeps;
  /** People announced by other nodes' edges of this scene, by node. */
  readonly #remote = new Map<string, { peers: Map<string, PeerInfo>; seenMs: number }>();
  #remoteCount = 0;
  /**
   * Hashes of browser tokens of people on other nodes, by peer id, as their edges told them (never
   * sent to clients): a host here removing one of them keeps that person out for good.
   */
  readonly #remotePersons = new Map<string, string>();
  #lastRosterMs = -Infinity;
  /** The people on other nodes, for the relay's presence (`SceneRelay`'s `others`). */
  readonly others: { readonly size: number; list(): PeerInfo[] };

  constructor(deps: EdgePresenceDeps) {
    this.#deps = deps;
    const remote = this.#remote;
    this.others = {
      get size() {
        let n = 0;
        for (const r of remote.values()) n += r.peers.size;
        return n;
      },
      list: () => [...remote.values()].flatMap((r) => [...r.peers.values()]),
    };
  }

  /** The token hash of a person on another node, when their edge told it. */
  personOf(id: string): string | undefined {
    return this.#remotePersons.get(id);
  }

  /** Whether `id` is announced by another node. */
  present(id: string): boolean {
    for (const remote of this.#remote.values()) if (remote.peers.has(id)) return true;
    return false;
  }

  /** Names of the people announced by other nodes. */
  *names(): Iterable<string> {
    for (const remote of this.#remote.values()) {
      for (const person of remote.peers.values()) yield person.name;
    }
  }

  /** Publishes this edge's roster every 2 s and forgets nodes whose rosters stopped. */
  pass(nowMs: number): void {
    if (nowMs - this.#lastRosterMs < ROSTER_EVERY_MS) return;
    this.#lastRosterMs = nowMs;
    const relay = this.#deps.relay();
    const announced = relay.announced();
    if (announced.length > 0) {
      const persons: Record<string, string> = {};
      for (const info of announced) {
        const person = relay.personOf(info.id);
        if (person) persons[info.id] = person;
      }
      this.publish({ kind: "roster", peers: announced, persons });
    }
    for (const [node, remote] of this.#remote) {
      if (nowMs - remote.seenMs > ROSTER_EXPIRY_MS) this.#reconcile(node, []);
    }
  }

  /** Tells the scene's other nodes about people here. */
  publish(note: Omit<PresenceNote, "node">): void {
    if (this.#deps.link.state !== "connected") return;
    this.#deps.link.publish(
      presenceSubject(this.#deps.scene),
      JSON.stringify({ node: this.#deps.nodeId, ...note }),
    );
  }

  /** Takes another node's presence note (this node's own are ignored). */
  receive(note: PresenceNote): void {
    if (note.node === this.#deps.nodeId) return;
    if (note.persons && typeof note.persons === "object") {
      for (const [id, person] of Object.entries(note.persons)) {
        // Bounded like the announced people (a roster lists at most the presence limit).
        if (this.#remotePersons.size >= 4 * this.#deps.presenceLimit) break;
        if (typeof person === "string" && /^[0-9a-f]{64}$/.test(person)) {
          this.#remotePersons.set(id, person);
        }
      }
    }
    if (note.kind === "leave" && note.peer) this.#remotePersons.delete(note.peer.id);
    const remote = this.#remote.get(note.node);
    const known = remote ? [...remote.peers.values()] : [];
    if (note.kind === "roster") this.#reconcile(note.node, note.peers ?? []);
    else if (note.kind === "join" && note.peer) this.#reconcile(note.node, [...known, note.peer]);
    else if (note.kind === "leave" && note.peer) {
      this.#reconcile(note.node, known.filter((p) => p.id !== note.peer!.id));
    } else if (note.kind === "rename" && note.peer) {
      // Someone not announced here (over the limit) stays unannounced under the new name.
      const renamed = note.peer;
      this.#reconcile(note.node, known.map((p) => p.id === renamed.id ? renamed : p));
    }
  }

  /**
   * Makes `node`'s announced people here equal `peers` (within the limit), telling clients: a
   * leave, a join, or a rename for a known id whose name changed (a missed rename note is caught
   * up by the next roster).
   */
  #reconcile(node: string, peers: PeerInfo[]): void {
    let remote = this.#remote.get(node);
    if (!remote) {
      remote = { peers: new Map(), seenMs: 0 };
      this.#remote.set(node, remote);
    }
    remote.seenMs = this.#deps.clock.monotonicMs();
    const wanted = new Map(peers.map((p) => [p.id, p]));
    for (const [id, info] of remote.peers) {
      if (wanted.has(id)) continue;
      remote.peers.delete(id);
      this.#remotePersons.delete(id);
      this.#remoteCount--;
      this.#deps.relay().broadcast(JSON.stringify({ t: "presence", kind: "leave", peer: info }));
    }
    for (const [id, info] of wanted) {
      const known = remote.peers.get(id);
      if (known) {
        if (known.name !== info.name || known.gen !== info.gen) {
          remote.peers.set(id, info);
          this.#deps.relay().broadcast(
            JSON.stringify({ t: "presence", kind: "rename", peer: info, was: known.name }),
          );
        }
        continue;
      }
      if (this.#deps.relay().announced().length + this.#remoteCount >= this.#deps.presenceLimit) {
        break;
      }
      remote.peers.set(id, info);
      this.#remoteCount++;
      this.#deps.relay().broadcast(JSON.stringify({ t: "presence", kind: "join", peer: info }));
    }
    if (remote.peers.size === 0) this.#remote.delete(node);
  }
}
