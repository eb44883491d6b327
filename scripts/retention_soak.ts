/**
 * Retention soak: one scene at 10 launches a second for 10 minutes under a 1-minute retention
 * (`RETAIN_HOURS=1/60`), against a child server. Every 10 s it prints the stored events and
 * bytes (`/healthz`), the events pruned so far (`/metrics`) and the stamping latency of that
 * interval — from sending a launch to receiving it back stamped, p50 and p99 — so one can see the
 * stored bytes go flat after the first minute and stamping p99 stay where it was before pruning
 * began.
 *
 * ```sh
 * nice -n 10 deno run -A scripts/retention_soak.ts            # 600 s
 * nice -n 10 deno run -A scripts/retention_soak.ts --seconds 120
 * ```
 */
import { parseArgs } from "node:util";
import { startTestServer } from "../testing/test_server.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "600" },
    rate: { type: "string", default: "10" },
    "retain-hours": { type: "string", default: String(1 / 60) },
  },
});
const seconds = Number(values.seconds);
const rate = Number(values.rate);
const INTERVAL_MS = 10_000;

const server = await startTestServer({
  process: true,
  env: {
    RETAIN_HOURS: values["retain-hours"]!,
    RATE_LAUNCH: `${rate * 2}/${rate * 4}`,
    RATE_FRAMES: `${rate * 4 + 20}/${rate * 8 + 40}`,
    SKY_CAP: "5000000",
  },
});

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const load = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

try {
  const socket = new WebSocket(`${server.url.replace("http", "ws")}/s/retention-soak/ws`);
  let me = "";
  const pending: number[] = [];
  let latencies: number[] = [];
  const all: { atS: number; ms: number }[] = [];
  let refused = 0;
  const started = performance.now();
  const welcomed = Promise.withResolvers<void>();
  socket.onmessage = (e) => {
    const message = JSON.parse(e.data as string);
    if (message.t === "welcome") {
      me = message.you.id;
      welcomed.resolve();
    } else if (message.t === "event" && message.by === me) {
      const sent = pending.shift();
      if (sent !== undefined) {
        const ms = performance.now() - sent;
        latencies.push(ms);
        all.push({ atS: (sent - started) / 1000, ms });
      }
    } else if (message.t === "error") {
      refused++;
      pending.shift();
    }
  };
  await new Promise((resolve) => (socket.onopen = resolve));
  socket.send(JSON.stringify({ t: "hello", name: "soak" }));
  await welcomed.promise;
  // The show adds its own launches; off, the log is only this client's 10 a second.
  socket.send(
    JSON.stringify({ t: "submit", body: { type: "settings", settings: { show: false } } }),
  );

  console.log(
    `load average at start: ${load()}; ${rate} launches/s for ${seconds} s, ` +
      `RETAIN_HOURS=${values["retain-hours"]}`,
  );
  console.log("   t_s  events   bytes      file_bytes  pruned   stamp_p50_ms  stamp_p99_ms  n");
  const periodMs = 1000 / rate;
  let next = performance.now();
  let nextReport = started + INTERVAL_MS;
  let sent = 0;
  const rows: { t: number; bytes: number; p99: number }[] = [];
  while (performance.now() - started < seconds * 1000) {
    const now = performance.now();
    if (now >= next) {
      pending.push(now);
      socket.send(JSON.stringify({
        t: "submit",
        body: { type: "launch", x: (sent % 60) - 30, z: ((sent * 7) % 60) - 30, kind: "peony" },
      }));
      sent++;
      next += periodMs;
    }
    if (now >= nextReport) {
      nextReport += INTERVAL_MS;
      const health = await (await fetch(`${server.url}/healthz`)).json();
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      const pruned = Number(/^snowfire_pruned_events_total (\d+)/m.exec(metrics)?.[1] ?? 0);
      const sorted = latencies.sort((a, b) => a - b);
      const t = Math.round((now - started) / 1000);
      const p99 = percentile(sorted, 0.99);
      rows.push({ t, bytes: health.stored?.bytes ?? NaN, p99 });
      console.log(
        `${String(t).padStart(6)}  ${String(health.stored?.events).padStart(6)}  ` +
          `${String(health.stored?.bytes).padStart(8)}  ${
            String(health.stored?.fileBytes).padStart(10)
          }  ` +
          `${String(pruned).padStart(7)}  ${percentile(sorted, 0.5).toFixed(2).padStart(12)}  ` +
          `${p99.toFixed(2).padStart(12)}  ${sorted.length}`,
      );
      latencies = [];
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Math.min(next, nextReport) - performance.now()))
    );
  }
  socket.close();
  const firstMinute = all.filter((s) => s.atS < 60).map((s) => s.ms).sort((a, b) => a - b);
  const pruning = all.filter((s) => s.atS >= 90).map((s) => s.ms).sort((a, b) => a - b);
  const after = rows.filter((r) => r.t >= 120);
  console.log(`load average at end: ${load()}; launches sent ${sent}, refused ${refused}`);
  console.log(
    `stamping p99: first minute ${percentile(firstMinute, 0.99).toFixed(2)} ms ` +
      `(p50 ${percentile(firstMinute, 0.5).toFixed(2)}), from 90 s on (pruning) ` +
      `${percentile(pruning, 0.99).toFixed(2)} ms (p50 ${percentile(pruning, 0.5).toFixed(2)})`,
  );
  if (after.length > 0) {
    const bytes = after.map((r) => r.bytes);
    console.log(
      `stored bytes from 120 s on: min ${Math.min(...bytes)}, max ${Math.max(...bytes)} ` +
        `(first ${bytes[0]}, last ${bytes.at(-1)})`,
    );
  }
} finally {
  await server.close();
}
