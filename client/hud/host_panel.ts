/**
 * The host's controls, inside the scene settings panel: who may change settings, pause
 * launches, a countdown to a finale (in N minutes, its length and intensity) and cancelling it,
 * per person mute / remove / make host / let compose shows (and who may compose), and the host link, shown once when a key arrives. For
 * everyone it says which settings rule is in force, and a guest's disabled settings controls say
 * why. Every action is checked again on the server; this only asks.
 *
 * @example
 * ```ts
 * const panel = new HostPanel("quiet-pine-4821", (action) => net.hostAction(action));
 * panel.display(rules, myPeerId);
 * ```
 */
import type { PeerInfo } from "../../shared/protocol.ts";
import type { HostAction } from "../../shared/types.ts";
import { hasHost } from "../../shared/rules.ts";
import { element } from "./dom.ts";
import type { SceneRules } from "./scene_rules.ts";

/** Where a scene's host key is kept in this browser. */
export function hostKeyStorageName(scene: string): string {
  return `snowfire.hostKey.${scene}`;
}

/** The host link for `key`: the scene URL with the key in the fragment (never sent in requests). */
export function hostLink(origin: string, scene: string, key: string): string {
  return `${origin}/s/${scene}#host=${key}`;
}

/** Above the scene's settings: the host's tabs and the rule in force (in view, never scrolled). */
const HEAD = `
<div id="settings-tabs" class="settings-tabs" role="tablist" aria-label="Settings" hidden>
  <button id="tab-scene" type="button" role="tab" class="chip" aria-selected="true"
    aria-controls="scene-settings">Scene</button>
  <button id="tab-host" type="button" role="tab" class="chip" aria-selected="false"
    aria-controls="host-panel">Host</button>
</div>
<p id="settings-rule" class="small settings-rule"></p>`;

/** The host's own tab. */
const HTML = `
<section id="host-panel" class="host-panel" role="tabpanel" aria-labelledby="tab-host" hidden>
  <div class="host-col">
    <div class="host-line">
      <label class="host-lock">Who may change settings
        <select id="host-lock"><option value="hosts">Hosts only</option>
          <option value="everyone">Everyone</option></select></label>
      <label class="check"><input id="host-pause" type="checkbox" /> Pause launches (yours
        still go)</label>
    </div>
    <fieldset class="host-countdown"><legend>Countdown to a finale</legend>
      <label>In <span class="unit"><input id="countdown-minutes" type="number" min="0.05"
        max="1440" step="0.05" value="1" /> min</span></label>
      <label>Finale <span class="unit"><input id="finale-seconds" type="number" min="5" max="120"
        value="30" /> s</span></label>
      <label class="intensity">Intensity <input id="finale-intensity" type="range" min="1" max="5"
        value="3" /></label>
      <div class="host-buttons wide">
        <button id="countdown-start" type="button" class="chip">Start countdown</button>
        <button id="countdown-cancel" type="button" class="chip">Cancel</button>
      </div>
    </fieldset>
  </div>
  <div class="host-col">
    <fieldset><legend>People</legend>
      <select id="host-person" aria-label="Person"></select>
      <div class="host-buttons">
        <button id="host-mute" type="button" class="chip">Mute</button>
        <button id="host-unmute" type="button" class="chip">Unmute</button>
        <button id="host-remove" type="button" class="chip">Remove</button>
        <button id="host-grant" type="button" class="chip">Make host</button>
        <button id="host-compose" type="button" class="chip" aria-pressed="false"
          title="Let this person compose shows with the hosts (the Show button), or no longer"
          >Composes shows</button>
      </div>
      <p id="host-composers" class="small host-composers"></p>
    </fieldset>
    <div id="host-link-box" class="host-link-box" hidden>
      <p class="small">Your host link, shown once: whoever opens it is a host. Keep it private.</p>
      <div class="host-buttons"><input id="host-link" readonly aria-label="Host link" />
        <button id="host-link-copy" type="button" class="chip">Copy</button></div>
    </div>
    <div class="host-buttons">
      <button id="host-rekey" type="button" class="chip"
        title="A new host link for you: your older one stops working, wherever it was shared">New
        host link</button>
    </div>
  </div>
</section>`;

/** The host panel and the settings rule line. */
export class HostPanel {
  private readonly form = element<HTMLFormElement>("settings-form");
  private readonly rule: HTMLElement;
  private readonly panel: HTMLElement;
  private readonly tabs: HTMLElement;
  private readonly sceneSettings: HTMLElement;
  private hostNames = "";
  private readonly people = new Map<string, PeerInfo>();
  private you = "";
  private shownVersion = -1;
  private shownYou = "";
  private rules: SceneRules | null = null;

