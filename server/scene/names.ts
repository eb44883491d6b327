/** Friendly random names: scene ids like `quiet-pine-4821`, peer names and colours. */

const ADJECTIVES = [
  "quiet",
  "frosty",
  "silver",
  "gentle",
  "starry",
  "hushed",
  "bright",
  "snowy",
  "crisp",
  "golden",
  "velvet",
  "misty",
  "amber",
  "lucky",
  "sleepy",
  "merry",
  "still",
  "midnight",
  "glowing",
  "icy",
];
const PLACES = [
  "pine",
  "hollow",
  "ridge",
  "harbor",
  "meadow",
  "lantern",
  "glade",
  "summit",
  "cabin",
  "brook",
  "spruce",
  "valley",
  "comet",
  "aurora",
  "drift",
  "birch",
  "fjord",
  "orchard",
  "beacon",
  "grove",
];
const ANIMALS = [
  "Fox",
  "Owl",
  "Hare",
  "Lynx",
  "Otter",
  "Moose",
  "Wren",
  "Robin",
  "Badger",
  "Stoat",
  "Seal",
  "Marten",
  "Elk",
  "Finch",
  "Raven",
  "Puffin",
  "Heron",
  "Bear",
  "Wolf",
  "Vole",
];
/** Distinct, readable on a dark sky. */
const COLORS = [
  "#ff6b6b",
  "#ffa94d",
  "#ffd43b",
  "#a9e34b",
  "#69db7c",
  "#38d9a9",
  "#3bc9db",
  "#4dabf7",
  "#748ffc",
  "#9775fa",
  "#da77f2",
  "#f783ac",
  "#e9ecef",
  "#ffc9c9",
  "#b2f2bb",
  "#a5d8ff",
];

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

function pick<T>(list: readonly T[], random: Random): T {
  return list[Math.floor(random() * list.length)];
}

/** A scene id such as `quiet-pine-4821` (valid for `SceneId`). */
export function randomSceneId(random: Random = Math.random): string {
  const number = 1000 + Math.floor(random() * 9000);
  return `${pick(ADJECTIVES, random)}-${pick(PLACES, random)}-${number}`;
}

/** A peer name such as `Frosty Owl`. */
export function randomPeerName(random: Random = Math.random): string {
  const adjective = pick(ADJECTIVES, random);
  return `${adjective[0].toUpperCase()}${adjective.slice(1)} ${pick(ANIMALS, random)}`;
}

/** A peer colour as `#rrggbb`. */
export function randomPeerColor(random: Random = Math.random): string {
  return pick(COLORS, random);
}

let peerCounter = 0;
let peerIdSuffix = "";

/** A peer id unique within this server process, short enough for every event's `by`. */
export function nextPeerId(random: Random = Math.random): string {
  peerCounter = (peerCounter + 1) % 0x100000;
  const noise = Math.floor(random() * 0x10000).toString(36);
  return `p${peerCounter.toString(36)}${noise}${peerIdSuffix}`;
}

/**
 * Cluster mode: every node's peer ids end in `suffix`, so ids stay unique across nodes (each
 * node's counter starts at 1; desync votes and presence key people by id scene-wide).
 */
export function setPeerIdSuffix(suffix: string): void {
  peerIdSuffix = suffix;
}

/** A scene seed: a uniform unsigned 32-bit integer. */
export function randomSeed(random: Random = Math.random): number {
  return Math.floor(random() * 0x100000000) >>> 0;
}

/**
 * Characters a name may not carry: controls (C0, C1, DEL), format characters (bidi embeddings,
 * overrides and isolates, LRM/RLM/ALM, zero-width spaces and joiners, the BOM, soft hyphens, tag
 * characters), line and paragraph separators, private-use and unassigned code points.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu;
/** More than two combining marks on one letter ("Zalgo" text spilling over other lines). */
const MARK_PILE = /(\p{M}{2})\p{M}+/gu;

/**
 * A chosen name made safe to show: NFC, unsafe characters removed, at most two combining marks per
 * letter, runs of spaces (of any kind) collapsed to one, trimmed, at most `maxLength` code points.
 * `undefined` when nothing is left (the generated name stays).
 *
 * @example
 * ```ts
 * cleanName("\u202eevil\u202c  Owl\u0007"); // "evil Owl"
 * cleanName("\u200b \u2066"); // undefined
 * ```
 */
export function cleanName(raw: string | undefined, maxLength = 32): string | undefined {
  if (raw === undefined) return undefined;
  const cleaned = raw.normalize("NFC").replace(/\s+/gu, " ").replace(UNSAFE, "")
    .replace(MARK_PILE, "$1").replace(/ +/g, " ").trim();
  const cut = [...cleaned].slice(0, maxLength).join("").trim();
  return cut === "" ? undefined : cut;
}

/**
 * What two names are compared by: compatibility-folded (NFKC: full-width letters, ligatures),
 * without combining marks, case-folded, spaces removed. "Frosty Owl", "frosty owl", "ＦｒｏｓｔｙＯｗｌ"
 * and "Fróstÿ Owl" share one key.
 *
 * @example
 * ```ts
 * nameKey("Frosty  OWL") === nameKey("frostyowl"); // true
 * ```
 */
