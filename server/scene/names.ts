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
