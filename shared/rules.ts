/**
 * A scene's host rules as every client and server folds them from `rules` events: pure, so the
 * page shows what the server enforces (who is a host, who may change settings, muted and removed
 * people, paused launches, the countdown). Host key hashes (`keys`) live in the same state on the
 * server; {@link publicSnapshot} and {@link publicEvent} take them out of anything a client gets.
 *
 * @example
 * ```ts
 * import { applyRules, DEFAULT_RULES, isHost } from "./rules.ts";
 * const rules = applyRules(DEFAULT_RULES, { type: "rules", do: "host", peer: "p1" });
 * console.log(isHost(rules, "p1")); // true
 * ```
 */
import type { Rules, RulesBody, SceneEvent, WorldSnapshot } from "./types.ts";

/** Most host key hashes a scene keeps (a grant past it forgets the oldest key). */
export const MAX_HOST_KEYS = 64;
/** Most peer ids kept as hosts (the oldest connection's rights go first). */
export const MAX_HOST_PEERS = 64;
/** Most peer ids kept muted, and removed (the oldest go first past it). */
export const MAX_LISTED_PEERS = 1024;

/** The rules of a scene created with a host: settings locked to hosts, nothing else set. */
export const DEFAULT_RULES: Readonly<Rules> = Object.freeze({
  keys: [],
  hosts: [],
  lock: "hosts",
  muted: [],
  removed: [],
  paused: false,
  countdown: null,
});

/**
 * A new scene's first snapshot with its creator as host: `peer` holds host rights and `keyHash`
 * is the SHA-256 of the creator's key. Both modes create a scene from it (the single node's
 * first hello, the cluster edge whose hello created the record), so no event is spent on it.
 */
export function foundedSnapshot(
  snapshot: WorldSnapshot,
  peer: string,
  keyHash: string,
): WorldSnapshot {
  const rules = rulesOf(snapshot);
  return {
    ...snapshot,
    rules: { ...rules, keys: [keyHash], hosts: [peer] },
  };
}

/** The rules in a snapshot (the defaults for a scene from before hosts). */
export function rulesOf(snapshot: WorldSnapshot): Rules {
  return snapshot.rules ?? (DEFAULT_RULES as Rules);
}

/** Appends `item` to `list` (once), keeping at most `max` items: a new array. */
function listed(list: readonly string[], item: string, max: number): string[] {
  const next = list.filter((x) => x !== item);
  next.push(item);
  return next.length > max ? next.slice(next.length - max) : next;
}

/** The rules after a `rules` event. */
export function applyRules(rules: Rules, body: RulesBody): Rules {
  switch (body.do) {
    case "host": {
      const next = { ...rules, hosts: listed(rules.hosts, body.peer, MAX_HOST_PEERS) };
      if (body.key !== undefined) next.keys = listed(rules.keys ?? [], body.key, MAX_HOST_KEYS);
      return next;
    }
    case "lock":
      return { ...rules, lock: body.lock };
    case "mute":
      return {
        ...rules,
        muted: body.on
          ? listed(rules.muted, body.peer, MAX_LISTED_PEERS)
          : rules.muted.filter((p) => p !== body.peer),
      };
    case "remove": {
      const next = {
        ...rules,
        removed: listed(rules.removed, body.peer, MAX_LISTED_PEERS),
        hosts: rules.hosts.filter((p) => p !== body.peer),
      };
      if (body.person !== undefined) {
        next.removedPeople = listed(rules.removedPeople ?? [], body.person, MAX_LISTED_PEERS);
      }
      return next;
    }
    case "pause":
      return { ...rules, paused: body.on };
    case "countdown":
      return { ...rules, countdown: body.countdown };
  }
}

/** Whether `peer` has host rights now. */
export function isHost(rules: Rules, peer: string): boolean {
  return rules.hosts.includes(peer);
}

/**
 * Whether the scene has a host at all: a scene from before hosts (or whose creator never got a
 * key) has none, and anyone may change its settings.
 */
export function hasHost(rules: Rules): boolean {
  return (rules.keys?.length ?? 0) > 0 || rules.hosts.length > 0;
}

/** Whether `peer` may change the settings under these rules. */
export function maySetSettings(rules: Rules, peer: string): boolean {
  return rules.lock === "everyone" || !hasHost(rules) || isHost(rules, peer);
}

/** Whether a person whose browser token hashes to `person` was removed from the scene. */
export function isRemovedPerson(rules: Rules, person: string | undefined): boolean {
  return person !== undefined && (rules.removedPeople?.includes(person) ?? false);
}

/**
 * The snapshot as a client may see it: the rules without the host key hashes and the removed
 * people's token hashes.
 */
export function publicSnapshot(snapshot: WorldSnapshot): WorldSnapshot {
  if (snapshot.rules?.keys === undefined && snapshot.rules?.removedPeople === undefined) {
    return snapshot;
  }
  const { keys: _keys, removedPeople: _people, ...rules } = snapshot.rules;
  return { ...snapshot, rules };
}

/**
 * The event as a client may see it: a host grant without its key hash, a removal without the
 * person's token hash.
 */
export function publicEvent(event: SceneEvent): SceneEvent {
  const body = event.body;
  if (body.type !== "rules") return event;
  if (body.do === "host" && body.key !== undefined) {
    return { ...event, body: { type: "rules", do: "host", peer: body.peer } };
  }
  if (body.do === "remove" && body.person !== undefined) {
    return { ...event, body: { type: "rules", do: "remove", peer: body.peer } };
  }
  return event;
}
