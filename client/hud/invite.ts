/**
 * Inviting friends: "Copy link" and, where the browser has one, the native share sheet, both with
 * the bare scene URL (never `?name=`, so a friend joins under their own name), and a QR code of
 * that URL drawn on a canvas in code.
 */
import { element } from "./dom.ts";
import { encodeQr } from "./qr_code.ts";

/** The link to share for a scene: origin and path only. */
export function sceneLink(origin: string, sceneId: string): string {
  return `${origin}/s/${sceneId}`;
}

/** Pixels per module of the drawn QR code (CSS pixels; the canvas scales for the display). */
const QR_MODULE_PX = 4;
/** Light margin around the code, in modules (the standard's quiet zone). */
const QR_QUIET_MODULES = 4;

/** The invite buttons and QR panel of the HUD. */
export class Invite {
  private readonly link: string;
  private readonly say: (text: string) => void;
  /** The QR code is drawn (once, when first shown). */
  private drawn = false;
  private readonly copyButton = element<HTMLButtonElement>("copy-link");
  private readonly shareButton = element<HTMLButtonElement>("share-link");
  private readonly qrButton = element<HTMLButtonElement>("show-qr");
  private readonly qrPanel = element<HTMLElement>("qr-panel");
  private readonly qrCanvas = element<HTMLCanvasElement>("qr");

  /** `say` shows a short confirmation (a toast). */
  constructor(link: string, say: (text: string) => void) {
    this.link = link;
    this.say = say;
    this.copyButton.addEventListener("click", () => this.copy());
    if (typeof navigator.share === "function") {
      this.shareButton.hidden = false;
      this.shareButton.addEventListener("click", () => this.share());
    }
    this.qrButton.addEventListener("click", () => (this.isOpen ? this.close() : this.open()));
  }

  /** True while the QR code is shown. */
  get isOpen(): boolean {
    return !this.qrPanel.hidden;
  }

  /** Shows the QR code. */
  open(): void {
    if (!this.drawn) this.draw();
    this.qrPanel.hidden = false;
    this.qrButton.setAttribute("aria-expanded", "true");
  }

  /** Hides the QR code. */
  close(): void {
    if (this.qrPanel.hidden) return;
    this.qrPanel.hidden = true;
    this.qrButton.setAttribute("aria-expanded", "false");
    if (this.qrPanel.contains(document.activeElement)) this.qrButton.focus();
  }

  private draw(): void {
    const qr = encodeQr(this.link);
    const modules = qr.size + QR_QUIET_MODULES * 2;
    const cssSize = modules * QR_MODULE_PX;
    const scale = Math.max(1, Math.round(globalThis.devicePixelRatio || 1));
    this.qrCanvas.width = cssSize * scale;
    this.qrCanvas.height = cssSize * scale;
    this.qrCanvas.style.width = `${cssSize}px`;
    this.qrCanvas.style.height = `${cssSize}px`;
    const context = this.qrCanvas.getContext("2d");
    if (!context) return;
    const px = QR_MODULE_PX * scale;
    context.fillStyle = "#ffffff";
    context.fillRect(0, 0, this.qrCanvas.width, this.qrCanvas.height);
    context.fillStyle = "#000000";
    for (let y = 0; y < qr.size; y++) {
      for (let x = 0; x < qr.size; x++) {
        if (qr.modules[y * qr.size + x]) {
          context.fillRect((x + QR_QUIET_MODULES) * px, (y + QR_QUIET_MODULES) * px, px, px);
        }
      }
    }
    this.qrCanvas.setAttribute("aria-label", `QR code for ${this.link}`);
    this.qrCanvas.dataset.link = this.link;
    this.drawn = true;
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.link);
      this.say("Link copied. Send it to a friend to watch together.");
    } catch {
      this.say(`Copy this link: ${this.link}`);
    }
  }

  private async share(): Promise<void> {
    try {
      await navigator.share({
        title: document.title,
        text: "Watch the snow and launch fireworks with me",
        url: this.link,
      });
    } catch (error) {
      // Closing the share sheet is not a failure worth a message.
      if ((error as DOMException).name !== "AbortError") await this.copy();
    }
  }
}
