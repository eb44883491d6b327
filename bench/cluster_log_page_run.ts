/**
 * Log API page time in cluster mode: `deno run -A bench/cluster_log_page_run.ts [runs]` starts one
 * `nats-server`, appends 5,000 events (one settings change in 50) to a scene's log, and times
 * `clusterLogPage` for pages of 1,000 and 5,000 events from a seq, and 1,000 from a tick with
 * its snapshot. Prints min / median / max of `runs` (default 5) reads of each page.
 */
import { clusterLogPage } from "../server/cluster/cluster_log_pages.ts";
import { NatsLink } from "../server/cluster/nats_link.ts";
import { appendEntry } from "../server/cluster/stream_log.ts";
import type { SceneEvent } from "../shared/types.ts";
import { startNatsCluster } from "../testing/nats_cluster.ts";

const RUNS = Number(Deno.args[0] ?? 5);
const EVENTS = 5000;

const cluster = await startNatsCluster({ size: 1 });
const link = await NatsLink.open(cluster.nodeOptions("bench"), () => {});
try {
  const scene = "bench-pages";
  let last = 0;
  for (let seq = 1; seq <= EVENTS; seq++) {
    const event: SceneEvent = seq % 50 === 0
      ? {
        seq,
        tick: seq * 3,
        by: "b",
        body: { type: "settings", settings: { windSpeed: seq % 9 } },
      }
      : { seq, tick: seq * 3, by: "b", body: { type: "launch", x: seq % 40 - 20, z: 0 } };
    last = await appendEntry(link, scene, event, last);
  }
  const pages: [string, Parameters<typeof clusterLogPage>[1], number][] = [
    ["1,000 from seq 1", { scene, start: { seq: 1 }, limit: 1000 }, 1000],
    ["5,000 from seq 1", { scene, start: { seq: 1 }, limit: 5000 }, 5000],
    ["1,000 from a tick + snapshot", {
      scene,
      start: { tick: 6000 },
      limit: 1000,
      snapshot: true,
    }, 1000],
  ];
  for (const [label, request, count] of pages) {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const page = await clusterLogPage(link, request);
      times.push(performance.now() - started);
      const events = page.events as SceneEvent[];
      if (events.length !== count) throw new Error(`${label}: ${events.length} events`);
    }
    times.sort((a, b) => a - b);
    const ms = (t: number) => `${t.toFixed(0)} ms`;
    console.log(
      `${label}: min ${ms(times[0])}, median ${ms(times[times.length >> 1])}, max ${
        ms(times[times.length - 1])
      } (${RUNS} runs)`,
    );
  }
} finally {
  await link.close();
  await cluster.stop();
}
