/**
 * Scene limits, shared by the single-node rooms and the cluster's scenes: at most `maxScenes`
 * loaded on this process (a full server makes room for a newcomer's network by unloading a scene of
 * the network holding the most, see `largestHolderScene`), and per client address and per network
 * a token bucket for creating new scenes. The refusals read the same in both modes.
 */
import type { ErrorMessage } from "../../shared/protocol.ts";
import { errorMessage } from "./errors.ts";
import type { RateLimit } from "./ratelimit.ts";
import { AddressBudgets, networkBudget, networkKey } from "./ratelimit.ts";
import { CLOSE_POLICY, CLOSE_TRY_LATER } from "./close_codes.ts";

/** How long a new scene's token covers others opening it (their upgrades race its first hello). */
export const CHARGED_MS = 10_000;

/** Scene limits. */
export interface SceneLimits {
  /** Most scenes loaded at once. */
  maxScenes: number;
  /** Per client address: new scenes it may create. */
  newScenes: RateLimit;
}

/** No limits (tests and tools that create scenes by the thousand). */
export const UNLIMITED_SCENES: SceneLimits = {
  maxScenes: 1e7,
  newScenes: { perSecond: 1e6, burst: 1e6 },
};

/** Why a scene cannot be opened now: for an HTTP page and for a WebSocket alike. */
export interface SceneRefusal {
  status: 429 | 503;
  code: "server_busy" | "rate_limited";
  message: string;
  closeCode: number;
  retryAfterMs?: number;
}

/**
 * The per-address budget for new scenes, and the two refusals.
 *
 * @example
 * ```ts
 * const gate = new SceneGate({ maxScenes: 2, newScenes: { perSecond: 0.1, burst: 1 } });
 * gate.newScene("192.0.2.1", 0, true); // null: granted
 * gate.newScene("192.0.2.1", 0, true)?.code; // "rate_limited"
 * ```
 */
export class SceneGate {
  readonly limits: SceneLimits;
  readonly #newScenes: AddressBudgets;
  /** New scenes a token was taken for lately, until when it covers them (monotonic ms). */
  readonly #charged = new Map<string, number>();

  constructor(limits: SceneLimits) {
    this.limits = limits;
    this.#newScenes = new AddressBudgets(limits.newScenes, networkBudget(limits.newScenes));
  }

  /** The refusal when `loaded` scenes fill the cap, else null. */
  capacity(loaded: number): SceneRefusal | null {
    if (loaded < this.limits.maxScenes) return null;
    return {
      status: 503,
      code: "server_busy",
      message: `this server already runs ${this.limits.maxScenes} scenes; try again later`,
      closeCode: CLOSE_TRY_LATER,
    };
  }

  /**
   * Room among the `scenes` loaded here for a newcomer from `address`: null when there is room or
   * it was made, else the refusal. A full host closes the scene empty for longest; with none
   * empty, one of the network holding the most (see `largestHolderScene`; null when none holds
   * two more than the newcomer's), only for a WebSocket upgrade (`take`: a page load only asks
   * whether it could), its people told why first (`unloadedForNetwork`). `close(id, scene, busy)`
   * closes one: `busy` is null for an empty one, else the refusal its sockets close with.
   */
  makeRoom<S extends RoomedScene>(
    scenes: Map<string, S>,
    address: string,
    take: boolean,
    close: (id: string, scene: S, busy: SceneRefusal | null) => void,
  ): SceneRefusal | null {
    const busy = this.capacity(scenes.size);
    if (!busy) return null;
    const oldest = longestEmpty(scenes);
    if (oldest) {
      close(oldest[0], oldest[1], null);
      return null;
    }
    const id = largestHolderScene(scenes, address);
    if (id === undefined) return busy;
    if (!take) return null;
    const scene = scenes.get(id)!;
    const notice = JSON.stringify(unloadedForNetwork(this.limits.maxScenes));
    for (const peer of scene.peers.values()) peer.send(notice);
    close(id, scene, busy);
    return null;
  }

