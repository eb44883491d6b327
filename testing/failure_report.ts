/**
 * Reads `deno test`'s report line by line and keeps what a reader of a long log's tail needs: the
 * name of every failed test (deno's closing FAILURES list) and, for each, the first lines of its
 * error (deno's ERRORS section, without the stack frames). CI shows only the tail of a run's
 * output, so `testing/run_tests.ts` repeats both at the very end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FailureReport } from "./failure_report.ts";
 *
 * const report = new FailureReport();
 * for (const line of [" ERRORS ", "", "adds => ./a_test.ts:3:6", "error: AssertionError: 1 !== 2",
 *   "    at file:///a_test.ts:3:40", "", " FAILURES ", "", "adds => ./a_test.ts:3:6", "",
 *   "FAILED | 0 passed | 1 failed (2ms)"]) report.line(line);
 * assert.deepEqual(report.failures(), ["adds => ./a_test.ts:3:6"]);
 * assert.deepEqual(report.reasons(), [["adds => ./a_test.ts:3:6", "error: AssertionError: 1 !== 2"]]);
 * ```
 */
export class FailureReport {
  /** Lines of an error kept after its name line. */
  static readonly REASON_LINES = 12;
  /** Characters of one kept line. */
  static readonly LINE_CHARS = 240;

  #section: "none" | "errors" | "failures" = "none";
  readonly #failures: string[] = [];
  readonly #reasons: string[][] = [];
  #current: string[] | null = null;
  /** Whether the error being read is deno's report of leaked ops (its frames are kept). */
  #leak = false;

  /** Takes one line of deno's stdout (colour codes are removed here). */
  line(raw: string): void {
    // deno-lint-ignore no-control-regex
    const plain = raw.replace(/\x1b\[[0-9;]*m/g, "").trimEnd();
    const trimmed = plain.trim();
    if (trimmed === "ERRORS") {
      this.#section = "errors";
      this.#current = null;
      return;
    }
    if (trimmed === "FAILURES") {
      this.#section = "failures";
      this.#current = null;
      return;
    }
    if (/^(ok|FAILED) \| /.test(trimmed)) {
      this.#section = "none";
      this.#current = null;
      return;
    }
    if (this.#section === "failures") {
      if (trimmed !== "" && !this.#failures.includes(trimmed)) this.#failures.push(trimmed);
      return;
    }
    if (this.#section !== "errors") return;
    // A failure's name: `test ... step => ./tests/file.ts:3:11`, or `./tests/file.ts (uncaught
    // error)` for an error outside any test.
    if (/ => \.?\/\S+:\d+:\d+$/.test(trimmed) || /^\.?\/\S+ \(uncaught error\)$/.test(trimmed)) {
      this.#leak = false;
      this.#current = [trimmed];
      this.#reasons.push(this.#current);
      return;
    }
    const current = this.#current;
    if (current === null || trimmed === "" || /^\^+$/.test(trimmed)) return;
    // Stack frames say nothing in a summary, but where a leaked timer or op was started (deno's
    // --trace-leaks): the project's own frames are kept there, not the runtime's.
    const frame = trimmed.startsWith("at ");
    if (frame && (!this.#leak || /ext:|node:|node_modules|deno:/.test(trimmed))) return;
    if (trimmed.startsWith("error: Leaks detected")) this.#leak = true;
    if (current.length > FailureReport.REASON_LINES) return;
    current.push(trimmed.slice(0, FailureReport.LINE_CHARS));
  }

  /** Every failed test or step, as deno's FAILURES list names it, each once. */
  failures(): string[] {
    return [...this.#failures];
  }

  /** Each failure's name line followed by the first lines of its error. */
  reasons(): string[][] {
    return this.#reasons.map((lines) => [...lines]);
  }
}
