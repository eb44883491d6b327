/**
 * Runs an attacker module in a child Deno process at the lowest CPU priority and parses the JSON
 * it prints. A real attacker writes from its own machine; on a 2-core test box one at full
 * priority would take the server's CPU, not the memory or event loop the bounds are about.
 */

/**
 * Runs `module` (a file URL) with `args` under `nice -n 19` (plain on Windows); resolves with the
 * JSON its stdout holds, or throws naming `what` when it fails.
 *
 * @example
 * ```ts ignore
 * const result = await runNicedChild<{ bytes: number }>(
 *   new URL("./flooder.ts", import.meta.url),
 *   ["8000", "4000"],
 *   "flooder",
 * );
 * ```
 */
export async function runNicedChild<T>(module: URL, args: string[], what: string): Promise<T> {
  const all = ["run", "-A", module.pathname, ...args];
  const niced = Deno.build.os !== "windows";
  const output = await new Deno.Command(niced ? "nice" : Deno.execPath(), {
    args: niced ? ["-n", "19", Deno.execPath(), ...all] : all,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`${what} exited with ${output.code}`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}
