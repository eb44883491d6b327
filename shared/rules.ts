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

/**
 * Most host keys one host may have handed out (grants): past it, that host's oldest grant's key is
 * forgotten, never another host's.
 */
export const MAX_KEYS_PER_HOST = 8;
/**
 * Most host key hashes a scene keeps. When full, only the founder may still grant (their grant
 * forgets the oldest key a co-host handed out); the founder's own key is never forgotten.
 */
export const MAX_HOST_KEYS = 128;
/** Most peer ids kept as hosts (the oldest connection's rights go first, never the founder's). */
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
    rules: {
      ...rules,
      keys: [keyHash],
      founder: keyHash,
      hostKeys: { [peer]: keyHash },
      hosts: [peer],
    },
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

/** The hash of the founder's key (the first key, in a scene from before it was recorded). */
export function founderKey(rules: Rules): string | undefined {
  return rules.founder ?? rules.keys?.[0];
}

/** Whether `peer`'s host rights came from the founder's key (no co-host can take them). */
export function isFounder(rules: Rules, peer: string): boolean {
  const founder = founderKey(rules);
  return founder !== undefined && rules.hostKeys?.[peer] === founder;
}

/** The key `peer`'s host rights came from (undefined for a host from before keys were recorded). */
export function hostKeyOf(rules: Rules, peer: string): string | undefined {
  return rules.hostKeys?.[peer];
}

/**
 * Adds `peer` to the hosts (once) holding `key`: past MAX_HOST_PEERS the oldest host connection
 * that does not hold the founder's key loses its rights.
 */
function withHost(rules: Rules, peer: string, key: string | undefined): Rules {
  const hosts = rules.hosts.filter((p) => p !== peer);
  hosts.push(peer);
  const hostKeys = { ...rules.hostKeys };
  if (key !== undefined) hostKeys[peer] = key;
  const founder = founderKey(rules);
  while (hosts.length > MAX_HOST_PEERS) {
    const i = hosts.findIndex((p) => founder === undefined || hostKeys[p] !== founder);
    const [gone] = hosts.splice(i < 0 ? 0 : i, 1);
    delete hostKeys[gone];
  }
  return { ...rules, hosts, hostKeys };
}

/**
 * Adds a key minted by the host holding `from`: past MAX_KEYS_PER_HOST of that host's, its
 * oldest is forgotten; past MAX_HOST_KEYS, the oldest key a co-host minted (never the founder's).
 */
function withKey(rules: Rules, key: string, from: string | undefined): Rules {
  const founder = founderKey(rules);
  let keys = [...(rules.keys ?? []), key];
  const minted = { ...rules.minted };
  if (from !== undefined) minted[key] = from;
  const forget = (i: number) => {
    delete minted[keys[i]];
    keys = keys.filter((_, j) => j !== i);
  };
  if (from !== undefined) {
    const own = keys.filter((k) => minted[k] === from);
    if (own.length > MAX_KEYS_PER_HOST) forget(keys.indexOf(own[0]));
  }
  while (keys.length > MAX_HOST_KEYS) {
    let i = keys.findIndex((k) =>
      k !== founder && minted[k] !== undefined && minted[k] !== founder
    );
    if (i < 0) i = keys.findIndex((k) => k !== founder);
    forget(i);
  }
  return { ...rules, keys, minted };
}

/** The rules after a `rules` event. */
export function applyRules(rules: Rules, body: RulesBody): Rules {
  switch (body.do) {
    case "host": {
      const next = withHost(rules, body.peer, body.key ?? body.via);
      return body.key !== undefined ? withKey(next, body.key, body.from) : next;
    }
    case "rekey": {
      const drop = new Set(body.drop);
      const hosts = rules.hosts.filter((p) => !drop.has(p));
      if (body.key === undefined || body.old === undefined) {
        // As a client sees it: the hashes are the server's.
        return { ...rules, hosts };
      }
      const { key, old } = body;
      const hostKeys: Record<string, string> = {};
      for (const [p, k] of Object.entries(rules.hostKeys ?? {})) {
        if (!drop.has(p) && k !== old) hostKeys[p] = k;
      }
      hostKeys[body.peer] = key;
      const minted: Record<string, string> = {};
      for (const [k, from] of Object.entries(rules.minted ?? {})) {
        if (k !== old) minted[k] = from === old ? key : from;
      }
      if (rules.minted?.[old] !== undefined) minted[key] = rules.minted[old];
      const keys = (rules.keys ?? []).map((k) => k === old ? key : k);
      if (!keys.includes(key)) keys.push(key);
      const next: Rules = { ...rules, hosts, hostKeys, minted, keys };
      if (founderKey(rules) === old) next.founder = key;
      return next;
    }
    case "lock":
      return { ...rules, lock: body.lock };
    case "mute": {
      const next = {
        ...rules,
        muted: body.on
          ? listed(rules.muted, body.peer, MAX_LISTED_PEERS)
          : rules.muted.filter((p) => p !== body.peer),
      };
      if (body.person !== undefined) {
        next.mutedPeople = body.on
          ? listed(rules.mutedPeople ?? [], body.person, MAX_LISTED_PEERS)
          : (rules.mutedPeople ?? []).filter((p) => p !== body.person);
      }
      return next;
    }
    case "remove": {
      const hostKeys = { ...rules.hostKeys };
      delete hostKeys[body.peer];
      const next = {
        ...rules,
        removed: listed(rules.removed, body.peer, MAX_LISTED_PEERS),
        hosts: rules.hosts.filter((p) => p !== body.peer),
      };
      if (rules.hostKeys !== undefined) next.hostKeys = hostKeys;
      if (body.person !== undefined) {
        next.removedPeople = listed(rules.removedPeople ?? [], body.person, MAX_LISTED_PEERS);
      }
      return rules.composers !== undefined
        ? withoutComposers(next, [body.peer], body.person)
        : next;
    }
    case "pause":
      return { ...rules, paused: body.on };
    case "countdown":
      return { ...rules, countdown: body.countdown };
    case "compose": {
      if (!body.on) {
        return withoutComposers(rules, [body.peer, ...body.drop ?? []], body.person);
      }
      const composers = listed(rules.composers ?? [], body.peer, MAX_LISTED_PEERS);
      const people = { ...rules.composerPeople };
      if (body.person !== undefined) people[body.peer] = body.person;
      else delete people[body.peer];
      // Past the list's length the oldest connection's right goes, and the person behind it.
      for (const p of Object.keys(people)) if (!composers.includes(p)) delete people[p];
      const next: Rules = { ...rules, composers };
      if (Object.keys(people).length > 0) next.composerPeople = people;
      else delete next.composerPeople;
      return next;
    }
  }
}