export function nameKey(name: string): string {
  return name.normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFKC").toLowerCase()
    .replace(/\s+/gu, "");
}

/**
 * The names `name` may be told apart by, in order: `name`, `name (2)`, `name (3)` … (cut so each
 * stays within `maxLength` code points). The one rule behind {@link distinctName} and
 * {@link claimDistinctName}.
 *
 * @example
 * ```ts
 * const [first, second] = nameCandidates("Ana"); // "Ana", "Ana (2)"
 * ```
 */
export function* nameCandidates(name: string, maxLength = 32): Generator<string, never> {
  yield name;
  for (let n = 2;; n++) {
    const suffix = ` (${n})`;
    const base = [...name].slice(0, Math.max(1, maxLength - suffix.length)).join("").trimEnd();
    yield `${base}${suffix}`;
  }
}

/**
 * The names a new name must differ from: their keys (`nameKey`) as a test, or the names
 * themselves (keyed here).
 */
export type TakenNames = Iterable<string> | ((key: string) => boolean);

function takenTest(taken: TakenNames): (key: string) => boolean {
  if (typeof taken === "function") return taken;
  const keys = new Set<string>();
  for (const other of taken) keys.add(nameKey(other));
  return (key) => keys.has(key);
}

/**
 * `name`, or `name (2)`, `name (3)` … : the first whose key no other name in `taken` has.
 * `taken` as a test of keys spares keying every name in a crowded scene for each newcomer
 * (`SceneNames.takenByOthers`).
 *
 * @example
 * ```ts
 * distinctName("Frosty Owl", ["frosty owl"]); // "Frosty Owl (2)"
 * ```
 */
export function distinctName(name: string, taken: TakenNames, maxLength = 32): string {
  const isTaken = takenTest(taken);
  for (const candidate of nameCandidates(name, maxLength)) {
    if (!isTaken(nameKey(candidate))) return candidate;
  }
  throw new Error("unreachable");
}

/**
 * As {@link distinctName}, for names held beyond this process (a cluster's scene): each
 * candidate not in `taken` is offered to `claim` (an atomic reservation), and the first one it
 * grants is the name. A candidate `busy` says someone here holds or is asking for right now is
 * passed over without asking (a crowd saying hello at once with one name would otherwise ask
 * for the same candidates in turn). After `attempts` refusals (someone holds a long run of
 * suffixes) the next candidate is returned unclaimed: a name is never refused.
 *
 * @example
 * ```ts
 * const held = new Set(["ana"]);
 * await claimDistinctName("Ana", [], async (c) => !held.has(nameKey(c))); // "Ana (2)"
 * ```
 */
export async function claimDistinctName(
  name: string,
  taken: TakenNames,
  claim: (candidate: string) => Promise<boolean>,
  maxLength = 32,
  busy: (candidate: string) => boolean = () => false,
  attempts = 32,
): Promise<string> {
  const isTaken = takenTest(taken);
  let refused = 0;
  for (const candidate of nameCandidates(name, maxLength)) {
    if (isTaken(nameKey(candidate)) || busy(candidate)) continue;
    if (refused >= attempts || await claim(candidate)) return candidate;
    refused++;
  }
  throw new Error("unreachable");
}

/**
 * The names in use in each scene this server carries (people connected here), so a newcomer's
 * name can be told apart from theirs. Keyed by the scene object: a reloaded scene starts empty.
 * Each scene also counts its names' keys, so telling a name apart costs the same in a crowd of
 * a thousand as among three (listing and keying every name per hello made a crowd's joins
 * quadratic: the largest cost of a 1000-client join in a profile of the load test).
 */
export class SceneNames<Scene extends object, Person> {
  readonly #byScene = new WeakMap<
    Scene,
    { names: Map<Person, string>; keys: Map<string, number> }
  >();

  /** Whether someone in `scene` other than `person` goes by a name whose key is `key`. */
  takenByOthers(scene: Scene, person: Person, key: string): boolean {
    const entry = this.#byScene.get(scene);
    if (!entry) return false;
    const count = entry.keys.get(key) ?? 0;
    const own = entry.names.get(person);
    return count - (own !== undefined && nameKey(own) === key ? 1 : 0) > 0;
  }

  /** `person` goes by `name` in `scene`. */
  set(scene: Scene, person: Person, name: string): void {
    let entry = this.#byScene.get(scene);
    if (!entry) this.#byScene.set(scene, entry = { names: new Map(), keys: new Map() });
    const was = entry.names.get(person);
    if (was === name) return;
    if (was !== undefined) this.#uncount(entry.keys, was);
    entry.names.set(person, name);
    const key = nameKey(name);
    entry.keys.set(key, (entry.keys.get(key) ?? 0) + 1);
  }

  /** `person` left `scene`. */
  delete(scene: Scene, person: Person): void {
    const entry = this.#byScene.get(scene);
    const was = entry?.names.get(person);
    if (entry === undefined || was === undefined) return;
    entry.names.delete(person);
    this.#uncount(entry.keys, was);
  }

  #uncount(keys: Map<string, number>, name: string): void {
    const key = nameKey(name);
    const count = (keys.get(key) ?? 0) - 1;
    if (count > 0) keys.set(key, count);
    else keys.delete(key);
  }
}
