/**
 * How long a scene's event log is kept, in both modes: by age (`RETAIN_HOURS`, default 72) and
 * by count (`RETAIN_EVENTS_PER_SCENE`, default 1,000,000). Whatever either limit drops is pruned
 * in the background; a scene whose whole log is past the age limit and that nobody has open is
 * removed entirely. The rule itself ({@link ageCutTick}, {@link countKeepFromSeq},
 * {@link idlePastRetention}) is defined here once; each mode only says where its log is (SQLite
 * rows, or a JetStream subject) and what "nobody has it open" means there.
 */
import { TICK_MS } from "../../shared/constants.ts";

/** The retention policy. */
export interface RetentionPolicy {
  /** Events older than this many hours are pruned (fractions allowed: 1/60 is a minute). */
  hours: number;
  /** At most about this many events are kept per scene (the newest). */
  eventsPerScene: number;
}

/** The defaults: three days, a million events per scene. */
export const DEFAULT_RETENTION: Readonly<RetentionPolicy> = Object.freeze({
  hours: 72,
  eventsPerScene: 1_000_000,
});

/**
 * The policy from `RETAIN_HOURS` and `RETAIN_EVENTS_PER_SCENE` (unset: the defaults).
 *
 * @example
 * ```ts
 * import { retentionFromEnv } from "./retention_policy.ts";
 *
 * retentionFromEnv((name) => ({ RETAIN_HOURS: "0.5" })[name]); // { hours: 0.5, eventsPerScene: 1000000 }
 * ```
 */
export function retentionFromEnv(env: (name: string) => string | undefined): RetentionPolicy {
  const policy = { ...DEFAULT_RETENTION };
  const hours = env("RETAIN_HOURS");
  if (hours) policy.hours = Number(hours);
  const events = env("RETAIN_EVENTS_PER_SCENE");
  if (events) policy.eventsPerScene = Number(events);
  return checkRetention(policy);
}

/** Throws a RangeError naming the bad setting. */
export function checkRetention(policy: RetentionPolicy): RetentionPolicy {
  if (!(policy.hours > 0) || !Number.isFinite(policy.hours)) {
    throw new RangeError(`RETAIN_HOURS must be a positive number, got ${policy.hours}`);
  }
  if (!Number.isInteger(policy.eventsPerScene) || policy.eventsPerScene < 1) {
    throw new RangeError(
      `RETAIN_EVENTS_PER_SCENE must be an integer >= 1, got ${policy.eventsPerScene}`,
    );
  }
  return policy;
}

const TICKS_PER_HOUR = 3_600_000 / TICK_MS;

/**
 * The tick events older than the age limit end at: events with a lower tick may be pruned.
 *
 * @example
 * ```ts
 * import { ageCutTick } from "./retention_policy.ts";
 *
 * ageCutTick({ hours: 1 / 60, eventsPerScene: 50 }, 10_000); // 10_000 − 3_600 = 6_400
 * ```
 */
export function ageCutTick(policy: RetentionPolicy, nowTick: number): number {
  return nowTick - Math.floor(policy.hours * TICKS_PER_HOUR);
}

/**
 * The oldest seq the count limit keeps when the newest is `lastSeq`: events with a lower seq may
 * be pruned (1 or less: the count keeps everything).
 *
 * @example
 * ```ts
 * import { countKeepFromSeq } from "./retention_policy.ts";
 *
 * countKeepFromSeq({ hours: 72, eventsPerScene: 50 }, 120); // 71
 * ```
 */
export function countKeepFromSeq(policy: RetentionPolicy, lastSeq: number): number {
  return lastSeq - policy.eventsPerScene + 1;
}

/**
 * True when a scene is idle past the retention: nothing happened in it (no event stamped, no tick
 * promised) since before the age limit. Such a scene, when nobody has it open, is removed
 * entirely (its log, its start and its record), in both modes.
 *
 * @example
 * ```ts
 * import { idlePastRetention } from "./retention_policy.ts";
 *
 * const policy = { hours: 1 / 60, eventsPerScene: 50 };
 * idlePastRetention(policy, 10_000, 6_399); // true: the last activity is older than a minute
 * idlePastRetention(policy, 10_000, 6_400); // false
 * ```
 */
export function idlePastRetention(
  policy: RetentionPolicy,
  nowTick: number,
  lastActivityTick: number,
): boolean {
  return Math.max(lastActivityTick, 0) < ageCutTick(policy, nowTick);
}
