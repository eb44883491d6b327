/**
 * Finds a Chromium-family browser for the end-to-end tests: `CHROME_PATH` first, then the usual
 * command names on `PATH`, then the usual install paths of Linux, macOS and Windows. Every lookup
 * goes through {@link BrowserLookup}, so a test can pretend to be a machine with no browser.
 *
 * @example
 * ```ts
 * const found = findBrowser();
 * if (found.path === null) console.log(found.reason);
 * ```
 */

/** The environment and file system as the finder sees them. */
export interface BrowserLookup {
  /** An environment variable, or undefined. */
  env(name: string): string | undefined;
  /** `Deno.build.os`. */
  os: string;
  /** True when `path` is a file this process may execute. */
  isExecutable(path: string): boolean;
}

/** Command names tried on `PATH`, in order. */
export const BROWSER_COMMANDS = [
  "chromium",
  "chromium-browser",
  "google-chrome",
  "google-chrome-stable",
] as const;

/** Install locations tried after `PATH`, per operating system (`~` is the home directory). */
export const BROWSER_PATHS: Readonly<Record<string, readonly string[]>> = {
  linux: [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/snap/bin/chromium",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/opt/google/chrome/chrome",
  ],
  darwin: [
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "~/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "~/Applications/Chromium.app/Contents/MacOS/Chromium",
  ],
  windows: [
    "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
    "C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe",
  ],
};

/** How to get a browser, for the one line printed when none is found. */
export const HOW_TO_GET_A_BROWSER =
  "install Chromium (Debian/Ubuntu: apt-get install chromium; macOS: brew install --cask chromium) " +
  "or point CHROME_PATH at a Chrome or Chromium executable";

/** Where a browser was found, or why none was. */
export type BrowserFound =
  | { path: string; source: string }
  | { path: null; reason: string };

/** The real machine: `Deno.env`, `Deno.build.os` and `Deno.statSync`. */
export function systemLookup(): BrowserLookup {
  return {
    env: (name) => Deno.env.get(name),
    os: Deno.build.os,
    isExecutable(path) {
      try {
        const info = Deno.statSync(path);
        // Windows reports no mode; there a regular file is as good as it gets.
        return info.isFile && (info.mode === null || (info.mode & 0o111) !== 0);
      } catch {
        return false;
      }
    },
  };
}

/** Looks for a browser; never throws. */
export function findBrowser(lookup: BrowserLookup = systemLookup()): BrowserFound {
  const configured = lookup.env("CHROME_PATH");
  if (configured) {
    return lookup.isExecutable(configured)
      ? { path: configured, source: "CHROME_PATH" }
      : { path: null, reason: `CHROME_PATH=${configured} is not an executable file` };
  }
  const windows = lookup.os === "windows";
  const separator = windows ? ";" : ":";
  const slash = windows ? "\\" : "/";
  const directories = (lookup.env("PATH") ?? "").split(separator).filter(Boolean);
  for (const command of BROWSER_COMMANDS) {
    for (const directory of directories) {
      const path = `${directory.replace(/[\\/]+$/, "")}${slash}${command}${windows ? ".exe" : ""}`;
      if (lookup.isExecutable(path)) return { path, source: `${command} on PATH` };
    }
  }
  const home = lookup.env("HOME") ?? lookup.env("USERPROFILE") ?? "";
  for (const candidate of BROWSER_PATHS[lookup.os] ?? []) {
    const path = candidate.startsWith("~") ? home + candidate.slice(1) : candidate;
    if (lookup.isExecutable(path)) return { path, source: "a usual install path" };
  }
  return {
    path: null,
    reason: `no Chrome or Chromium found (CHROME_PATH unset; ${
      BROWSER_COMMANDS.join(", ")
    } not on PATH; none in the usual install paths)`,
  };
}
