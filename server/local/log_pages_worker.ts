/**
 * Worker behind {@link LogPages}: answers log-page requests from its own read-only connection to
 * the scene database, off the server's thread. It keeps, per scene, the snapshots after each
 * settings change it has scanned (keyframes), so the snapshot at any tick costs one lookup plus
 * the settings changes stored since the last request. Protocol: `{path}` once, then
 * `{id, request}` messages answered with `{id, page}` or `{id, error}`.
 */
/// <reference lib="deno.worker" />
import { DatabaseSync } from "node:sqlite";
import { gzipSync } from "node:zlib";
import { logPageBody } from "../http/log_page_body.ts";
import { lowerThreadPriority } from "./thread_priority.ts";
import { applySettings, initialSnapshot } from "../../shared/settings.ts";
import { applyRules, publicEvent, rulesOf } from "../../shared/rules.ts";
import type { EventBody, WorldSnapshot } from "../../shared/types.ts";
import { eventFromRow } from "./event_row.ts";
import type { EncodedEvents, EncodedLogPage, LogPage, PageRequest } from "./log_pages.ts";
import { lowerBound } from "../../shared/lower_bound.ts";

/** How much nicer than the server's thread the page reader runs (Linux: per thread). */
const PAGE_NICE = 5;

/** Scenes whose keyframes are kept (least recently used beyond are forgotten). */
const KEYFRAME_SCENES = 64;

interface Keyframes {
  /** The log start these keyframes grew from. */
  startTick: number;
  base: WorldSnapshot;
  /** Every settings event with tick < scannedTo is folded into `after`. */
  scannedTo: number;
  /** The snapshot after each settings event, in (tick, seq) order. */
  after: WorldSnapshot[];
}

let db: DatabaseSync | undefined;
let statements: ReturnType<typeof prepare> | undefined;
const keyframes = new Map<string, Keyframes>();

function prepare(db: DatabaseSync) {
  return {
    page: db.prepare(
      "SELECT seq, tick, by, body FROM events WHERE scene = ? AND seq >= ? ORDER BY seq LIMIT ?",
    ),
    // The same page as one JSON text built by SQLite (see `encodePage`), with what it counts.
    pageJson: db.prepare(
      `SELECT count(*) AS count, min(seq) AS first, max(seq) AS last,
         sum(body LIKE '{"type":"rules"%') AS private,
         group_concat('{"seq":' || seq || ',"tick":' || tick || ',"by":' || json_quote(by) ||
           ',"body":' || body || '}', ',' ORDER BY seq) AS json
       FROM (SELECT seq, tick, by, body FROM events WHERE scene = ? AND seq >= ?
             ORDER BY seq LIMIT ?)`,
    ),
    firstAtTick: db.prepare(
      "SELECT seq FROM events WHERE scene = ? AND tick >= ? ORDER BY tick, seq LIMIT 1",
    ),
    last: db.prepare("SELECT seq, tick FROM events WHERE scene = ? ORDER BY seq DESC LIMIT 1"),
    scene: db.prepare("SELECT seed, epoch FROM scenes WHERE id = ?"),
    settings: db.prepare(
      `SELECT seq, tick, body FROM events INDEXED BY events_by_tick
       WHERE scene = ? AND tick >= ? AND tick < ?
         AND (body LIKE '{"type":"settings"%' OR body LIKE '{"type":"rules"%')
       ORDER BY tick, seq`,
    ),
    start: tableExists(db, "log_starts")
      ? db.prepare("SELECT tick, snapshot FROM log_starts WHERE scene = ?")
      : undefined,
  };
}

function tableExists(db: DatabaseSync, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
    undefined;
}

function logStart(scene: string): { tick: number; snapshot: WorldSnapshot } {
  // The retention module may create its table after this worker started.
  if (!statements!.start && tableExists(db!, "log_starts")) statements = prepare(db!);
  const row = statements!.start?.get(scene) as Record<string, unknown> | undefined;
  if (!row) return { tick: 0, snapshot: initialSnapshot() };
  return { tick: Number(row.tick), snapshot: JSON.parse(row.snapshot as string) };
}

/**
 * Folds the settings and rules events with tick in [from, to) into `snap` (each step kept in
 * `out`): the settings, wind and host rules in force.
 */
