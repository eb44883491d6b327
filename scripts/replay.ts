/**
 * `deno task replay FILE.json`: replays a scenario (the `tests/fixtures/replay/*.json` format)
 * and prints one `TICK HASH` line per checkpoint. Exit code 2 on bad input.
 */
import { replay, type ReplayInput } from "../shared/replay.ts";

/** Reads and sanity-checks a replay file; throws an Error with a clear message when invalid. */
export async function readReplay(path: string): Promise<ReplayInput> {
  const text = await Deno.readTextFile(path);
  const input = JSON.parse(text) as ReplayInput;
  if (
    typeof input !== "object" || input === null || !Number.isInteger(input.seed) ||
    !Array.isArray(input.events) || !Number.isInteger(input.ticks) ||
    !Number.isInteger(input.every) || input.every < 1
  ) {
    throw new Error(`${path}: expected {seed, events[], ticks, every} with integer fields`);
  }
  return input;
}

if (import.meta.main) {
  const path = Deno.args[0];
  if (!path) {
    console.error("usage: deno task replay FILE.json");
    Deno.exit(2);
  }
  try {
    const input = await readReplay(path);
    for (const { tick, hash } of replay(input)) console.log(`${tick} ${hash}`);
  } catch (error) {
    console.error(`replay_failed: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(2);
  }
}
