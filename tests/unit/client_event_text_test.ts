/** The HUD's sentences name colours as the picker does ("Red and gold"), never by their ids. */
import assert from "node:assert/strict";
import {
  describeEvent,
  describeSettings,
  disconnectedText,
  retryText,
  rulesNews,
  THEME_LABELS,
} from "../../client/hud/event_text.ts";
import { THEMES } from "../../shared/types.ts";

Deno.test("event text names a launch's colours as the picker does", () => {
  assert.equal(
    describeEvent("Ana", { type: "launch", x: 0, z: 0, theme: "red-gold" }, "auto"),
    "Ana launched a firework in red and gold",
  );
  assert.equal(
    describeEvent("Ben", { type: "launch", x: 0, z: 0, kind: "peony" }, "blue-silver"),
    "Ben launched a peony in blue and silver",
  );
  assert.equal(
    describeEvent("Cy", { type: "launch", x: 0, z: 0 }, "auto"),
    "Cy launched a firework",
  );
});

Deno.test("event text names a chosen scene theme as the settings do", () => {
  assert.equal(describeSettings({ theme: "green-purple" }), "chose green and purple fireworks");
  assert.equal(describeSettings({ theme: "auto" }), "let the fireworks pick their colours");
});

Deno.test("every theme has a label and no sentence carries a theme id", () => {
  for (const theme of THEMES) {
    assert.ok(THEME_LABELS[theme], theme);
    const text = describeEvent("Ana", { type: "launch", x: 0, z: 0, theme }, "auto") +
      describeSettings({ theme });
    if (theme.includes("-")) assert.ok(!text.includes(theme), text);
  }
});

Deno.test("the offline banner counts whole seconds and never says 0.0 s", () => {
  assert.equal(retryText(2_300), "Retrying in 3 s.");
  assert.equal(retryText(1_000), "Retrying in 1 s.");
  assert.equal(retryText(400), "Retrying in 1 s.");
  assert.equal(retryText(40), "Reconnecting…");
  assert.equal(retryText(-5), "Reconnecting…");
  assert.equal(retryText(NaN), "Reconnecting…");
});

Deno.test("the offline banner's reason ends in one full stop", () => {
  assert.equal(
    disconnectedText("connecting…"),
    "Disconnected from the scene: connecting. The sky is paused until we are back.",
  );
  assert.equal(
    disconnectedText("connection lost"),
    "Disconnected from the scene: connection lost. The sky is paused until we are back.",
  );
  assert.equal(
    disconnectedText(),
    "Disconnected from the scene. The sky is paused until we are back.",
  );
});

Deno.test("host toasts name both people, and a host's own reconnect is no news", () => {
  const names: Record<string, string> = { p1: "Ana", p2: "Ben", me: "you" };
  const whom = (peer: string) => names[peer] ?? "someone";
  const grant = { type: "rules", do: "host", peer: "p2" } as const;
  assert.equal(describeEvent("You", grant, "auto", whom), "You made Ben a host");
  assert.equal(
    describeEvent("Ana", { ...grant, peer: "me" }, "auto", whom),
    "Ana made you a host",
  );
  assert.equal(
    describeEvent("Ana", { type: "rules", do: "mute", peer: "p2", on: true }, "auto", whom),
    "Ana muted Ben’s launches",
  );
  assert.equal(
    describeEvent("Ana", { type: "rules", do: "mute", peer: "me", on: false }, "auto", whom),
    "Ana unmuted your launches",
  );
  assert.equal(
    describeEvent("You", { type: "rules", do: "remove", peer: "p2" }, "auto", whom),
    "You removed Ben from the scene",
  );
  // A host's page proves its key after every reconnect: a grant to oneself.
  assert.equal(rulesNews("p1", { ...grant, peer: "p1" }), false);
  assert.equal(rulesNews("p1", grant), true);
  // A composer's page given the right back on reconnect: the server stamps it by the page itself.
  const compose = { type: "rules", do: "compose", peer: "p1", on: true } as const;
  assert.equal(rulesNews("p1", compose), false);
  assert.equal(rulesNews("p2", compose), true);
});
