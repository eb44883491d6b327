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