  /**
   * `send` asks the server for a host action; `say` tells the person something (a toast), such as
   * why a control they pressed is off.
   */
  constructor(
    private readonly send: (action: HostAction) => boolean,
    private readonly say: (text: string) => void = () => {},
  ) {
    this.form.insertAdjacentHTML("afterbegin", HEAD);
    this.form.insertAdjacentHTML("beforeend", HTML);
    this.rule = element("settings-rule");
    this.panel = element("host-panel");
    this.tabs = element("settings-tabs");
    this.sceneSettings = element("scene-settings");
    for (const tab of this.tabs.querySelectorAll<HTMLButtonElement>('[role="tab"]')) {
      tab.addEventListener("click", () => this.showTab(tab.id === "tab-host"));
    }
    // The panel opens on the scene's settings again, scrolled to its top (the rule in force).
    element<HTMLDetailsElement>("settings").addEventListener("toggle", (e) => {
      if ((e.target as HTMLDetailsElement).open) this.form.scrollTop = 0;
      else this.showTab(false);
    });
    // A guest pressing a control that is off learns why (a disabled control gets no click, but
    // its press still reaches the form).
    this.form.addEventListener("pointerdown", (event) => {
      const target = event.target as HTMLElement;
      const control = target.closest("label")?.querySelector("input, select") ?? target;
      if (!(control as HTMLInputElement).disabled || this.panel.contains(control)) return;
      this.rule.classList.remove("nudge");
      void this.rule.offsetWidth;
      this.rule.classList.add("nudge");
      this.say(this.whyDisabled());
    });
    const value = (id: string) => Number(element<HTMLInputElement>(id).value);
    element<HTMLSelectElement>("host-lock").addEventListener("change", (e) => {
      const lock = (e.target as HTMLSelectElement).value as "hosts" | "everyone";
      this.send({ do: "lock", lock });
    });
    element<HTMLInputElement>("host-pause").addEventListener("change", (e) => {
      this.send({ do: "pause", on: (e.target as HTMLInputElement).checked });
    });
    element("countdown-start").addEventListener("click", () => {
      this.send({
        do: "countdown",
        in: Math.max(1, Math.round(value("countdown-minutes") * 60)),
        seconds: Math.min(120, Math.max(5, Math.round(value("finale-seconds")))),
        intensity: Math.min(5, Math.max(1, Math.round(value("finale-intensity")))),
      });
    });
    element("countdown-cancel").addEventListener("click", () => this.send({ do: "cancel" }));
    const person = () => element<HTMLSelectElement>("host-person").value;
    element("host-mute").addEventListener("click", () => {
      if (person()) this.send({ do: "mute", peer: person(), on: true });
    });
    element("host-unmute").addEventListener("click", () => {
      if (person()) this.send({ do: "mute", peer: person(), on: false });
    });
    element("host-remove").addEventListener("click", () => {
      if (person()) this.send({ do: "remove", peer: person() });
    });
    element("host-grant").addEventListener("click", () => {
      if (person()) this.send({ do: "grant", peer: person() });
    });
    const compose = element<HTMLButtonElement>("host-compose");
    compose.addEventListener("click", () => {
      const on = compose.getAttribute("aria-pressed") !== "true";
      if (person()) this.send({ do: "compose", peer: person(), on });
    });
    element("host-person").addEventListener("change", () => this.showComposer());
    element("host-rekey").addEventListener("click", () => this.send({ do: "rekey" }));
    element("host-link-copy").addEventListener("click", () => {
      const input = element<HTMLInputElement>("host-link");
      navigator.clipboard.writeText(input.value).then(
        () => this.say("Host link copied. Keep it private: whoever opens it is a host."),
        () => {
          input.select();
          this.say("Copy the selected host link (it could not be copied for you).");
        },
      );
    });
  }

  /** The compose toggle says whether the chosen person may compose (hosts always may). */
  private showComposer(): void {
    const peer = element<HTMLSelectElement>("host-person").value;
    const button = element<HTMLButtonElement>("host-compose");
    const host = this.rules?.isHost(peer) ?? false;
    const on = host || (this.rules?.current.composers?.includes(peer) ?? false);
    button.setAttribute("aria-pressed", String(on));
    button.disabled = !peer || host;
    button.title = host
      ? "Hosts always compose shows"
      : on
      ? "This person composes shows with the hosts; press to stop that"
      : "Let this person compose shows with the hosts (the Show button)";
  }