function fold(
  scene: string,
  snap: WorldSnapshot,
  from: number,
  to: number,
  out?: WorldSnapshot[],
): WorldSnapshot {
  if (to <= from) return snap;
  let current = snap;
  for (const row of statements!.settings.all(scene, from, to) as Record<string, unknown>[]) {
    const body = JSON.parse(row.body as string) as EventBody;
    if (body.type === "settings") {
      current = applySettings(current, Number(row.tick), body.settings);
    } else if (body.type === "rules") {
      current = { ...current, tick: Number(row.tick), rules: applyRules(rulesOf(current), body) };
    } else continue;
    out?.push(current);
  }
  return current;
}

/** The snapshot at `tick` (settings and rules events with tick < `tick` applied). */
function snapshotAt(
  scene: string,
  start: { tick: number; snapshot: WorldSnapshot },
  lastTick: number,
  tick: number,
): WorldSnapshot {
  let frames = keyframes.get(scene);
  if (!frames || frames.startTick !== start.tick) {
    frames = { startTick: start.tick, base: start.snapshot, scannedTo: start.tick, after: [] };
  }
  keyframes.delete(scene);
  keyframes.set(scene, frames);
  if (keyframes.size > KEYFRAME_SCENES) keyframes.delete(keyframes.keys().next().value!);
  // Every event with tick < lastTick is stored for good (ticks never decrease along seq): those
  // may be cached; later ticks may still gain events.
  const cacheTo = Math.min(tick, lastTick);
  if (cacheTo > frames.scannedTo) {
    const latest = frames.after.at(-1) ?? frames.base;
    fold(scene, latest, frames.scannedTo, cacheTo, frames.after);
    frames.scannedTo = cacheTo;
  }
  // The last keyframe before `tick` (binary search), then what lies beyond the cache.
  const after = frames.after;
  const lo = lowerBound(after.length, (i) => after[i].tick < tick);
  let snap = lo > 0 ? frames.after[lo - 1] : frames.base;
  if (tick > frames.scannedTo) snap = fold(scene, snap, frames.scannedTo, tick);
  return { ...snap, tick: Math.max(snap.tick, tick) };
}

/**
 * The rules as the JSON text of their events (the stored body is JSON text already); a rules event
 * goes without its key and person hashes (`publicEvent`), so the page is public as it leaves the
 * worker.
 */
function encode(rows: Record<string, unknown>[]): EncodedEvents {
  const parts = rows.map((row) => {
    const body = row.body as string;
    if (body.startsWith('{"type":"rules"')) {
      return JSON.stringify(publicEvent(eventFromRow(row)));
    }
    return `{"seq":${Number(row.seq)},"tick":${Number(row.tick)},"by":${
      JSON.stringify(row.by)
    },"body":${body}}`;
  });
  return {
    json: new TextEncoder().encode(`[${parts.join(",")}]`),
    count: rows.length,
    firstSeq: rows.length > 0 ? Number(rows[0].seq) : undefined,
    lastSeq: rows.length > 0 ? Number(rows[rows.length - 1].seq) : undefined,
  };
}

/**
 * A page's events as JSON text, concatenated by SQLite in one string: the same bytes `encode`
 * builds from the rows, without a row object and three strings per event (a 5000-event page:
 * ~17 ms and 15k short-lived objects on this thread, whose collection also ran on V8's helper
 * threads, against one string). A page holding a rules event goes through `encode` (those
 * leave without their key and person hashes).
 */
function encodePage(scene: string, fromSeq: number, limit: number): EncodedEvents {
  const row = statements!.pageJson.get(scene, fromSeq, limit) as Record<string, unknown>;
  if (Number(row.private) > 0) {
    return encode(statements!.page.all(scene, fromSeq, limit) as Record<string, unknown>[]);
  }
  const count = Number(row.count);
  return {
    json: new TextEncoder().encode(count === 0 ? "[]" : `[${row.json as string}]`),
    count,
    firstSeq: count > 0 ? Number(row.first) : undefined,
    lastSeq: count > 0 ? Number(row.last) : undefined,
  };
}

