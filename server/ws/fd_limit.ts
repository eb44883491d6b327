/**
 * The process's open-file limit (RLIMIT_NOFILE): read from `/proc/self/limits`, and the soft limit
 * raised to the hard one at start where the system allows it (`prlimit --pid`, no native code).
 *
 * Deno 2.9.6 already raises the soft limit to the hard one when it starts (seen here: a child
 * started under `prlimit --nofile=100:20000` reads 20000/20000), so `raiseFdLimit` is mostly a
 * check that prints what the server got; raising the hard limit needs CAP_SYS_RESOURCE, which a
 * server should not have: set it in the service manager (`LimitNOFILE=`) or the container.
 */

/** A soft and a hard limit; `Infinity` for "unlimited", `undefined` fields when unknown. */
export interface FdLimit {
  soft: number | undefined;
  hard: number | undefined;
}

/**
 * Parses the "Max open files" line of a `/proc/<pid>/limits` text.
 *
 * @example
 * ```ts
 * const text = "Max open files            1024                 4096                 files";
 * console.log(parseFdLimit(text)); // { soft: 1024, hard: 4096 }
 * ```
 */
export function parseFdLimit(text: string): FdLimit {
  const line = text.split("\n").find((l) => l.startsWith("Max open files"));
  if (!line) return { soft: undefined, hard: undefined };
  const [soft, hard] = line.slice("Max open files".length).trim().split(/\s+/);
  const value = (v: string | undefined) =>
    v === "unlimited" ? Infinity : v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
  return { soft: value(soft), hard: value(hard) };
}

/** This process's limit now (`undefined` fields where `/proc` is not there). */
export function readFdLimit(): FdLimit {
  try {
    return parseFdLimit(Deno.readTextFileSync("/proc/self/limits"));
  } catch {
    return { soft: undefined, hard: undefined };
  }
}

/**
 * Raises the soft limit to the hard one when it is lower (with `prlimit`, when installed) and
 * returns the limit the process ends up with, and a line saying so for the start-up log.
 *
 * @example
 * ```ts
 * const { limit, line } = await raiseFdLimit();
 * console.log(line); // "open files: 20000 (hard 20000)"
 * ```
 */
export async function raiseFdLimit(): Promise<{ limit: FdLimit; line: string }> {
  const before = readFdLimit();
  let note = "";
  if (
    before.soft !== undefined && before.hard !== undefined && before.soft < before.hard &&
    Deno.build.os === "linux"
  ) {
    const target = before.hard === Infinity ? "unlimited" : String(before.hard);
    try {
      const out = await new Deno.Command("prlimit", {
        args: ["--pid", String(Deno.pid), `--nofile=${target}:${target}`],
        stdout: "null",
        stderr: "piped",
      }).output();
      note = out.success
        ? ` (raised from ${before.soft})`
        : ` (could not raise from ${before.soft}: ${new TextDecoder().decode(out.stderr).trim()})`;
    } catch (e) {
      note = ` (could not raise from ${before.soft}: ${(e as Error).message})`;
    }
  }
  const limit = readFdLimit();
  const show = (v: number | undefined) => v === undefined ? "unknown" : String(v);
  return { limit, line: `open files: ${show(limit.soft)} (hard ${show(limit.hard)})${note}` };
}
