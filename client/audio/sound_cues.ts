/**
 * Drives {@link FireworkSound} from the simulation's events: a launch sounds when the displayed
 * time reaches its tick, each break of its shell when the displayed time reaches the tick the
 * simulation bursts it (from the same plan the world uses), heard from the camera with the delay
 * of sound. Cues far in the past (a late join, a hidden tab) are dropped, not played at once.
 */
import { BREAK_GAP_TICKS } from "../../shared/constants.ts";
import { FireworkPlan, planFirework } from "../../shared/firework_plan.ts";
import type { SceneEvent } from "../../shared/types.ts";
import type { FireworkSound } from "./sound.ts";

/** Where a listener is (the camera position). */
export interface ListenerPosition {
  x: number;
  y: number;
  z: number;
}

/** One sound to make at a tick, at a point. */
interface Cue {
  tick: number;
  kind: "launch" | "burst";
  x: number;
  y: number;
  z: number;
  crackle: boolean;
}

/** Cues older than this many ticks when they come due are skipped (a late join, a hidden tab). */
const STALE_TICKS = 20;
/** Most cues waiting at once (a full sky's worth); beyond, new ones are dropped. */
const MAX_PENDING = 256;

const scratchPlan = new FireworkPlan();

/** The ticks at which a launch event's shell bursts (one per break), and where. */
export function burstCues(
  seed: number,
  event: SceneEvent,
): { ticks: number[]; x: number; y: number; z: number; crackle: boolean } | null {
  const body = event.body;
  if (body.type !== "launch") return null;
  // The plan the world simulates: its rise, burst height and breaks.
  const plan = planFirework(seed, event.seq, body, scratchPlan);
  const ticks: number[] = [];
  for (let b = 0; b < plan.breaks; b++) {
    ticks.push(event.tick + plan.riseTicks + b * BREAK_GAP_TICKS);
  }
  return { ticks, x: body.x, y: plan.burstY, z: body.z, crackle: plan.kind === "crackle" };
}

/** Queues sound cues from events and plays them as the displayed time passes them. */
export class SoundCues {
  private readonly sound: FireworkSound;
  private pending: Cue[] = [];

  constructor(sound: FireworkSound) {
    this.sound = sound;
  }

  /** Cues waiting to be played. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Schedules the sounds of a simulation event (launches; other events make none). */
  add(seed: number, event: SceneEvent): void {
    if (!this.sound.running || this.sound.muted) return;
    const cues = burstCues(seed, event);
    if (!cues || this.pending.length + cues.ticks.length + 1 > MAX_PENDING) return;
    this.pending.push({
      tick: event.tick,
      kind: "launch",
      x: cues.x,
      y: 0,
      z: cues.z,
      crackle: false,
    });
    for (const tick of cues.ticks) {
      this.pending.push({
        tick,
        kind: "burst",
        x: cues.x,
        y: cues.y,
        z: cues.z,
        crackle: cues.crackle,
      });
    }
  }

  /** Plays every cue whose tick the displayed time `time` has reached, heard from `listener`. */
  update(time: number, listener: ListenerPosition): void {
    if (this.pending.length === 0) return;
    let kept = 0;
    for (let i = 0; i < this.pending.length; i++) {
      const cue = this.pending[i];
      if (cue.tick > time) {
        this.pending[kept++] = cue;
        continue;
      }
      if (time - cue.tick > STALE_TICKS) continue;
      const dx = cue.x - listener.x, dy = cue.y - listener.y, dz = cue.z - listener.z;
      const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (cue.kind === "launch") this.sound.launch(distance);
      else this.sound.burst(distance, { crackle: cue.crackle, size: 1 });
    }
    this.pending.length = kept;
  }
}
