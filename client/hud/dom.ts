/** Small DOM helpers shared by the HUD's parts. */

/**
 * The element with `id`, typed as `T`; throws `missing_element` when the page lacks it (a broken
 * `index.html` should fail loudly at start, not later in a click handler).
 *
 * @example
 * ```ts
 * const button = element<HTMLButtonElement>("copy-link");
 * ```
 */
export function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing_element: the page has no #${id}`);
  return found as T;
}

/** True when a key goes to a form control (typing a name, stepping a slider), not to the page. */
export function typingInControl(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  return !!target?.closest?.("input, select, textarea, [contenteditable]");
}

/**
 * A new `tag` element with `props` assigned and `children` appended: the panels built in code
 * (the composer, the replay bar) build their markup with it.
 *
 * @example
 * ```ts
 * const row = el("div", { className: "replay-row" }, el("strong", {}, "Live"), " · ");
 * ```
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & { className?: string } = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
}

/**
 * A chip button: `text` on it, `title` as its tooltip, `onclick` when pressed, `name` its own
 * class beside `chip`.
 *
 * @example
 * ```ts
 * const play = chip("Pause", "Pause or play (K)", () => console.log("pressed"), "replay-play");
 * ```
 */
export function chip(
  text: string,
  title: string,
  onclick: () => void,
  name = "",
): HTMLButtonElement {
  return el("button", { type: "button", className: `chip ${name}`.trim(), title, onclick }, text);
}

/**
 * A panel's "×" chip (class `<prefix>-close`) that closes it: `title` its tooltip, `label` what
 * a screen reader says.
 *
 * @example
 * ```ts
 * const close = closeChip("composer", "Close the composer (Esc)", "Close the composer", () => {});
 * ```
 */
export function closeChip(
  prefix: string,
  title: string,
  label: string,
  onclick: () => void,
): HTMLButtonElement {
  const className = `chip ${prefix}-close`;
  return el("button", { type: "button", className, title, ariaLabel: label, onclick }, "×");
}

/**
 * A panel built in code whose `root` is shown or hidden whole (the composer, the replay bar).
 *
 * @example
 * ```ts
 * class Note extends HiddenPanel {
 *   readonly root = el("section", { hidden: true }, "Hello");
 * }
 * const note = new Note();
 * note.open(); // note.isOpen is true
 * ```
 */
export abstract class HiddenPanel {
  abstract readonly root: HTMLElement;

  get isOpen(): boolean {
    return !this.root.hidden;
  }

  open(): void {
    this.root.hidden = false;
  }

  close(): void {
    this.root.hidden = true;
  }
}

/**
 * A hidden panel's root: a `section` with `id`, the classes `panel` and `name`, and `label` for
 * screen readers, holding `children`.
 *
 * @example
 * ```ts
 * const root = panelSection("replay-bar", "replay-bar", "Replay and clips", el("p", {}, "Live"));
 * ```
 */
export function panelSection(
  id: string,
  name: string,
  label: string,
  ...children: (Node | string)[]
): HTMLElement {
  const section = el("section", { id, className: `panel ${name}`, hidden: true }, ...children);
  section.setAttribute("aria-label", label);
  return section;
}

/**
 * A layer (class `layerClass`, hidden from screen readers) of `count` hidden spans (class
 * `itemClass`), appended to `parent`: overlays that reuse a fixed set of elements round robin.
 *
 * @example
 * ```ts
 * const { layer, spans } = spanPool(document.body, "burst-labels", "burst-label", 24);
 * ```
 */
export function spanPool(
  parent: HTMLElement,
  layerClass: string,
  itemClass: string,
  count: number,
): { layer: HTMLElement; spans: HTMLSpanElement[] } {
  const layer = el("div", { className: layerClass });
  layer.setAttribute("aria-hidden", "true");
  const spans = Array.from(
    { length: count },
    () => el("span", { className: itemClass, hidden: true }),
  );
  layer.append(...spans);
  parent.append(layer);
  return { layer, spans };
}
