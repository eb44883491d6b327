/** The browser finder, on pretend machines: what it finds, in which order, and "no browser". */
import assert from "node:assert/strict";
import { type BrowserLookup, findBrowser } from "../../testing/find_browser.ts";

/** A machine with these environment variables and these executable files. */
function machine(
  os: string,
  env: Record<string, string>,
  executables: string[],
): BrowserLookup & { probed: string[] } {
  const probed: string[] = [];
  return {
    os,
    probed,
    env: (name) => env[name],
    isExecutable(path) {
      probed.push(path);
      return executables.includes(path);
    },
  };
}

Deno.test("findBrowser reports no browser cleanly on a bare machine", () => {
  const bare = machine("linux", { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/home/u" }, []);
  const found = findBrowser(bare);
  assert.equal(found.path, null);
  assert.ok(found.path === null && /no Chrome or Chromium found/.test(found.reason));
  assert.ok(bare.probed.includes("/usr/bin/chromium"), "it looked on PATH");
  assert.ok(bare.probed.includes("/opt/google/chrome/chrome"), "it looked at install paths");
});

Deno.test("findBrowser reports no browser with no PATH at all", () => {
  const found = findBrowser(machine("linux", {}, []));
  assert.equal(found.path, null);
});

Deno.test("findBrowser prefers CHROME_PATH and says when it is wrong", () => {
  const env = { CHROME_PATH: "/opt/chrome/chrome", PATH: "/usr/bin" };
  const both = ["/opt/chrome/chrome", "/usr/bin/chromium"];
  assert.deepEqual(findBrowser(machine("linux", env, both)), {
    path: "/opt/chrome/chrome",
    source: "CHROME_PATH",
  });
  const broken = findBrowser(machine("linux", env, ["/usr/bin/chromium"]));
  assert.equal(broken.path, null);
  assert.ok(broken.path === null && broken.reason.includes("CHROME_PATH=/opt/chrome/chrome"));
});

Deno.test("findBrowser tries the command names on PATH in order", () => {
  const env = { PATH: "/a:/b/" };
  const found = findBrowser(machine("linux", env, ["/b/google-chrome", "/a/chromium-browser"]));
  assert.deepEqual(found, { path: "/a/chromium-browser", source: "chromium-browser on PATH" });
});

Deno.test("findBrowser finds the macOS app bundle, also under the home directory", () => {
  const app = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome";
  assert.equal(findBrowser(machine("darwin", { PATH: "/usr/bin" }, [app])).path, app);
  const mine = "/Users/ana/Applications/Chromium.app/Contents/MacOS/Chromium";
  assert.equal(findBrowser(machine("darwin", { HOME: "/Users/ana" }, [mine])).path, mine);
});

Deno.test("findBrowser looks for .exe names on a Windows PATH", () => {
  const env = { PATH: "C:\\tools;C:\\chrome" };
  const found = findBrowser(machine("windows", env, ["C:\\chrome\\chromium.exe"]));
  assert.equal(found.path, "C:\\chrome\\chromium.exe");
});

/** Runs one browser test file in a child `deno test` with `env` and no CI unless given. */
async function runBrowserTestFile(env: Record<string, string>) {
  const command = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--no-check", "tests/browser/browser_replay_test.ts"],
    cwd: new URL("../..", import.meta.url),
    env: { NO_COLOR: "1", CI: "", SNOWFIRE_BROWSER_SKIP_NOTICE: "", ...env },
    stdout: "piped",
    stderr: "piped",
  });
  const { code, stdout, stderr } = await command.output();
  const decoder = new TextDecoder();
  return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

Deno.test("browser tests without a browser are skipped with one line, and fail under CI", async (t) => {
  await t.step("skipped with one line saying how to get a browser", async () => {
    const { code, output } = await runBrowserTestFile({ CHROME_PATH: "/nonexistent/chrome" });
    assert.equal(code, 0, output);
    const notices = output.split("\n").filter((line) => line.startsWith("browser tests skipped"));
    assert.equal(notices.length, 1, output);
    assert.match(notices[0], /CHROME_PATH=\/nonexistent\/chrome.*apt-get install chromium/);
    assert.match(output, /0 passed \| 0 failed \| 1 ignored/);
  });
  await t.step("CI=true fails instead", async () => {
    const { code, output } = await runBrowserTestFile({
      CHROME_PATH: "/nonexistent/chrome",
      CI: "true",
    });
    assert.notEqual(code, 0, output);
    assert.match(output, /no_browser: CI=true, so the browser tests must run/);
  });
});
