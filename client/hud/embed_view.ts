/**
 * `?embed=1`: a scene framed by another site (the server lets only the sites FRAME_ANCESTORS
 * names do that). The page shows the sky with one small launch hint and an "Open in Snowfire"
 * link to the full scene in a new tab; no bar, panels or toasts (`.embed` in static/overlays.css).
 * Clicks and keys still launch.
 */
import { element } from "./dom.ts";

/**
 * Switches the page to the embed view when `params` asks for it; returns whether it did.
 *
 * @example
 * ```ts
 * showEmbedView(new URLSearchParams(location.search), "quiet-pine-4821", touch);
 * ```
 */
export function showEmbedView(params: URLSearchParams, sceneId: string, touch: boolean): boolean {
  if (params.get("embed") !== "1") return false;
  document.body.classList.add("embed");
  const link = element<HTMLAnchorElement>("embed-open");
  link.href = new URL(`/s/${encodeURIComponent(sceneId)}`, location.origin).href;
  element("embed-hint").textContent = touch
    ? "Tap the sky to launch a firework"
    : "Click the sky to launch a firework";
  element("embed-strip").hidden = false;
  return true;
}