  /**
   * Takes (or with `take` false only checks) a new-scene token for `address`; null when granted.
   * With `scene`, a token taken for it in the last CHARGED_MS covers everyone opening it meanwhile
   * (many people opening a new scene's link at once pay for it once, not once each).
   */
  newScene(address: string, nowMs: number, take: boolean, scene?: string): SceneRefusal | null {
    if (scene !== undefined && (this.#charged.get(scene) ?? -Infinity) > nowMs) return null;
    const wait = this.#newScenes.take(address, nowMs, !take);
    if (wait === 0) {
      if (take && scene !== undefined) {
        // Bounded without a sweep too (a cluster node does not call `sweep`).
        if (this.#charged.size >= 4096) this.#forgetCharged(nowMs);
        this.#charged.set(scene, nowMs + CHARGED_MS);
      }
      return null;
    }
    return {
      status: 429,
      code: "rate_limited",
      message: `too many new scenes from your address or its network; try again in ${
        Math.ceil(wait / 1000)
      } s`,
      closeCode: CLOSE_POLICY,
      retryAfterMs: Math.ceil(wait),
    };
  }

  /** Forgets addresses whose budgets are full again. */
  sweep(nowMs: number): void {
    this.#newScenes.sweep(nowMs);
    this.#forgetCharged(nowMs);
  }

  #forgetCharged(nowMs: number): void {
    for (const [scene, until] of this.#charged) if (until <= nowMs) this.#charged.delete(scene);
  }
}

/**
 * The entry that has been empty longest (`emptySinceMs` smallest), or undefined when none is
 * empty: the one to unload when the cap needs room.
 *
 * @example
 * ```ts
 * longestEmpty(new Map([["a", { emptySinceMs: 5 }], ["b", { emptySinceMs: null }]])); // ["a", …]
 * ```
 */
export function longestEmpty<T extends { emptySinceMs: number | null }>(
  entries: Iterable<[string, T]>,
): [string, T] | undefined {
  let oldest: [string, T] | undefined;
  for (const entry of entries) {
    const since = entry[1].emptySinceMs;
    if (since !== null && (!oldest || since < oldest[1].emptySinceMs!)) oldest = entry;
  }
  return oldest;
}

/** A loaded scene as the loaded-scene share sees it: the addresses of the people in it. */
export interface HeldScene {
  readonly peers: { values(): Iterable<{ readonly address: string | undefined }> };
}

/** Connections across the loaded `scenes` (their people here). */
export function connectionsIn(scenes: Map<string, { readonly peers: { size: number } }>): number {
  let n = 0;
  for (const scene of scenes.values()) n += scene.peers.size;
  return n;
}

/** A loaded scene as `SceneGate.makeRoom` sees it: empty since when, and its people. */
export interface RoomedScene {
  readonly emptySinceMs: number | null;
  readonly peers: {
    values(): Iterable<{ readonly address: string | undefined; send(text: string): void }>;
  };
}

/**
 * The loaded-scene share of a full server: which scene to unload so that a newcomer from
 * `address` may open one, or undefined (refuse the newcomer). A scene is held by a network (IPv4
 * /24, IPv6 /64) when everyone in it comes from that network; a scene people from several
 * networks share is nobody's and never unloaded for this. The network holding the most scenes
 * gives up one (the one with the fewest people in it) when it holds at least two more than the
 * newcomer's network: a full server still admits a newcomer from an unseen network, and no network
 * can take the last scene from one that holds as many.
 *
 * @example
 * ```ts
 * const one = (address: string) => ({ peers: new Map([["p", { address }]]) });
 * const scenes = new Map([["a", one("10.0.0.1")], ["b", one("10.0.0.2")]]);
 * largestHolderScene(scenes, "192.0.2.1"); // "a": 10.0.0.0/24 holds two, the newcomer none
 * largestHolderScene(scenes, "10.0.0.3"); // undefined: the newcomer's network is the largest
 * ```
 */
export function largestHolderScene(
  scenes: Iterable<[string, HeldScene]>,
  address: string,
): string | undefined {
  const held = new Map<string, { count: number; smallest: string; people: number }>();
  for (const [id, scene] of scenes) {
    let network: string | undefined;
    let people = 0;
    let shared = false;
    for (const peer of scene.peers.values()) {
      people++;
      const key = peer.address === undefined ? undefined : networkKey(peer.address);
      if (key === undefined || (network !== undefined && key !== network)) {
        shared = true;
        break;
      }
      network = key;
    }
    if (shared || network === undefined) continue;
    const entry = held.get(network);
    if (!entry) held.set(network, { count: 1, smallest: id, people });
    else {
      entry.count++;
      if (people < entry.people) {
        entry.smallest = id;
        entry.people = people;
      }
    }
  }
  let largest: { count: number; smallest: string } | undefined;
  for (const entry of held.values()) if (!largest || entry.count > largest.count) largest = entry;
  const mine = held.get(networkKey(address))?.count ?? 0;
  return largest && largest.count >= mine + 2 ? largest.smallest : undefined;
}

/**
 * What the people of a scene unloaded for a newcomer's network are told (see
 * `largestHolderScene`) before their sockets close with 1013.
 */
export function unloadedForNetwork(maxScenes: number): ErrorMessage {
  return errorMessage(
    "server_busy",
    `this server is full (${maxScenes} scenes) and your network holds the most of them: this ` +
      "scene closed to make room for someone else's; try again later",
  );
}
