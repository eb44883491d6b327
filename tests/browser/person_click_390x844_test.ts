/**
 * Every control a person can reach, pressed like a person at 390×844, as the scene's host and
 * as a guest (testing/person_click.ts says what each press must do).
 */
import { browserTest } from "../../testing/browser.ts";
import { pressEverythingAt, VIEWPORTS } from "../../testing/person_click.ts";

browserTest(
  "browser person click at 390x844: every control takes a hand, as host and guest",
  (t) => pressEverythingAt(VIEWPORTS["390x844"], t),
);
