/**
 * Calm toasts: a toast has a key, and a new message with the key of a toast on screen updates
 * that toast instead of stacking another (identical refusals become one toast "×4", a fast
 * clicker's launches become "Rae launched 5 fireworks"). A toast may count down to a retry time.
 */

/** How long a toast stays after its last update, ms. */
export const TOAST_MS = 4_000;
/** Most toasts on screen at once; older ones give way. */
export const MAX_TOASTS = 4;

/** Options for {@link Toasts.show}. */
export interface ToastOptions {
  /** Same key, same toast (default: the text itself, so identical messages coalesce). */
  key?: string;
  /** Styles it as a refusal. */
  error?: boolean;
  /** A person's colour, shown as a swatch. */
  color?: string;
  /** Show "×N" when this key was shown N > 1 times (default true). */
  countBadge?: boolean;
  /** When trying again may succeed (on the `now` clock): the toast counts down to it. */
  retryAtMs?: number;
  /** How many occurrences this message stands for (default 1). */
  times?: number;
}

interface Toast {
  item: HTMLLIElement;
  text: HTMLSpanElement;
  count: number;
  countBadge: HTMLSpanElement;
  retry: HTMLSpanElement;
  retryAtMs: number;
  expiresMs: number;
}

/**
 * The toast list in the page (an `<ol>` that is a polite live region announcing additions only,
 * so counts and countdowns do not chatter in a screen reader).
 *
 * @example
 * ```ts
 * const toasts = new Toasts(element("toasts"));
 * toasts.show("The sky is full.", { key: "refusal", error: true, retryAtMs: now + 2000 });
 * ```
 */
export class Toasts {
  private readonly list: HTMLOListElement;
  private readonly now: () => number;
  private readonly live = new Map<string, Toast>();

  constructor(list: HTMLOListElement, now: () => number = () => performance.now()) {
    this.list = list;
    this.now = now;
  }

  /** How many times the toast with `key` was shown while on screen (0 when not on screen). */
  count(key: string): number {
    return this.live.get(key)?.count ?? 0;
  }

  /** Shows `text`, or updates the toast with the same key; returns its count. */
  show(text: string, options: ToastOptions = {}): number {
    const key = options.key ?? text;
    const nowMs = this.now();
    let toast = this.live.get(key);
    const times = Math.max(1, options.times ?? 1);
    if (toast) {
      toast.count += times;
      // Newest activity goes first: when the sky has no room for them all, the oldest are cut.
      this.list.prepend(toast.item);
    } else {
      toast = this.create(options);
      toast.count = times;
      this.live.set(key, toast);
      this.list.prepend(toast.item);
      while (this.live.size > MAX_TOASTS) this.remove(this.live.keys().next().value!);
    }
    this.live.delete(key);
    this.live.set(key, toast);
    toast.text.textContent = text;
    toast.countBadge.textContent = options.countBadge !== false && toast.count > 1
      ? `×${toast.count}`
      : "";
    toast.retryAtMs = options.retryAtMs ?? NaN;
    toast.expiresMs = Math.max(nowMs, Number.isFinite(toast.retryAtMs) ? toast.retryAtMs : 0) +
      TOAST_MS;
    this.renderRetry(toast, nowMs);
    return toast.count;
  }

  /** Advances countdowns and removes expired toasts; call a few times a second. */
  update(): void {
    const nowMs = this.now();
    for (const [key, toast] of this.live) {
      if (nowMs >= toast.expiresMs) this.remove(key);
      else this.renderRetry(toast, nowMs);
    }
  }

  private create(options: ToastOptions): Toast {
    const item = document.createElement("li");
    item.className = options.error ? "toast error" : "toast";
    if (options.color) {
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.color = options.color;
      item.append(swatch);
    }
    const text = document.createElement("span");
    const retry = document.createElement("span");
    retry.className = "retry";
    retry.setAttribute("aria-hidden", "true");
    const countBadge = document.createElement("span");
    countBadge.className = "count";
    countBadge.setAttribute("aria-hidden", "true");
    item.append(text, retry, countBadge);
    return { item, text, retry, countBadge, count: 1, retryAtMs: NaN, expiresMs: 0 };
  }

  private renderRetry(toast: Toast, nowMs: number): void {
    if (!Number.isFinite(toast.retryAtMs)) {
      if (toast.retry.textContent !== "") toast.retry.textContent = "";
      return;
    }
    const seconds = Math.ceil((toast.retryAtMs - nowMs) / 1000);
    const text = seconds > 0 ? `Try again in ${seconds} s` : "You can try again now";
    if (toast.retry.textContent !== text) toast.retry.textContent = text;
  }

  private remove(key: string): void {
    this.live.get(key)?.item.remove();
    this.live.delete(key);
  }
}
