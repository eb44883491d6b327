/**
 * `deno run -A bench/join_cold_run.ts [--runs=3] [--warm=10] [--profile=DIR]`: a late join with
 * an empty sky (`worldFromWindow` at T = 10 minutes in, from the snapshot at T − WINDOW_TICKS and
 * no events: the snow, the fountain and the wind), as the server's hash worker or a fresh page
 * pays it. Each run is a fresh Deno process: its first call is cold (code not yet compiled, module
 * tables not yet built), then `--warm` more calls. Reports the CPU time (`process.cpuUsage`) of
 * the cold call and the median of the warm ones per run, min / median / max over the runs.
 * Target (issue 32): cold ≤ 50 ms. `--profile=DIR` writes each child's CPU profile there.
 */
import process from "node:process";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  const found = Deno.args.find((arg) => arg.startsWith(prefix));
  return found ? found.slice(prefix.length) : fallback;
}

if (Deno.args.includes("--child")) {
  const t0 = process.cpuUsage();
  const { worldFromWindow } = await import("../shared/world.ts");
  const { initialSnapshot } = await import("../shared/settings.ts");
  const { WINDOW_TICKS } = await import("../shared/constants.ts");
  const imported = process.cpuUsage(t0);
  const T = 36_000;
  const join = () => {
    const snapshot = { ...initialSnapshot(), tick: T - WINDOW_TICKS };
    const c0 = process.cpuUsage();
    const world = worldFromWindow({ seed: 7, snapshot, events: [], tick: T });
    const used = process.cpuUsage(c0);
    if (world.tick !== T) throw new Error("join: wrong tick");
    return (used.user + used.system) / 1000;
  };
  const cold = join();
  const warm: number[] = [];
  for (let i = 0; i < Number(flag("warm", "10")); i++) warm.push(join());
  console.log(JSON.stringify({
    imported: (imported.user + imported.system) / 1000,
    cold,
    warm,
  }));
} else {
  const runs = Number(flag("runs", "3"));
  const profile = flag("profile", "");
  const colds: number[] = [], warms: number[] = [];
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
  for (let run = 1; run <= runs; run++) {
    const args = ["run", "-A"];
    if (profile) args.push("--cpu-prof", `--cpu-prof-dir=${profile}`);
    args.push(new URL(import.meta.url).pathname, "--child", `--warm=${flag("warm", "10")}`);
    const out = await new Deno.Command(Deno.execPath(), { args, stderr: "inherit" }).output();
    if (!out.success) throw new Error(`join_cold_run: child failed (${out.code})`);
    const result = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
    const warm = median(result.warm);
    colds.push(result.cold);
    warms.push(warm);
    console.log(
      `run ${run}: cold ${result.cold.toFixed(1)} ms cpu, warm median ${warm.toFixed(1)} ms ` +
        `(${Math.min(...result.warm).toFixed(1)}–${Math.max(...result.warm).toFixed(1)}), ` +
        `imports ${result.imported.toFixed(0)} ms; load ${Deno.loadavg()[0].toFixed(1)}`,
    );
  }
  const mm = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    return `${s[0].toFixed(1)} / ${median(s).toFixed(1)} / ${s[s.length - 1].toFixed(1)} ms`;
  };
  console.log(
    `empty-sky late join, cold: ${mm(colds)}; warm medians: ${
      mm(warms)
    } (min / median / max over ${runs} runs)`,
  );
}
