/** A stored event row of the scene database (`events`: seq, tick, by, body as JSON text). */
import type { EventBody, SceneEvent } from "../../shared/types.ts";

/**
 * The event a row of the `events` table holds (the store's reads and the log page worker's).
 *
 * @example
 * ```ts
 * const event = eventFromRow({ seq: 3, tick: 120, by: "p1", body: '{"type":"launch","x":0,"z":0}' });
 * ```
 */
export function eventFromRow(row: Record<string, unknown>): SceneEvent {
  return {
    seq: Number(row.seq),
    tick: Number(row.tick),
    by: row.by as string,
    body: JSON.parse(row.body as string) as EventBody,
  };
}
