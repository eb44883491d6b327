/**
 * What hostile clients cost the server, per WebSocket engine:
 * `deno run -A scripts/load/hostile.ts [--engine ws|deno|both] [--steps 500,1000,...]`.
 *
 * For each engine it starts Snowfire (`server/main.ts` with the start task's V8 flags and the load
 * test's settings) and measures, from /proc:
 * - one 60 MiB text frame, and three at once on three connections: the server's RSS growth
 *   (peak, sampled every 5 ms) and how much the client could write before the server cut it;
 * - a no-hello binary flooder that reconnects whenever it is cut off (4 s): server CPU per
 *   connection and RSS growth;
 * - fuzz throughput: 20 observers in one scene time their heartbeat gaps while fuzzing processes
 *   send a mix of bad frames and pings at rising rates (4 s a step); a step passes while the
 *   observers' p99 gap stays under 100 ms.
 * Prints a table; writes everything to tests/output/hostile.json. Loopback only, bounded in time.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  frameHeader,
  GapObserver,
  rawUpgrade,
  readAll,
  rssBytes,
  rssPeak,
  TEXT,
} from "../../testing/raw_ws.ts";
import { floodInChild } from "../../testing/flooder.ts";
import { startTarget, type TargetName } from "./target.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MiB = 1024 * 1024;
const STEP_MS = 4000;
const P99_LIMIT_MS = 100;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    engine: { type: "string", default: "both" },
    steps: { type: "string", default: "500,1000,2000,4000,8000,16000" },
    out: { type: "string", default: join(ROOT, "tests", "output", "hostile.json") },
  },
});
const engines: TargetName[] = values.engine === "both"
  ? ["snowfire", "snowfire-deno"]
  : values.engine === "deno"
  ? ["snowfire-deno"]
  : ["snowfire"];
const steps = values.steps.split(",").map(Number);

function startFlags(): string[] {
  const start = JSON.parse(Deno.readTextFileSync(join(ROOT, "deno.json"))).tasks.start as string;
  return start.split(/\s+/).filter((arg) => arg.startsWith("--v8-flags="));
}

function cpuMs(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `count` 60 MiB frames at once; the server's RSS growth and what got written. */
async function bigFrames(pid: number, port: number, count: number) {
  const conns = await Promise.all(
    Array.from({ length: count }, (_, i) => rawUpgrade(port, `big-${count}-${i}`)),
  );
  const answers = conns.map((conn) => readAll(conn, 15_000));
  await sleep(300);
  const before = rssBytes(pid);
  const peak = rssPeak(pid, 5);
  const size = 60 * MiB;
  const chunk = new Uint8Array(MiB).fill(0x61);
  const written = await Promise.all(conns.map(async (conn) => {
    let n = 0;
    try {
      n += await conn.write(frameHeader(TEXT, size));
      while (n < size) n += await conn.write(chunk);
    } catch {
      // Cut off by the server.
    }
    return n;
  }));
  const closes = (await Promise.all(answers)).map((a) => a.closeCode);
  await sleep(300);
  const grewMiB = (peak.stop() - before) / MiB;
  for (const conn of conns) {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  }
  return { count, grewMiB, writtenMiB: written.map((n) => n / MiB), closes };
}