function readPage(request: PageRequest, encoded: boolean): LogPage | EncodedLogPage {
  const { scene, start, limit } = request;
  const s = statements!;
  const logStartAt = logStart(scene);
  const last = s.last.get(scene) as Record<string, unknown> | undefined;
  const lastSeq = last ? Number(last.seq) : 0;
  const lastTick = last ? Number(last.tick) : 0;
  const first = s.firstAtTick.get(scene, logStartAt.tick) as Record<string, unknown> | undefined;
  const firstSeq = first ? Number(first.seq) : lastSeq + 1;
  let fromSeq: number;
  if ("seq" in start) {
    fromSeq = Math.max(start.seq, firstSeq);
  } else {
    const at = s.firstAtTick.get(scene, Math.max(start.tick, logStartAt.tick)) as
      | Record<string, unknown>
      | undefined;
    fromSeq = at ? Number(at.seq) : lastSeq + 1;
  }
  const events = encoded
    ? encodePage(scene, fromSeq, limit)
    : (s.page.all(scene, fromSeq, limit) as Record<string, unknown>[]).map(eventFromRow);
  const page: LogPage | EncodedLogPage = {
    events,
    firstSeq,
    lastSeq,
    startTick: logStartAt.tick,
  } as LogPage | EncodedLogPage;
  if (encoded) {
    const facts = s.scene.get(scene) as Record<string, unknown> | undefined;
    page.scene = facts ? { seed: Number(facts.seed), epoch: Number(facts.epoch) } : null;
  }
  if (request.snapshot && "tick" in start) {
    page.snapshot = snapshotAt(scene, logStartAt, lastTick, Math.max(start.tick, logStartAt.tick));
  }
  if (encoded && request.body && page.scene) {
    const bytes = logPageBody({
      ...page.scene,
      scene,
      firstSeq,
      lastSeq,
      startTick: logStartAt.tick,
      start,
      limit,
      events: events as EncodedEvents,
      snapshot: page.snapshot,
    });
    const gzip = request.body.gzip;
    page.body = { bytes: gzip ? new Uint8Array(gzipSync(bytes, { level: 1 })) : bytes, gzip };
    // The events travel inside the body only.
    page.events = { ...(events as EncodedEvents), json: new Uint8Array(0) };
  }
  return page;
}

/** The database file, once told. */
let path: string | undefined;

function open(): void {
  let opened: DatabaseSync | undefined;
  try {
    opened = new DatabaseSync(path!, { readOnly: true });
    opened.exec("PRAGMA busy_timeout = 1000; PRAGMA cache_size = -2048");
    statements = prepare(opened);
    db = opened;
  } catch (e) {
    opened?.close();
    throw openFailure(e);
  }
}

/**
 * Why opening failed, as the main thread needs to know it. node:sqlite's open, `exec` and
 * `prepare` throw without an SQLite code ("disk I/O error", "file is not a database", "database
 * disk image is malformed"), so the file itself is asked: when no descriptor is free (a connection
 * flood) or the database is busy, the failure passes (`unavailable`); when the file opens yet
 * SQLite cannot read it, or it is gone, the database is damaged (`damaged`).
 */
function openFailure(e: unknown): Error {
  const message = (e as Error).message;
  let unavailable = /\b(locked|busy)\b/i.test(message);
  if (!unavailable) {
    try {
      Deno.openSync(path!, { read: true }).close();
    } catch (probe) {
      // No descriptor free in the process (EMFILE) or the system (ENFILE), by Deno's error code.
      const code = (probe as { code?: unknown }).code;
      unavailable = code === "EMFILE" || code === "ENFILE";
    }
  }
  return Object.assign(new Error(`opening the database failed: ${message}`), {
    [unavailable ? "unavailable" : "damaged"]: true,
  });
}

self.onmessage = (e: MessageEvent) => {
  if (e.data === "close") {
    // Closed here, not left to the worker's end: a connection still open when the server's own
    // closes keeps SQLite from checkpointing the WAL into the file at shutdown.
    db?.close();
    db = undefined;
    self.postMessage({ closed: true });
    return;
  }
  if (path === undefined) {
    path = (e.data as { path: string }).path;
    // Pages yield the CPU to the server's thread: on a saturated machine a flood of page reads
    // otherwise took the time the heartbeats needed (the main thread and this one ran at the
    // same priority).
    lowerThreadPriority(PAGE_NICE);
    // The connection opens with the first page (and again after a failed open): a failure then
    // answers that page, so damage found opening is reported like damage found reading.
    return;
  }
  const { id, request, encoded } = e.data as {
    id: number;
    request: PageRequest;
    encoded?: boolean;
  };
  try {
    if (!db) open();
    const page = readPage(request, encoded === true);
    const bytes = Array.isArray(page.events) ? [] : [page.events.json.buffer];
    if (page.body) bytes.push(page.body.bytes.buffer);
    self.postMessage({ id, page }, bytes);
  } catch (err) {
    const { errcode, damaged, unavailable } = err as {
      errcode?: number;
      damaged?: true;
      unavailable?: true;
    };
    self.postMessage({ id, error: (err as Error).message, errcode, damaged, unavailable });
  }
};
