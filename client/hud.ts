/**
 * The heads-up display over the canvas: scene name with a copy-link button, the people present,
 * activity toasts, connection state and latency, frame rate and live particle count, and a
 * banner for problems that persist (disconnection).
 */
import type { PeerInfo } from "../shared/protocol.ts";
import type { ConnectionState } from "./net.ts";

/** How long a toast stays, ms. */
const TOAST_MS = 4_000;
/** Most toasts on screen at once; older ones give way. */
const MAX_TOASTS = 4;

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing_element: the page has no #${id}`);
  return found as T;
}

/** DOM-backed HUD; every method is cheap enough to call from the frame loop. */
export class Hud {
  private readonly sceneName = element<HTMLElement>("scene-name");
  private readonly copyLink = element<HTMLButtonElement>("copy-link");
  private readonly people = element<HTMLUListElement>("people");
  private readonly connection = element<HTMLElement>("connection");
  private readonly connectionDot = element<HTMLElement>("connection-dot");
  private readonly latency = element<HTMLElement>("latency");
  private readonly fps = element<HTMLElement>("fps");
  private readonly particles = element<HTMLElement>("particles");
  private readonly banner = element<HTMLElement>("banner");
  private readonly toasts = element<HTMLOListElement>("toasts");
  private readonly peers = new Map<string, PeerInfo>();
  private selfId = "";
  private shownFps = -1;
  private shownParticles = -1;
  private shownLatency = "";

  constructor(sceneId: string) {
    this.sceneName.textContent = sceneId;
    document.title = `Snowfire · ${sceneId}`;
    this.copyLink.addEventListener("click", () => this.copy());
  }

  /** Replaces the people list (after a welcome); `self` is this viewer. */
  setPeers(self: PeerInfo, peers: readonly PeerInfo[]): void {
    this.selfId = self.id;
    this.peers.clear();
    this.peers.set(self.id, self);
    for (const peer of peers) this.peers.set(peer.id, peer);
    this.renderPeers();
  }

  /** Someone joined. */
  addPeer(peer: PeerInfo): void {
    this.peers.set(peer.id, peer);
    this.renderPeers();
  }

  /** Someone left. */
  removePeer(peer: PeerInfo): void {
    this.peers.delete(peer.id);
    this.renderPeers();
  }

  /** The display name for a peer id (`"The show"` for the scheduled show). */
  nameOf(id: string): string {
    if (id === "show") return "The show";
    if (id === this.selfId) return "You";
    return this.peers.get(id)?.name ?? "Someone";
  }

  /** The colour of a peer, if known. */
  colorOf(id: string): string | undefined {
    return this.peers.get(id)?.color;
  }

  /** Shows a brief message; `error` styles it as a refusal. */
  toast(text: string, options: { error?: boolean; color?: string } = {}): void {
    const item = document.createElement("li");
    item.className = options.error ? "toast error" : "toast";
    if (options.color) {
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.color = options.color;
      item.append(swatch);
    }
    item.append(text);
    this.toasts.append(item);
    while (this.toasts.children.length > MAX_TOASTS) this.toasts.firstElementChild?.remove();
    setTimeout(() => item.remove(), TOAST_MS);
  }

  /** Connection state with a human detail, e.g. "connection lost; retrying in 2.0 s". */
  setConnection(state: ConnectionState, detail: string): void {
    this.connection.textContent = state === "open" ? "connected" : detail;
    this.connectionDot.className = `dot ${state}`;
    if (state === "open") {
      this.hideBanner();
    } else if (state === "reconnecting") {
      this.showBanner(
        `Disconnected from the scene: ${detail}. The sky is paused until we are back.`,
      );
    }
  }

  /** Round-trip latency in ms (NaN hides it). */
  setLatency(ms: number): void {
    const text = Number.isFinite(ms) ? `${Math.round(ms)} ms` : "";
    if (text === this.shownLatency) return;
    this.shownLatency = text;
    this.latency.textContent = text;
  }

  /**
   * Frame rate and live particle count (fireworks, gun and fountain plus falling flakes); writes
   * the DOM only when the numbers change.
   */
  setStats(fps: number, liveParticles: number): void {
    const roundedFps = Math.round(fps);
    if (roundedFps !== this.shownFps) {
      this.shownFps = roundedFps;
      this.fps.textContent = `${roundedFps} fps`;
    }
    if (liveParticles !== this.shownParticles) {
      this.shownParticles = liveParticles;
      this.particles.textContent = `${liveParticles.toLocaleString("en")} particles`;
    }
  }

  /** A persistent alert at the top. */
  showBanner(text: string): void {
    this.banner.textContent = text;
    this.banner.hidden = false;
  }

  /** Removes the alert. */
  hideBanner(): void {
    this.banner.hidden = true;
  }

  private renderPeers(): void {
    const items: HTMLLIElement[] = [];
    for (const peer of this.peers.values()) {
      const item = document.createElement("li");
      if (peer.id === this.selfId) item.className = "you";
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.color = peer.color;
      item.append(swatch, peer.id === this.selfId ? `${peer.name} (you)` : peer.name);
      items.push(item);
    }
    this.people.replaceChildren(...items);
  }

  private async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(location.href);
      this.toast("Link copied. Send it to a friend to watch together.");
    } catch {
      this.toast(`Copy this link: ${location.href}`);
    }
  }
}
