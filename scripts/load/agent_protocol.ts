/**
 * Messages between the load-test coordinator and its agent processes: one JSON object per line,
 * requests on the agent's stdin, answers (with the request's `id`) on its stdout.
 */
import type { HistogramData } from "./histogram.ts";

/** Clients to add to one scene. */
export interface SceneClients {
  scene: string;
  clients: number;
  /** Have the first new client turn the scheduled show off (so only our launches flow). */
  silenceShow: boolean;
}

/** Launch rate this agent drives in one scene, spread over all its clients in that scene. */
export interface SceneRate {
  scene: string;
  launchesPerSecond: number;
}

/** A timed run: send launches, then report what was sent. */
export interface RunPlan {
  rates: SceneRate[];
  /** Sending starts at once; measuring starts this much later. */
  warmupMs: number;
  measureMs: number;
  /** After sending stops, keep listening this long for frames still in flight. */
  drainMs: number;
  /** This agent's launch keys are `keyBase + n * keyStride` (unique across agents and runs). */
  keyBase: number;
  keyStride: number;
}

/** One launch sent inside the measure window, in the sending agent's clock. */
export type SendRecord = [key: number, time: number, scene: string];

/** Coordinator → agent. */
export type AgentRequest =
  | { id: number; op: "clock" }
  | { id: number; op: "connect"; url: string; scenes: SceneClients[]; concurrency: number }
  | { id: number; op: "run"; plan: RunPlan }
  | { id: number; op: "measure"; sends: SendRecord[] }
  | { id: number; op: "close" };

/** Result of `connect`. */
export interface ConnectResult {
  connected: number;
  /** Clients that got their welcome, per scene. */
  connectedByScene: Record<string, number>;
  failed: number;
  /** Failure reasons (error code, close code or `timeout`) and how often each happened. */
  failures: Record<string, number>;
  /** Time from the first connect to the last welcome, plus the settle time. */
  elapsedMs: number;
  /** Of that, time spent waiting for the join traffic (presence frames) to stop. */
  settleMs: number;
}

/** Result of `run`: the sends inside the measure window and the window itself. */
export interface RunResult {
  sends: SendRecord[];
  /** Launches sent over the whole run (warm-up included). */
  sentTotal: number;
  measureFrom: number;
  measureTo: number;
}

/** Result of `measure`: this agent's receivers' view of the measured launches. */
export interface MeasureResult {
  /** Fan-out latency of every delivery of a measured launch, at every receiving client. */
  latency: HistogramData;
  /** Deliveries per measured key: `[key, deliveries]`. */
  deliveriesByKey: [number, number][];
  /** Frames received in the measure window, by type (`tick`, `event`, `presence`, …). */
  framesInWindow: Record<string, number>;
  /** Gap between consecutive frames at one client during the window (heartbeat lag). */
  frameGap: HistogramData;
  /** `error` frames by code over the whole run. */
  refusals: Record<string, number>;
  /** Connections that closed during the run, by close code. */
  closes: Record<string, number>;
  /** Event frames whose position was not one of ours (e.g. the scheduled show). */
  foreignEvents: number;
  /** Clients open now. */
  openClients: number;
}

/** Agent → coordinator: an answer, or a failure with a code and a human message. */
export type AgentResponse =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; code: string; message: string };
