/**
 * The HUD's panels ("sheets"): each opens from its button in the bar, one at a time, and closes
 * on its button, on Escape (as a {@link Closable}), or on a tap in the sky — that tap still
 * launches, so the first tap in the sky is never spent on closing a panel. A `<details>` panel
 * (the scene settings) takes part too.
 */

/** A panel and the control that opens it. */
interface Sheet {
  readonly button: HTMLElement;
  readonly panel: HTMLElement;
  isOpen(): boolean;
  setOpen(open: boolean): void;
}

/** Something Escape can close. */
export interface Closable {
  readonly isOpen: boolean;
  close(): void;
}

/**
 * Binds the bar's panel buttons.
 *
 * @example
 * ```ts
 * const sheets = new Sheets();
 * sheets.addButton(element("open-scene"), element("scene-panel"));
 * sheets.addDetails(element<HTMLDetailsElement>("settings"));
 * canvas.addEventListener("pointerdown", () => sheets.close());
 * ```
 */
export class Sheets implements Closable {
  private readonly sheets: Sheet[] = [];
  private readonly openListeners: ((panel: HTMLElement) => void)[] = [];

  /** A button with `aria-controls` = `panel` toggles it. */
  addButton(button: HTMLElement, panel: HTMLElement): void {
    const sheet: Sheet = {
      button,
      panel,
      isOpen: () => !panel.hidden,
      setOpen: (open) => {
        panel.hidden = !open;
        button.setAttribute("aria-expanded", String(open));
      },
    };
    this.sheets.push(sheet);
    button.addEventListener("click", () => this.toggle(sheet));
  }

  /** A `<details>` element whose summary is its button. */
  addDetails(details: HTMLDetailsElement): void {
    const summary = details.querySelector("summary") as HTMLElement;
    const sheet: Sheet = {
      button: summary,
      panel: details,
      isOpen: () => details.open,
      setOpen: (open) => (details.open = open),
    };
    this.sheets.push(sheet);
    details.addEventListener("toggle", () => {
      if (details.open) this.closeOthers(sheet);
      if (details.open) { for (const listener of this.openListeners) listener(details); }
    });
  }

  /** Calls `listener` with a panel whenever one opens. */
  onOpen(listener: (panel: HTMLElement) => void): void {
    this.openListeners.push(listener);
  }

  /** True while some panel is open. */
  get isOpen(): boolean {
    return this.sheets.some((sheet) => sheet.isOpen());
  }

  /** Closes every panel; focus inside one goes back to its button. */
  close(): void {
    for (const sheet of this.sheets) this.shut(sheet);
  }

  private toggle(sheet: Sheet): void {
    if (sheet.isOpen()) {
      this.shut(sheet);
      return;
    }
    this.closeOthers(sheet);
    sheet.setOpen(true);
    for (const listener of this.openListeners) listener(sheet.panel);
  }

  private closeOthers(keep: Sheet): void {
    for (const sheet of this.sheets) if (sheet !== keep) this.shut(sheet);
  }

  private shut(sheet: Sheet): void {
    if (!sheet.isOpen()) return;
    const hadFocus = sheet.panel.contains(document.activeElement) &&
      document.activeElement !== sheet.button;
    sheet.setOpen(false);
    if (hadFocus) sheet.button.focus();
  }
}
