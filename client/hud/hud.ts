/**
 * The heads-up display over the canvas. One compact bar: the scene chip (connection dot, scene
 * name, people count) opening the scene panel (invite buttons, people, your editable name,
 * connection, latency, frame rate, live particles), the next-firework chip, a slot for one more
 * control, the settings, and the view buttons: mute (`M`), full screen, hide the HUD (`H`).
 * In the sky: calm activity toasts, a first-visit hint, and while offline a banner with a live
 * reconnect countdown and "Reconnect now". Panels open one at a time (`sheets.ts`); Escape or a
 * tap in the sky closes them.
 */
import type { PeerInfo } from "../../shared/protocol.ts";
import type { ErrorMessage } from "../../shared/protocol.ts";
import type { EventBody, Settings } from "../../shared/types.ts";
import { element, typingInControl } from "./dom.ts";
import {
  describeError,
  describeEvent,
  describeLaunches,
  describeSettings,
  disconnectedText,
  retryText,
  rulesNews,
} from "./event_text.ts";
import type { ConnectionInfo, ConnectionState } from "../net/net.ts";
import { type Closable, Sheets } from "./sheets.ts";

export type { Closable } from "./sheets.ts";
import { Toasts } from "./toasts.ts";

/** Settings changes by one person this close together fold into one toast, ms. */
const SETTINGS_FOLD_MS = 1_000;
/** Where the muted preference is remembered. */
const MUTED_KEY = "snowfire.muted";

/** DOM-backed HUD; every method is cheap enough to call from the frame loop. */
export class Hud {
  /** The bar's panels: scene, next firework, settings (main.ts adds the last two). */
  readonly sheets = new Sheets();
  private readonly sceneName = element<HTMLElement>("scene-name");
  private readonly barSceneName = element<HTMLElement>("bar-scene-name");
  private readonly peopleCount = element<HTMLElement>("people-count");
  private readonly help = element<HTMLElement>("help");
  private readonly people = element<HTMLUListElement>("people");
  private readonly connection = element<HTMLElement>("connection");
  private readonly connectionDot = element<HTMLElement>("connection-dot");
  private readonly latency = element<HTMLElement>("latency");
  private readonly fps = element<HTMLElement>("fps");
  private readonly particles = element<HTMLElement>("particles");
  private readonly banner = element<HTMLElement>("banner");
  private readonly bannerText = element<HTMLElement>("banner-text");
  private readonly retryCountdown = element<HTMLElement>("retry-countdown");
  private readonly reconnectButton = element<HTMLButtonElement>("reconnect-now");
  private readonly nameButton = element<HTMLButtonElement>("edit-name");
  private readonly nameForm = element<HTMLFormElement>("name-form");
  private readonly nameInput = element<HTMLInputElement>("name-input");
  private readonly muteButton = element<HTMLButtonElement>("mute");
  private readonly muteLabel = element<HTMLElement>("mute-label");
  private readonly fullscreenButton = element<HTMLButtonElement>("fullscreen");
  private readonly hideButton = element<HTMLButtonElement>("hide-hud");
  private readonly showButton = element<HTMLButtonElement>("show-hud");
  private readonly toasts = new Toasts(element<HTMLOListElement>("toasts"));
  private readonly peers = new Map<string, PeerInfo>();
  private readonly settingsFolds = new Map<string, { change: Partial<Settings>; atMs: number }>();
  private readonly escapeTargets: Closable[] = [];
  private readonly muteListeners: ((muted: boolean) => void)[] = [];
  private selfId = "";
  private shownFps = -1;
  private shownParticles = -1;
  private shownLatency = "";
  private retryAtMs = NaN;
  /** Launches are refused until then (rate limited or sky full); clicks meanwhile just count. */
  private launchHoldUntilMs = -Infinity;
  private lastRefusal = "";
  private isMuted: boolean;