  /** Shows the Host tab (or the scene's settings). */
  private showTab(host: boolean): void {
    const shown = host && !this.tabs.hidden;
    this.panel.hidden = !shown;
    this.sceneSettings.hidden = shown;
    element("tab-host").setAttribute("aria-selected", String(shown));
    element("tab-scene").setAttribute("aria-selected", String(!shown));
  }

  /** Why a guest's controls are off, naming the hosts present. */
  private whyDisabled(): string {
    return this.hostNames
      ? `Only the scene's hosts can change these settings: ask ${this.hostNames}.`
      : "Only the scene's hosts can change these settings.";
  }

  /** The people present (the HUD's list, mirrored for the person picker). */
  setPeers(you: PeerInfo, peers: readonly PeerInfo[]): void {
    this.you = you.id;
    this.people.clear();
    for (const peer of peers) this.people.set(peer.id, peer);
    this.shownVersion = -1;
  }

  addPeer(peer: PeerInfo): void {
    this.people.set(peer.id, peer);
    this.shownVersion = -1;
  }

  removePeer(peer: PeerInfo): void {
    this.people.delete(peer.id);
    this.shownVersion = -1;
  }

  /** Shows the host link once (a key just minted for this page). */
  showHostLink(link: string): void {
    element<HTMLInputElement>("host-link").value = link;
    element("host-link-box").hidden = false;
  }

  /** Shows the rules in force; cheap to call every frame (writes only on change). */
  display(rules: SceneRules): void {
    if (rules.version === this.shownVersion && this.you === this.shownYou) return;
    this.rules = rules;
    this.shownVersion = rules.version;
    this.shownYou = this.you;
    const current = rules.current;
    const host = rules.isHost(this.you);
    const may = rules.mayChangeSettings(this.you);
    const hostNames = [...this.people.values()].filter((p) =>
      rules.isHost(p.id) && p.id !== this.you
    )
      .map((p) => p.name);
    this.hostNames = hostNames.length > 2
      ? `${hostNames.slice(0, 2).join(", ")} or another host`
      : hostNames.join(" or ");
    this.rule.textContent = current.lock === "everyone" || !may
      ? current.lock === "everyone"
        ? "Everyone can change these settings (a host chose that)."
        : this.whyDisabled()
      : host
      ? "Only hosts can change these settings (you are a host)."
      : "Anyone can change these settings (this scene has no host).";
    this.rule.classList.toggle("locked", !may);
    const why = may ? "" : this.whyDisabled();
    // The fountain's rotation and spiral are the hosts' own, locked or not (host_rules.ts).
    const hostsMay = host || !hasHost(current);
    for (
      const control of this.form.querySelectorAll<HTMLInputElement | HTMLSelectElement>(
        "input, select",
      )
    ) {
      if (this.panel.contains(control)) continue;
      const hostsOnly = control.dataset.hostsOnly !== undefined;
      control.disabled = hostsOnly ? !hostsMay : !may;
      control.title = hostsOnly && !hostsMay ? "only a host can change this" : why;
    }
    const hadTabs = !this.tabs.hidden;
    this.tabs.hidden = !host;
    if (!host || !hadTabs) this.showTab(false);
    if (!host) return;
    element<HTMLSelectElement>("host-lock").value = current.lock;
    element<HTMLInputElement>("host-pause").checked = current.paused;
    element<HTMLButtonElement>("countdown-cancel").disabled = current.countdown === null;
    const picker = element<HTMLSelectElement>("host-person");
    const chosen = picker.value;
    picker.replaceChildren();
    const composers = current.composers ?? [];
    for (const peer of this.people.values()) {
      if (peer.id === this.you) continue;
      const tags = [
        rules.isHost(peer.id) ? "host" : "",
        current.muted.includes(peer.id) ? "muted" : "",
        composers.includes(peer.id) && !rules.isHost(peer.id) ? "composes" : "",
      ].filter(Boolean).join(", ");
      picker.add(new Option(tags ? `${peer.name} (${tags})` : peer.name, peer.id));
    }
    if (chosen) picker.value = chosen;
    // Who may compose shows besides the hosts (hosts always may).
    const names = composers.filter((id) => !rules.isHost(id)).map((id) =>
      id === this.you ? "you" : this.people.get(id)?.name
    ).filter((name): name is string => !!name);
    element("host-composers").textContent = names.length > 0
      ? `Composing shows with the hosts: ${names.join(", ")}.`
      : "Only hosts compose shows (a host may let others: Composes shows).";
    this.showComposer();
  }
}
