/**
 * Checks on what a cluster client recorded: seq gap-free and never reused, ticks never going
 * back, and no event below a heartbeat (or welcome horizon) the client had already been given.
 */
import type { ServerMessage } from "../shared/protocol.ts";
import type { SceneEvent } from "../shared/types.ts";
import type { TestClient } from "./test_client.ts";

/** What one client's recorded frames say about the horizon promise and seq order. */
export interface StreamAudit {
  /** Every event the client got (welcome events and live ones), by seq. */
  events: Map<number, SceneEvent>;
  /** Human descriptions of every broken rule; empty when all is well. */
  violations: string[];
}

/** Audits frames in arrival order (several welcomes: after resumes or resyncs). */
export function auditStream(messages: readonly ServerMessage[]): StreamAudit {
  const events = new Map<number, SceneEvent>();
  const violations: string[] = [];
  let promised = -1;
  let lastSeq = 0;
  let lastTick = -1;
  const take = (event: SceneEvent, where: string) => {
    const seen = events.get(event.seq);
    if (seen) {
      if (JSON.stringify(seen) !== JSON.stringify(event)) {
        violations.push(`${where}: seq ${event.seq} reused with a different event`);
      }
      return;
    }
    if (lastSeq > 0 && event.seq !== lastSeq + 1) {
      violations.push(`${where}: seq ${event.seq} after ${lastSeq}`);
    }
    if (event.tick < lastTick) violations.push(`${where}: tick ${event.tick} after ${lastTick}`);
    if (event.tick < promised) {
      violations.push(
        `${where}: event ${event.seq} at tick ${event.tick} below horizon ${promised}`,
      );
    }
    events.set(event.seq, event);
    lastSeq = event.seq;
    lastTick = event.tick;
    if (event.tick > promised) promised = event.tick;
  };
  for (const m of messages) {
    if (m.t === "welcome") {
      // Events already seen are skipped; new ones must follow on and respect the horizon.
      for (const e of m.events) take(e, "welcome");
      if (lastSeq === 0) lastSeq = m.lastSeq;
      promised = Math.max(promised, m.horizon);
    } else if (m.t === "tick") {
      if (m.n > promised) promised = m.n;
    } else if (m.t === "event") {
      const { t: _t, ...event } = m;
      take(event, "event");
    }
  }
  return { events, violations };
}

/** A client's scene as it knows it: the welcome's events and every live one since, by seq. */
export function eventsOf(
  welcome: Extract<ServerMessage, { t: "welcome" }>,
  client: TestClient,
): SceneEvent[] {
  const out = new Map<number, SceneEvent>();
  for (const e of welcome.events) out.set(e.seq, e);
  for (const e of client.events()) {
    const { t: _t, ...event } = e;
    out.set(event.seq, event);
  }
  return [...out.values()].sort((a, b) => a.seq - b.seq);
}
