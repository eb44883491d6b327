/**
 * Every control a person can reach, pressed like a person at 844×390, as the scene's host and
 * as a guest (testing/person_click.ts says what each press must do).
 */
import { browserTest } from "../../testing/browser.ts";
import { pressEverythingAt, VIEWPORTS } from "../../testing/person_click.ts";

browserTest(
  "browser person click at 844x390: every control takes a hand, as host and guest",
  (t) => pressEverythingAt(VIEWPORTS["844x390"], t),
);
