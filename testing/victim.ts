/**
 * A viewer of another scene while an attack runs: one connection notes when each heartbeat
 * arrives (the longest gap is the pause the viewer would see) and launches a firework every
 * LAUNCH_EVERY_MS, timing each until its event (or refusal) comes back. Measured in windows: a
 * quiet one before the attack, then the attack's, compared as ratios within one run.
 */
import type { ServerMessage } from "../shared/protocol.ts";
import { TestClient } from "./test_client.ts";

/** How often the victim launches. */
export const LAUNCH_EVERY_MS = 250;

/** One window's measures. */
export interface VictimWindow {
  /** Longest gap between heartbeats (or events), ms. */
  maxGap: number;
  /** 99th percentile of launch round trips, ms (a launch never answered counts as the window). */
  launchP99: number;
  launches: number;
  beats: number;
}

/** A viewer in another scene. */
export class Victim {
  readonly #client: TestClient;
  readonly #id: string;
  #beats: number[] = [];
  #trips: number[] = [];
  #sentAt: number | null = null;
  #windowStart = performance.now();
  #timer: ReturnType<typeof setInterval> | undefined;

  private constructor(client: TestClient, id: string) {
    this.#client = client;
    this.#id = id;
    client.socket.addEventListener("message", (e) => {
      const now = performance.now();
      const m = JSON.parse(e.data as string) as ServerMessage;
      if (m.t === "tick" || m.t === "event") this.#beats.push(now);
      const answered = (m.t === "event" && m.by === this.#id) || m.t === "error";
      if (answered && this.#sentAt !== null) {
        this.#trips.push(now - this.#sentAt);
        this.#sentAt = null;
      }
    });
  }

  /** Joins `scene` and starts launching. */
  static async join(url: string, scene: string): Promise<Victim> {
    const { client, welcome } = await TestClient.join(url, scene);
    const victim = new Victim(client, welcome.you.id);
    victim.#timer = setInterval(() => victim.#launch(), LAUNCH_EVERY_MS);
    return victim;
  }

  #launch(): void {
    // One launch in flight at a time: an unanswered one keeps its start.
    if (this.#sentAt !== null) return;
    this.#sentAt = performance.now();
    this.#client.submit({ type: "launch", x: 0, z: 0 });
  }

  /** Starts a new window. */
  reset(): void {
    this.#beats = [];
    this.#trips = [];
    this.#windowStart = performance.now();
  }

  /** The window so far. */
  window(): VictimWindow {
    const now = performance.now();
    const beats = this.#beats;
    let maxGap = beats.length === 0 ? now - this.#windowStart : beats[0] - this.#windowStart;
    for (let i = 1; i < beats.length; i++) maxGap = Math.max(maxGap, beats[i] - beats[i - 1]);
    if (beats.length > 0) maxGap = Math.max(maxGap, now - beats[beats.length - 1]);
    const trips = [...this.#trips];
    if (this.#sentAt !== null) trips.push(now - this.#sentAt);
    trips.sort((a, b) => a - b);
    const launchP99 = trips.length === 0
      ? now - this.#windowStart
      : trips[Math.min(trips.length - 1, Math.floor(trips.length * 0.99))];
    return { maxGap, launchP99, launches: trips.length, beats: beats.length };
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#client.close();
  }
}

/** A window as one line for a test's log. */
export function describeWindow(w: VictimWindow): string {
  return `heartbeat max gap ${w.maxGap.toFixed(0)} ms over ${w.beats} beats, launch p99 ` +
    `${w.launchP99.toFixed(1)} ms over ${w.launches} launches`;
}