/**
 * The composer fields without `peers`' rights and, when given, `person`'s (every connection of
 * that browser the server recorded).
 */
function withoutComposers(
  rules: Rules,
  peers: readonly string[],
  person: string | undefined,
): Rules {
  const gone = new Set(peers);
  const people: Record<string, string> = {};
  for (const [p, who] of Object.entries(rules.composerPeople ?? {})) {
    if (gone.has(p) || (person !== undefined && who === person)) gone.add(p);
    else people[p] = who;
  }
  const next: Rules = { ...rules, composers: (rules.composers ?? []).filter((p) => !gone.has(p)) };
  if (Object.keys(people).length > 0) next.composerPeople = people;
  else delete next.composerPeople;
  return next;
}

/**
 * Whether `peer` may compose, stamp and cancel shows: a host, or a person a host let compose.
 * `person` (the hash of the connection's browser token, known to the server only): the right
 * follows the person to a connection the rules do not list yet.
 */
export function mayCompose(rules: Rules, peer: string, person?: string): boolean {
  return isHost(rules, peer) || (rules.composers?.includes(peer) ?? false) ||
    isComposerPerson(rules, person);
}

/** Whether a host let the person whose browser token hashes to `person` compose (server only). */
export function isComposerPerson(rules: Rules, person: string | undefined): boolean {
  if (person === undefined || rules.composerPeople === undefined) return false;
  for (const p in rules.composerPeople) if (rules.composerPeople[p] === person) return true;
  return false;
}

/**
 * The same person's other composer connections (recorded with `person`): an un-grant takes the
 * right from them too (the `compose` event's `drop`).
 */
export function composerConnections(rules: Rules, person: string, except: string): string[] {
  const out: string[] = [];
  for (const [p, who] of Object.entries(rules.composerPeople ?? {})) {
    if (who === person && p !== except) out.push(p);
  }
  return out;
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

/**
 * Whether `peer` (whose browser token hashes to `person`, when known) is muted: by this
 * connection, or as the same person on any connection.
 */
export function isMuted(rules: Rules, peer: string, person?: string): boolean {
  return rules.muted.includes(peer) ||
    (person !== undefined && (rules.mutedPeople?.includes(person) ?? false));
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
  const rules = snapshot.rules;
  if (rules === undefined || !SERVER_ONLY.some((field) => rules[field] !== undefined)) {
    return snapshot;
  }
  const open = { ...rules };
  for (const field of SERVER_ONLY) delete open[field];
  return { ...snapshot, rules: open };
}

/** The fields of the rules only the server keeps (hashes of keys and of browser tokens). */
const SERVER_ONLY = [
  "keys",
  "founder",
  "minted",
  "hostKeys",
  "removedPeople",
  "mutedPeople",
  "composerPeople",
] as const;

/**
 * The event as a client may see it: a host grant without its key hashes, a removal or mute
 * without the person's token hash, a new host link without either key's hash.
 */
export function publicEvent(event: SceneEvent): SceneEvent {
  const body = event.body;
  if (body.type !== "rules") return event;
  if (body.do === "host" && (body.key ?? body.from ?? body.via) !== undefined) {
    return { ...event, body: { type: "rules", do: "host", peer: body.peer } };
  }
  if (body.do === "rekey" && (body.key ?? body.old) !== undefined) {
    return { ...event, body: { type: "rules", do: "rekey", peer: body.peer, drop: body.drop } };
  }
  if (
    (body.do === "remove" || body.do === "mute" || body.do === "compose") &&
    body.person !== undefined
  ) {
    const { person: _person, ...open } = body;
    return { ...event, body: open };
  }
  return event;
}
