/**
 * Regenerates the golden replay fixtures in `tests/fixtures/replay/`: each scenario's input plus
 * the hashes this world computes for it now. Run it only when a simulation change is intended:
 * `deno run -A scripts/make_fixtures.ts`, then review and commit the diff. With `--hashes-only` it
 * keeps each file's input as it is and recomputes only its expected hashes (for a change to the
 * hash itself, or to maths that leaves the scenarios as they were).
 */
import { FIREWORK_KINDS } from "../shared/firework_kinds.ts";
import { replay, type ReplayInput } from "../shared/replay.ts";
import type { SceneEvent } from "../shared/types.ts";
import { busyScenario } from "../testing/world_scenarios.ts";

/** A fixture file: a replay input, what it shows, and the expected checkpoints. */
interface Fixture extends ReplayInput {
  description: string;
  expected: { tick: number; hash: string }[];
}

const quiet = { fountain: false, show: false } as const;
let seq = 0;
const at = (tick: number, body: SceneEvent["body"]): SceneEvent => ({
  seq: ++seq,
  tick,
  by: "fixture",
  body,
});

function scenarios(): Record<string, Omit<Fixture, "expected">> {
  seq = 0;
  const oneFirework = [at(10, { type: "launch", x: 5, z: -8, theme: "red-gold" })];
  seq = 0;
  const overlapping = [
    at(5, { type: "launch", x: -20, z: 0, theme: "blue-silver" }),
    at(5, { type: "launch", x: 20, z: 10 }),
    at(30, { type: "launch", x: 0, z: -30, theme: "rainbow" }),
    at(45, { type: "launch", x: -35, z: 35, theme: "green-purple" }),
    at(60, { type: "launch", x: 12, z: 40 }),
    at(61, { type: "launch", x: 40, z: -40, theme: "red-gold" }),
  ];
  seq = 0;
  const gun = [
    at(3, { type: "gun", origin: [0, 2, 50], direction: [0, 0.2, -1] }),
    at(20, { type: "gun", origin: [-55, 10, -55], direction: [1, 0.5, 1] }),
    at(20, { type: "gun", origin: [30, 1, 0], direction: [-3, 4, 0.5] }),
    at(90, { type: "gun", origin: [0, 80, 0], direction: [0.1, 1, 0] }),
    // From a default view's camera outside the box, into the scene and out of its far side.
    at(100, { type: "gun", origin: [3, 53.66, 133.86], direction: [0, -0.13, -1] }),
  ];
  seq = 0;
  const snow = [
    at(240, { type: "settings", settings: { windSpeed: 9, windDirection: 200 } }),
    at(480, { type: "settings", settings: { snow: 1 } }),
    at(600, { type: "settings", settings: { snow: 0.2, windSpeed: 0 } }),
  ];
  seq = 0;
  const fountain = [
    at(200, { type: "settings", settings: { fountain: false } }),
    at(260, { type: "settings", settings: { fountain: true } }),
    at(330, { type: "settings", settings: { fountainSpin: true } }),
    at(420, { type: "settings", settings: { fountainSpiral: true } }),
  ];
  seq = 0;
  // A sky click bursts at its aim point; a ground click (no y) at the launch's seeded height.
  const aimed = [
    at(5, { type: "launch", x: -30, z: 10, y: 18, kind: "peony", theme: "rainbow" }),
    at(5, { type: "launch", x: 30, z: -10, y: 55, kind: "ring", theme: "blue-silver" }),
    at(40, { type: "launch", x: 0, z: 44, y: 33.3, kind: "heart", theme: "red-gold" }),
    at(41, { type: "launch", x: -44, z: -44, kind: "willow", breaks: 3 }),
  ];
  seq = 0;
  // A host's show stamped as one event: twelve cues from tick 60, then a second show cancelled
  // at tick 200, after two of its cues went up (those after the cancel never launch).
  const show = [
    at(5, {
      type: "show",
      title: "Fixture duet",
      start: 60,
      cues: Array.from({ length: 12 }, (_, i) => ({
        at: i * 20,
        x: -30 + i * 5,
        z: (i % 3) * 10 - 10,
        ...(i % 4 === 1 ? { y: 40 } : {}),
        ...(i % 3 === 2 ? { kind: "willow" as const, breaks: 2 } : {}),
        ...(i % 5 === 0 ? { theme: "rainbow" as const } : {}),
      })),
    }),
    at(6, {
      type: "show",
      title: "Cut short",
      start: 150,
      cues: [0, 40, 60, 90, 130].map((t) => ({ at: t, x: 20, z: 20 - t / 10 })),
    }),
    at(200, { type: "show-cancel", show: 2 }),
  ];
  const kinds: Record<string, Omit<Fixture, "expected">> = {};
  FIREWORK_KINDS.forEach((kind, k) => {
    seq = 0;
    kinds[`kind_${kind}`] = {
      description: `One ${kind}, then a two-break ${kind} aimed at 30 m, all dead by the end.`,
      seed: 100 + k,
      settings: { ...quiet, snow: 0 },
      events: [
        at(10, { type: "launch", x: 4, z: -6, kind, theme: "green-purple" }),
        at(90, { type: "launch", x: -12, z: 8, y: 30, kind, breaks: 2 }),
      ],
      ticks: 600,
      every: 30,
    };
  });
  return {
    ...kinds,
    aimed: {
      description: "Aimed launches at the lowest and highest burst heights, and a 3-break willow.",
      seed: 77,
      settings: { ...quiet, snow: 0 },
      events: aimed,
      ticks: 540,
      every: 30,
    },
    snow_only: {
      description: "Default snow, no fountain, no events; then wind and intensity from settings.",
      seed: 11,
      settings: { ...quiet },
      events: snow,
      ticks: 720,
      every: 120,
    },
    one_firework: {
      description: "One red-gold launch: shell, trail, burst, secondary bursts, all dead by 360.",
      seed: 22,
      settings: { ...quiet, snow: 0 },
      events: oneFirework,
      ticks: 360,
      every: 20,
    },
    overlapping_fireworks: {
      description: "Six launches overlapping in time, every theme and auto, secondary bursts.",
      seed: 33,
      settings: { ...quiet, snow: 0 },
      events: overlapping,
      ticks: 420,
      every: 30,
    },
    fountain: {
      description:
        "The fountain alone, switched off at 200 and on again at 260; it turns from 330, spirals from 420.",
      seed: 44,
      settings: { snow: 0, show: false, fountain: true },
      events: fountain,
      ticks: 600,
      every: 60,
    },
    gun: {
      description: "Five gun volleys: four from inside the box, one from a camera outside it.",
      seed: 55,
      settings: { ...quiet, snow: 0 },
      events: gun,
      ticks: 300,
      every: 15,
    },
    show: {
      description:
        "A host's show stamped as one event (twelve cues from 60), and a second show cancelled at 200.",
      seed: 88,
      settings: { ...quiet, snow: 0 },
      events: show,
      ticks: 720,
      every: 60,
    },
    mixed: {
      description: "Launches, volleys and settings changes (wind, theme, snow, fountain) at once.",
      seed: 66,
      events: busyScenario({ key: 3, ticks: 1100, launchGap: 40, gunGap: 90, settingsGap: 150 }),
      ticks: 1200,
      every: 100,
    },
  };
}

if (import.meta.main) {
  const dir = new URL("../tests/fixtures/replay/", import.meta.url);
  if (Deno.args.includes("--hashes-only")) {
    for (const name of Object.keys(scenarios())) {
      const url = new URL(`${name}.json`, dir);
      const fixture: Fixture = JSON.parse(await Deno.readTextFile(url));
      fixture.expected = replay(fixture);
      await Deno.writeTextFile(url, JSON.stringify(fixture, null, 2) + "\n");
      console.log(`${name}: ${fixture.expected.length} checkpoints (input kept)`);
    }
    Deno.exit(0);
  }
  for (const [name, scenario] of Object.entries(scenarios())) {
    const fixture: Fixture = { ...scenario, expected: replay(scenario) };
    await Deno.writeTextFile(new URL(`${name}.json`, dir), JSON.stringify(fixture, null, 2) + "\n");
    console.log(`${name}: ${fixture.expected.length} checkpoints`);
  }
}
