/**
 * Puts the composer on the page from the page's parts (main.ts calls this once): its panel in
 * the HUD's sky row, its opener in the bar, Escape closing it, and the replay giving way.
 */
import { mayCompose } from "../../../shared/rules.ts";
import type { World } from "../../../shared/world.ts";
import type { FireworkSound } from "../../audio/sound.ts";
import type { Net } from "../../net/net.ts";
import type { SceneRenderer } from "../../render/renderer.ts";
import type { ReplayMode } from "../../replay/replay_mode.ts";
import { element } from "../dom.ts";
import type { Hud } from "../hud.ts";
import type { SceneRules } from "../scene_rules.ts";
import { LogClient } from "../../replay/log_client.ts";
import { Composer } from "./composer.ts";
import { openShow, showParam } from "./show_link.ts";
import type { DraftEdit } from "./draft_state.ts";

/** The page's parts the composer uses. */
export interface ComposerPage {
  sceneId: string;
  kinds: readonly string[];
  hud: Hud;
  rules: SceneRules;
  replay: ReplayMode;
  renderer: SceneRenderer;
  sound: FireworkSound;
  /** The link (made after the composer). */
  net(): Net;
  liveWorld(): World | null;
  you(): string;
  hostKey(): string | undefined;
}

/**
 * Makes the composer.
 *
 * @example
 * ```ts
 * const composer = mountComposer({ sceneId, kinds, hud, rules, replay, renderer, sound, ... });
 * ```
 */
export function mountComposer(page: ComposerPage): Composer {
  const { hud, rules, replay, renderer } = page;
  const composer = new Composer({
    sceneId: page.sceneId,
    parent: document.querySelector<HTMLElement>(".hud-middle") ?? document.body,
    opener: element<HTMLButtonElement>("composer-open"),
    notice: element("show-preparing"),
    kinds: page.kinds,
    sound: page.sound,
    you: page.you,
    mayCompose: () => mayCompose(rules.current, page.you()),
    whyNot: () =>
      "Only the scene's hosts, and people a host lets compose, can play a show for everyone.",
    nameOf: (peer) => hud.nameOf(peer),
    colorOf: (peer) => hud.colorOf(peer),
    sendDraft: (edits: DraftEdit[]) => page.net().send({ t: "draft", edits }),
    submitShow: (show) => page.net().submit(show),
    toast: (text, options) => hud.toast(text, options),
    liveWorld: page.liveWorld,
    hostKey: page.hostKey,
    show: (world) => {
      if (world) renderer.bindWorld(world);
      else {
        const live = page.liveWorld();
        if (live) replay.liveRebuilt(live);
      }
    },
    opening: () => {
      hud.sheets.close();
      if (replay.isOpen) replay.close();
    },
  });
  hud.addEscapeTarget(composer);
  // A show link (`?show=<n>`) opens the replay at the show's start once the scene is here.
  const n = showParam(location.search);
  if (n !== null) {
    const log = new LogClient(page.sceneId);
    const when = () => {
      const live = page.liveWorld();
      if (!live) return void setTimeout(when, 200);
      void openShow(n, {
        log,
        liveTick: () => page.liveWorld()?.tick ?? live.tick,
        seek: (tick) => replay.seek(tick, true),
        say: (text, options) => hud.toast(text, options),
      });
    };
    when();
  }
  // The replay's own button or key takes the screen: a preview gives way.
  element("replay-open").addEventListener("click", () => composer.stopPreview());
  return composer;
}
