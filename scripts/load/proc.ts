/**
 * Reading a process's resident memory and CPU time from Linux's `/proc`.
 */

/** Clock ticks per second used by `/proc/<pid>/stat` (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** Resident set size of process `pid` in KiB (`VmRSS` in `/proc/<pid>/status`). */
export function readRssKiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

/** User + system CPU time of process `pid` (all its threads) in milliseconds. */
export function readCpuMs(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // The command name (field 2) may contain spaces; the fields after its closing paren are fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const userTicks = Number(fields[11]);
  const systemTicks = Number(fields[12]);
  return ((userTicks + systemTicks) * 1000) / USER_HZ;
}

/**
 * Busy and total CPU time of the whole machine, summed over all cores, in milliseconds. Interrupt
 * time is left out of `busy`: it is mostly the loopback traffic of the load test itself, which no
 * process is charged for.
 */
export function readMachineCpuMs(): { busy: number; total: number } {
  const line = Deno.readTextFileSync("/proc/stat").split("\n", 1)[0];
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  const busy = ticks[0] + ticks[1] + ticks[2] + ticks[7];
  return { busy: (busy * 1000) / USER_HZ, total: (total * 1000) / USER_HZ };
}

/** The 1-minute load average. */
export function readLoadAverage(): number {
  return Number(Deno.readTextFileSync("/proc/loadavg").split(" ", 1)[0]);
}

/**
 * Sets the nice value of every thread of process `pid` (Linux applies nice per thread).
 * Negative values need root; returns false when that was refused.
 */
export function setNice(pid: number, nice: number): boolean {
  const renice = (ids: string[]) =>
    new Deno.Command("renice", {
      args: ["-n", String(nice), "-p", ...ids],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  if (!renice([String(pid)])) return false;
  // Threads come and go (a vanished one makes renice fail): best effort for the others.
  renice([...Deno.readDirSync(`/proc/${pid}/task`)].map((entry) => entry.name));
  return true;
}

/**
 * Puts every thread of process `pid` under the real-time round-robin policy at `priority`
 * (1–99, root only): it then runs as soon as it is runnable, ahead of all normal processes, as on
 * a dedicated machine. The kernel's RT throttling still leaves others 5% of each second.
 */
export function setRealtime(pid: number, priority: number): boolean {
  return new Deno.Command("chrt", {
    args: ["--all-tasks", "--rr", "--pid", String(priority), String(pid)],
    stdout: "null",
    stderr: "null",
  }).outputSync().success;
}