  constructor(sceneId: string) {
    this.sceneName.textContent = sceneId;
    this.barSceneName.textContent = sceneId;
    document.title = `Snowfire · ${sceneId}`;
    this.sheets.addButton(element("open-scene"), element("scene-panel"));
    // The panels sit above the bar: they need its height, which wraps on a narrow screen.
    const bar = document.querySelector<HTMLElement>(".hud-bar");
    if (bar) {
      const keep = () =>
        document.documentElement.style.setProperty("--bar-h", `${bar.offsetHeight}px`);
      keep();
      new ResizeObserver(keep).observe(bar);
    }
    this.isMuted = readMuted();
    this.renderMute();

    this.nameButton.addEventListener("click", () => this.openNameForm());
    this.nameForm.addEventListener("reset", () => this.closeNameForm());
    this.escapeTargets.push({
      get isOpen() {
        return !element("name-form").hidden;
      },
      close: () => this.closeNameForm(),
    });
    this.muteButton.addEventListener("click", () => this.setMuted(!this.isMuted));
    if (document.fullscreenEnabled) {
      this.fullscreenButton.hidden = false;
      this.fullscreenButton.addEventListener("click", () => this.toggleFullscreen());
      document.addEventListener("fullscreenchange", () => {
        this.fullscreenButton.setAttribute("aria-pressed", String(!!document.fullscreenElement));
      });
    }
    this.hideButton.addEventListener("click", () => this.setHudHidden(true));
    this.showButton.addEventListener("click", () => this.setHudHidden(false));
    document.addEventListener("keydown", (event) => this.onKey(event));
    this.reconnectButton.addEventListener("click", () => {
      this.retryCountdown.textContent = "reconnecting…";
    });
  }

  /** Whether sound is muted (remembered in this browser). */
  get muted(): boolean {
    return this.isMuted;
  }

  /** Calls `listener` with the muted state now and whenever the mute button or `M` changes it. */
  onMuteChange(listener: (muted: boolean) => void): void {
    this.muteListeners.push(listener);
    listener(this.isMuted);
  }

  /** Mutes or unmutes, remembers it, tells the listeners. */
  setMuted(muted: boolean): void {
    this.isMuted = muted;
    try {
      localStorage.setItem(MUTED_KEY, muted ? "1" : "0");
    } catch {
      // Storage may be off (private mode); the choice still holds for this page.
    }
    this.renderMute();
    for (const listener of this.muteListeners) listener(muted);
  }

  /** Calls `listener` when someone presses "Reconnect now". */
  onReconnectNow(listener: () => void): void {
    this.reconnectButton.addEventListener("click", listener);
  }

