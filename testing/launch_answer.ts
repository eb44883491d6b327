/**
 * Waiting for a page's launch to be answered, so that a test's presses come one after another
 * as a person's do: each is answered (its launch stamped, or refused) before the next.
 */
import type { Page } from "playwright-core";

/** Where a page's launches stand: its last event's seq and the refusals it has had. */
export interface LaunchMark {
  seq: number;
  errors: number;
}

/**
 * The page's {@link LaunchMark} now, taken before a press.
 *
 * @example
 * ```ts ignore
 * const mark = await launchMark(page);
 * await page.keyboard.press("f");
 * await launchAnswered(page, mark);
 * ```
 */
export function launchMark(page: Page): Promise<LaunchMark> {
  return page.evaluate(() => ({
    seq: snowfire.lastEvent()?.seq ?? 0,
    errors: snowfire.errors.length,
  }));
}

/**
 * Waits until a launch the page asked for after `mark` is answered: a launch of its own stamped
 * after `mark.seq`, a new refusal, or (with a refusal's toast up) nothing asked: the page holds
 * the press itself until the retry time.
 *
 * @example
 * ```ts ignore
 * const mark = await launchMark(page);
 * await page.mouse.click(640, 300);
 * await launchAnswered(page, mark, 20_000);
 * ```
 */
export async function launchAnswered(
  page: Page,
  mark: LaunchMark,
  timeoutMs = 30_000,
): Promise<void> {
  await page.waitForFunction(
    ({ seq, errors }) =>
      snowfire.recentEvents().some((e) =>
        e.seq > seq && e.type === "launch" && e.by === snowfire.you
      ) || snowfire.errors.length > errors ||
      document.querySelector("#toasts .toast.error") !== null,
    mark,
    { timeout: timeoutMs, polling: 50 },
  );
}
