/**
 * `deno run -A bench/join_cold_run.ts [--runs=3] [--warm=10] [--profile=DIR] [--base=DIR]`: a
 * late join with an empty sky (`worldFromWindow` at T = 10 minutes in, from the snapshot at
 * T − WINDOW_TICKS and no events: the snow, the fountain and the wind), as the server's hash
 * worker or a fresh page pays it. Each run is a fresh Deno process: its first call is cold (code
 * not yet compiled, module tables not yet built), then `--warm` more calls. Reports the CPU time
 * (`process.cpuUsage`, the compiler's and collector's threads included) of the cold call and
 * the median of the warm ones per run, min / median / max over the runs.
 * `--base=DIR`: another checkout (e.g. `git worktree add /tmp/base main`) run alternately with
 * this one, run for run, so both are measured in the same time window (the machine's load moves
 * a cold call's CPU by tens of percent); reports each one's figures and the ratio per run.
 * Target (issue 32): cold ≤ 50 ms. `--profile=DIR` writes each child's CPU profile there.
 */
import process from "node:process";

function flag(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  const found = Deno.args.find((arg) => arg.startsWith(prefix));
  return found ? found.slice(prefix.length) : fallback;
}

if (Deno.args.includes("--child")) {
  // The checkout whose shared/ is measured (this one unless --root says another).
  const root = new URL(flag("root", new URL("../", import.meta.url).href));
  const t0 = process.cpuUsage();
  const { worldFromWindow } = await import(new URL("shared/world.ts", root).href);
  const { initialSnapshot } = await import(new URL("shared/settings.ts", root).href);
  const { WINDOW_TICKS } = await import(new URL("shared/constants.ts", root).href);
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
  const base = flag("base", "");
  const here = new URL("../", import.meta.url).href;
  const trees = base
    ? [
      { name: "base", root: new URL(`${base.replace(/\/$/, "")}/`, `file://${Deno.cwd()}/`).href },
      { name: "this", root: here },
    ]
    : [{ name: "this", root: here }];
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
  const colds = new Map<string, number[]>(), warms = new Map<string, number[]>();
  const ratios: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const coldOf = new Map<string, number>();
    for (const tree of trees) {
      const args = ["run", "-A"];
      if (profile) args.push("--cpu-prof", `--cpu-prof-dir=${profile}`);
      args.push(
        new URL(import.meta.url).pathname,
        "--child",
        `--warm=${flag("warm", "10")}`,
        `--root=${tree.root}`,
      );
      const out = await new Deno.Command(Deno.execPath(), { args, stderr: "inherit" }).output();
      if (!out.success) throw new Error(`join_cold_run: child failed (${out.code})`);
      const result = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
      const warm = median(result.warm);
      colds.set(tree.name, [...colds.get(tree.name) ?? [], result.cold]);
      warms.set(tree.name, [...warms.get(tree.name) ?? [], warm]);
      coldOf.set(tree.name, result.cold);
      console.log(
        `run ${run}${base ? ` (${tree.name})` : ""}: cold ${result.cold.toFixed(1)} ms cpu, ` +
          `warm median ${warm.toFixed(1)} ms (${Math.min(...result.warm).toFixed(1)}–` +
          `${Math.max(...result.warm).toFixed(1)}), imports ${result.imported.toFixed(0)} ms; ` +
          `load ${Deno.loadavg()[0].toFixed(1)}`,
      );
    }
    if (base) ratios.push(coldOf.get("this")! / coldOf.get("base")!);
  }
  const mm = (v: number[], digits = 1, unit = " ms") => {
    const s = [...v].sort((a, b) => a - b);
    return `${s[0].toFixed(digits)} / ${median(s).toFixed(digits)} / ${
      s[s.length - 1].toFixed(digits)
    }${unit}`;
  };
  for (const tree of trees) {
    console.log(
      `empty-sky late join${base ? ` (${tree.name})` : ""}, cold: ${mm(colds.get(tree.name)!)}; ` +
        `warm medians: ${mm(warms.get(tree.name)!)} (min / median / max over ${runs} runs)`,
    );
  }
  if (base) console.log(`cold, this / base per run: ${mm(ratios, 2, "")}`);
}