  /** Calls `listener` with the raw text when this viewer saves a new name. */
  onRename(listener: (raw: string) => void): void {
    this.nameForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const raw = this.nameInput.value;
      this.closeNameForm();
      listener(raw);
    });
  }

  /** Escape closes `target` when it is open (the most recently added first). */
  addEscapeTarget(target: Closable): void {
    this.escapeTargets.unshift(target);
  }

  /** Escape closes `target` when nothing added with {@link addEscapeTarget} is open. */
  addEscapeFallback(target: Closable): void {
    this.escapeTargets.push(target);
  }

  /** This viewer launched: the first-visit hint has done its job and leaves. */
  launched(): void {
    if (this.help.classList.contains("done")) return;
    this.help.classList.add("done");
    setTimeout(() => (this.help.hidden = true), 700);
  }

  /** Replaces the people list (after a welcome); `self` is this viewer. */
  setPeers(self: PeerInfo, peers: readonly PeerInfo[]): void {
    this.selfId = self.id;
    this.peers.clear();
    this.peers.set(self.id, self);
    for (const peer of peers) this.peers.set(peer.id, peer);
    this.showOwnName(self.name);
    this.renderPeers();
  }

  /** Someone (maybe this viewer) took another name: the list keeps its place. */
  renamePeer(peer: PeerInfo): void {
    if (!this.peers.has(peer.id) && peer.id !== this.selfId) return;
    this.peers.set(peer.id, peer);
    if (peer.id === this.selfId) this.showOwnName(peer.name);
    this.renderPeers();
  }

  private showOwnName(name: string): void {
    this.nameButton.textContent = name;
    this.nameButton.setAttribute("aria-label", `Your name: ${name}. Change it`);
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

  /** Shows a brief message; identical messages on screen coalesce into one with a count. */
  toast(text: string, options: { error?: boolean; color?: string } = {}): void {
    this.toasts.show(text, options);
  }

  /**
   * A toast for what someone did. One person's launches fold into "Rae launched 5 fireworks";
   * their settings changes within a second fold into one sentence.
   */
  eventToast(by: string, body: EventBody, themeSetting: Settings["theme"]): void {
    const who = this.nameOf(by);
    const color = this.colorOf(by);
    if (body.type === "launch") {
      const key = `launch:${by}`;
      const count = this.toasts.count(key) + 1;
      const text = count === 1
        ? describeEvent(who, body, themeSetting)
        : describeLaunches(who, count);
      this.toasts.show(text, { key, color, countBadge: false });
      return;
    }
    if (body.type === "settings") {
      const key = `settings:${by}`;
      const nowMs = performance.now();
      const fold = this.settingsFolds.get(key);
      const recent = fold && nowMs - fold.atMs < SETTINGS_FOLD_MS && this.toasts.count(key) > 0;
      const change = recent ? { ...fold.change, ...body.settings } : { ...body.settings };
      this.settingsFolds.set(key, { change, atMs: nowMs });
      this.toasts.show(`${who} ${describeSettings(change)}`, { key, color, countBadge: false });
      return;
    }
    if (body.type === "rules") {
      if (!rulesNews(by, body)) return;
      const whom = (peer: string) =>
        peer === this.selfId ? "you" : this.peers.get(peer)?.name ?? "someone";
      this.toasts.show(describeEvent(who, body, themeSetting, whom), { color });
      return;
    }
    this.toasts.show(describeEvent(who, body, themeSetting), { key: `gun:${by}`, color });
  }

  /**
   * A refusal from the server: one toast for all refusals, with a count and a retry countdown.
   * The server answers one refusal of a kind per second and says how many it left unanswered
   * ("and 21 more like it"); those count too.
   */
  refusal(error: ErrorMessage): void {
    const retryAtMs = error.retryAfterMs === undefined
      ? undefined
      : performance.now() + error.retryAfterMs;
    const unanswered = Number(/and (\d+) more like it/.exec(error.message)?.[1] ?? 0);
    this.lastRefusal = describeError(error);
    this.toasts.show(this.lastRefusal, {
      key: "refusal",
      error: true,
      retryAtMs,
      times: 1 + unanswered,
    });
    const aboutLaunches = error.code === "sky_full" ||
      (error.code === "rate_limited" && /launch/.test(error.message));
    if (aboutLaunches && retryAtMs !== undefined) this.launchHoldUntilMs = retryAtMs;
  }

  /**
   * True while launches would be refused anyway (after a rate-limit or full-sky refusal, until its
   * retry time): the click then only counts on the refusal toast and is not sent.
   */
  holdLaunch(): boolean {
    const nowMs = performance.now();
    if (nowMs >= this.launchHoldUntilMs) return false;
    this.toasts.show(this.lastRefusal, {
      key: "refusal",
      error: true,
      retryAtMs: this.launchHoldUntilMs,
    });
    return true;
  }

  /** Connection state: the dot, the words, and while offline a banner with a live countdown. */
  setConnection(state: ConnectionState, info: ConnectionInfo): void {
    this.connection.textContent = state === "open" ? "Connected" : sentence(info.reason);
    this.connectionDot.className = `dot ${state}`;
    if (state !== "open") this.setLatency(NaN);
    if (state === "open") {
      this.hideBanner();
      this.retryAtMs = NaN;
    } else if (state === "reconnecting") {
      // An attempt under way (no retry time) keeps the reason the link was lost for.
      const attempt = info.retryAtMs === undefined;
      this.retryAtMs = info.retryAtMs ?? NaN;
      if (!attempt || this.banner.hidden || this.reconnectButton.hidden) {
        this.showBanner(disconnectedText(attempt ? undefined : info.reason));
      }
      this.reconnectButton.hidden = false;
      this.renderCountdown();
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

  /** Advances countdowns and retires old toasts; call a few times a second. */
  update(): void {
    this.toasts.update();
    if (!this.banner.hidden) this.renderCountdown();
  }

  /** A persistent alert at the top (no reconnect controls). */
  showBanner(text: string): void {
    if (this.bannerText.textContent !== text) this.bannerText.textContent = text;
    this.banner.hidden = false;
    this.reconnectButton.hidden = true;
    this.retryCountdown.textContent = "";
  }

  /** Removes the alert. */
  hideBanner(): void {
    this.banner.hidden = true;
  }

  private renderCountdown(): void {
    if (this.reconnectButton.hidden) return;
    const text = retryText(this.retryAtMs - performance.now());
    if (this.retryCountdown.textContent !== text) this.retryCountdown.textContent = text;
  }

  private renderPeers(): void {
    const items: HTMLLIElement[] = [];
    for (const peer of this.peers.values()) {
      const item = document.createElement("li");
      if (peer.id === this.selfId) item.className = "you";
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.color = peer.color;
      // Isolated from its neighbours' text direction; a name the server made up is in italics.
      const name = document.createElement("bdi");
      name.textContent = peer.name;
      if (peer.gen) {
        name.style.fontStyle = "italic";
        name.title = "a name picked at random";
      }
      item.append(swatch, name, peer.id === this.selfId ? " (you)" : "");
      items.push(item);
    }
    this.people.replaceChildren(...items);
    const count = this.peers.size;
    this.peopleCount.textContent = count > 1 ? String(count) : "";
    element("open-scene").setAttribute(
      "aria-label",
      `Scene ${this.barSceneName.textContent}, ${count} ${count === 1 ? "person" : "people"} here`,
    );
  }

  private renderMute(): void {
    this.muteButton.setAttribute("aria-pressed", String(this.isMuted));
    this.muteLabel.textContent = this.isMuted ? "Sound off" : "Sound on";
    this.muteButton.title = this.isMuted ? "Unmute (M)" : "Mute (M)";
  }

  private openNameForm(): void {
    this.nameInput.value = this.peers.get(this.selfId)?.name ?? "";
    this.nameForm.hidden = false;
    this.nameButton.setAttribute("aria-expanded", "true");
    this.nameInput.focus();
    this.nameInput.select();
  }

  private closeNameForm(): void {
    if (this.nameForm.hidden) return;
    const hadFocus = this.nameForm.contains(document.activeElement);
    this.nameForm.hidden = true;
    this.nameButton.setAttribute("aria-expanded", "false");
    if (hadFocus) this.nameButton.focus();
  }

  private async toggleFullscreen(): Promise<void> {
    try {
      if (document.fullscreenElement) await document.exitFullscreen();
      else await document.documentElement.requestFullscreen();
    } catch {
      this.toast("This browser would not go full screen.");
    }
  }

  private setHudHidden(hidden: boolean): void {
    document.body.classList.toggle("hud-hidden", hidden);
    this.showButton.hidden = !hidden;
    // Hidden: the keys go to the scene at once (F, Enter, G), not to the Show HUD button.
    if (hidden) element("scene").focus({ preventScroll: true });
    else if (document.activeElement === this.showButton) this.hideButton.focus();
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === "Escape") {
      const open = this.escapeTargets.find((target) => target.isOpen);
      if (open) {
        open.close();
        event.preventDefault();
      }
      return;
    }
    if (event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typingInControl(event)) return;
    if (event.key === "m" || event.key === "M") {
      this.setMuted(!this.isMuted);
      event.preventDefault();
    } else if (event.key === "h" || event.key === "H") {
      this.setHudHidden(!document.body.classList.contains("hud-hidden"));
      event.preventDefault();
    }
  }
}

/** "connection lost" → "Connection lost". */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function readMuted(): boolean {
  try {
    return localStorage.getItem(MUTED_KEY) === "1";
  } catch {
    return false;
  }
}