/** Runs the fuzz processes at `rate` frames/s in total while observers time heartbeats. */
async function fuzzStep(pid: number, port: number, observers: GapObserver[], rate: number) {
  const processes = 2;
  for (const o of observers) o.reset();
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  const outputs = await Promise.all(
    Array.from({ length: processes }, () =>
      // At the lowest CPU priority, like the flood test's flooder: a real attacker writes from its
      // own machine, and at full priority on these 2 cores the fuzzers would starve the server
      // and the observers of CPU rather than test what the server does with the frames.
      new Deno.Command("nice", {
        args: [
          "-n",
          "19",
          Deno.execPath(),
          "run",
          "-A",
          join(ROOT, "scripts/load/fuzzer.ts"),
          String(port),
          String(rate / processes),
          String(STEP_MS),
          "20",
        ],
        stdout: "piped",
        stderr: "inherit",
      }).output()),
  );
  const wall = performance.now() - t0;
  const serverCpu = (cpuMs(pid) - cpu0) / wall;
  const results = outputs.map((o) => JSON.parse(new TextDecoder().decode(o.stdout)));
  const sent = results.reduce((n, r) => n + r.sent, 0);
  const opened = results.reduce((n, r) => n + r.opened, 0);
  const p99 = Math.max(...observers.map((o) => o.gapP99()));
  return {
    rate,
    sentPerSecond: Math.round(sent / (STEP_MS / 1000)),
    connectionsPerSecond: Math.round(opened / (STEP_MS / 1000)),
    observerGapP99Ms: Math.round(p99 * 10) / 10,
    serverCpu: Math.round(serverCpu * 100) / 100,
    passed: p99 < P99_LIMIT_MS,
  };
}

const report: Record<string, unknown>[] = [];
for (const engine of engines) {
  const target = await startTarget(engine, {}, startFlags());
  const pid = target.pid;
  console.log(
    `[${engine}] pid ${pid} port ${target.port}, RSS ${(rssBytes(pid) / MiB).toFixed(1)} MiB`,
  );
  try {
    const one = await bigFrames(pid, target.port, 1);
    console.log(`[${engine}] one 60 MiB frame: ${JSON.stringify(one)}`);
    const three = await bigFrames(pid, target.port, 3);
    console.log(`[${engine}] three at once: ${JSON.stringify(three)}`);

    const cpu0 = cpuMs(pid);
    const rss0 = rssBytes(pid);
    const peak = rssPeak(pid);
    const flood = await floodInChild(target.port, 4000);
    const flooded = {
      ...flood,
      serverCpuMsPerConnection: Math.round((cpuMs(pid) - cpu0) / flood.connections * 10) / 10,
      grewMiB: Math.round((peak.stop() - rss0) / MiB * 10) / 10,
    };
    console.log(`[${engine}] no-hello flood, 4 s: ${JSON.stringify(flooded)}`);

    const observers = await Promise.all(
      Array.from(
        { length: 20 },
        () => GapObserver.join(target.wsUrl.replace(/^ws/, "http"), "watch"),
      ),
    );
    await sleep(1000);
    const fuzzSteps = [];
    for (const rate of steps) {
      const step = await fuzzStep(pid, target.port, observers, rate);
      console.log(`[${engine}] fuzz ${JSON.stringify(step)}`);
      fuzzSteps.push(step);
      if (!step.passed) break;
    }
    await Promise.all(observers.map((o) => o.close()));
    report.push({ engine, one, three, flood: flooded, fuzz: fuzzSteps });
  } finally {
    await target.stop();
  }
}

console.log(
  "\nengine         60MiB: +RSS MiB  3x60MiB: +RSS MiB  flood CPU ms/conn  fuzz absorbed (frames/s, p99<100ms)",
);
for (const r of report) {
  const one = r.one as { grewMiB: number };
  const three = r.three as { grewMiB: number };
  const flood = r.flood as { serverCpuMsPerConnection: number };
  const fuzz = r.fuzz as { sentPerSecond: number; passed: boolean }[];
  const best = fuzz.filter((s) => s.passed).at(-1)?.sentPerSecond ?? 0;
  console.log(
    `${String(r.engine).padEnd(14)} ${one.grewMiB.toFixed(1).padStart(16)} ${
      three.grewMiB.toFixed(1).padStart(18)
    } ${String(flood.serverCpuMsPerConnection).padStart(18)} ${String(best).padStart(12)}`,
  );
}
await Deno.mkdir(join(ROOT, "tests", "output"), { recursive: true });
await Deno.writeTextFile(values.out, JSON.stringify(report, null, 2) + "\n");
console.log(`wrote ${values.out}`);
