/**
 * Keeping a niced browser niced. Playwright starts the browser as a detached child: a session of
 * its own. Where the kernel groups CPU time by session (`/proc/sys/kernel/sched_autogroup_enabled`
 * = 1, as on the CI machine), a new session is a new group that competes as an equal with the whole
 * session that started it, and `nice` orders only processes within one group. So a browser started
 * from a test run under `nice -n 19` took as much CPU as all the other tiers together: three
 * browsers at once, three quarters of the cores (the files marked alone, beside it, saw quiet
 * heartbeat gaps of 150-290 ms where 50 ms is usual, and one failed). Started through
 * `testing/niced_browser.sh`, the browser's group gets its launcher's niceness.
 */

/** The wrapper that sets the browser's autogroup niceness, then runs the browser. */
const WRAPPER = new URL("./niced_browser.sh", import.meta.url).pathname;

/** This process's niceness (field 19 of `/proc/self/stat`), or 0 where there is no `/proc`. */
export function ownNiceness(): number {
  try {
    const stat = Deno.readTextFileSync("/proc/self/stat");
    // Fields after the command name, which is in parentheses and may hold spaces: state is the
    // 3rd field of the line, niceness the 19th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const niceness = Number(fields[19 - 3]);
    return Number.isInteger(niceness) ? niceness : 0;
  } catch {
    return 0;
  }
}

/** Whether CPU time is grouped by session here (Linux autogroups on). */
function autogroupsOn(): boolean {
  try {
    return Deno.readTextFileSync("/proc/sys/kernel/sched_autogroup_enabled").trim() === "1";
  } catch {
    return false;
  }
}

/**
 * How to launch the browser at `path` so that it runs at this process's niceness: through the
 * wrapper when this process is niced and autogroups are on; else `path` itself, as it is.
 *
 * @example
 * ```ts ignore
 * const browser = await chromium.launch({ ...nicedLaunch("/usr/bin/chromium"), args });
 * ```
 */
export function nicedLaunch(
  path: string,
): { executablePath: string; env?: Record<string, string> } {
  const niceness = ownNiceness();
  if (niceness <= 0 || !autogroupsOn()) return { executablePath: path };
  return {
    executablePath: WRAPPER,
    env: {
      ...Deno.env.toObject(),
      SNOWFIRE_BROWSER_PATH: path,
      SNOWFIRE_AUTOGROUP_NICE: String(niceness),
    },
  };
}
