/** Friendly scene ids and peer names. */
import assert from "node:assert/strict";
import {
  claimDistinctName,
  cleanName,
  distinctName,
  nameKey,
  randomPeerName,
  randomSceneId,
  SceneNames,
} from "../../server/scene/names.ts";
import { nameClaimKey } from "../../server/cluster/name_claims.ts";
import { TestClient } from "../../testing/test_client.ts";
import { withServer } from "../../testing/test_server.ts";
import { SceneId, type ServerMessage } from "../../shared/protocol.ts";

Deno.test("names are valid scene ids and readable peer names", () => {
  for (let i = 0; i < 200; i++) {
    const id = randomSceneId();
    assert.ok(SceneId.safeParse(id).success, id);
    assert.match(id, /^[a-z]+-[a-z]+-\d{4}$/);
    assert.match(randomPeerName(), /^[A-Z][a-z]+ [A-Z][a-z]+$/);
  }
});

Deno.test("cleanName removes controls and bidi overrides and collapses spaces", () => {
  // Right-to-left override: "Alice" + RLO + "nimda" shows as "Aliceadmin".
  assert.equal(cleanName("Alice\u202enimda\u202c"), "Alicenimda");
  assert.equal(cleanName("\u2066Bob\u2069\u200f"), "Bob", "isolates and marks go");
  assert.equal(cleanName("a\u0000b\u0007c\u001b[31m\u007f\u0085"), "abc[31m", "C0, DEL, C1 go");
  assert.equal(cleanName("  Snow \n\t  Fox\u2028 "), "Snow Fox", "line breaks become one space");
  // Z + acute is one letter (Ź) in NFC; of the four marks piled on it, two stay.
  assert.equal(cleanName("Z\u0301\u0302\u0303\u0304\u0305oe"), "\u0179\u0302\u0303oe");
  assert.equal(cleanName("Snow\nFox"), "Snow Fox", "a line break is a space, not nothing");
  assert.equal(cleanName("\u200b\u200d\ufeff"), undefined, "nothing visible left");
  assert.equal(cleanName("x".repeat(40), 32), "x".repeat(32));
  assert.equal(cleanName("Zoë"), "Zoë", "ordinary letters stay");
  assert.equal(cleanName("שלום"), "שלום", "right-to-left letters stay");
});

Deno.test("distinctName gives a name already used a suffix", () => {
  assert.equal(distinctName("Frosty Owl", []), "Frosty Owl");
  assert.equal(distinctName("Frosty Owl", ["Frosty Owl"]), "Frosty Owl (2)");
  assert.equal(distinctName("frosty  OWL", ["Frosty Owl", "Frosty Owl (2)"]), "frosty  OWL (3)");
  assert.equal(
    distinctName("Ｆｒｏｓｔｙ Owl", ["Frosty Owl"]),
    "Ｆｒｏｓｔｙ Owl (2)",
    "full-width",
  );
  assert.equal(distinctName("Fróstÿ Owl", ["Frosty Owl"]), "Fróstÿ Owl (2)", "accents");
  assert.equal([...distinctName("x".repeat(32), ["x".repeat(32)], 32)].length, 32);
});

Deno.test("SceneNames counts each scene's name keys as people come, rename and go", () => {
  const names = new SceneNames<object, string>();
  const scene = {};
  const other = {};
  const taken = (person: string, name: string) => names.takenByOthers(scene, person, nameKey(name));
  names.set(scene, "ana", "Frosty Owl");
  assert.equal(taken("bo", "frosty  OWL"), true, "by key");
  assert.equal(taken("ana", "Frosty Owl"), false, "one's own name is not taken from oneself");
  assert.equal(names.takenByOthers(other, "bo", nameKey("Frosty Owl")), false, "per scene");
  names.set(scene, "bo", "Frosty Owl");
  assert.equal(taken("ana", "Frosty Owl"), true, "two hold the key: each sees the other");
  names.set(scene, "bo", "Sleepy Fox");
  assert.equal(taken("ana", "Frosty Owl"), false, "a rename gives the old name back");
  assert.equal(taken("ana", "Sleepy Fox"), true);
  assert.equal(
    distinctName("Sleepy Fox", (key) => names.takenByOthers(scene, "cy", key)),
    "Sleepy Fox (2)",
  );
  names.delete(scene, "bo");
  assert.equal(taken("ana", "Sleepy Fox"), false, "who left holds no name");
  names.delete(scene, "bo");
  names.set(scene, "cy", "Sleepy Fox");
  assert.equal(taken("ana", "Sleepy Fox"), true, "a double delete did not undercount");
});

Deno.test("claimDistinctName takes the first suffix the claim grants, by the same rule", async () => {
  const held = new Set([nameKey("Ana"), nameKey("Ana (3)")]);
  const asked: string[] = [];
  const claim = (candidate: string) => {
    asked.push(candidate);
    return Promise.resolve(!held.has(nameKey(candidate)));
  };
  assert.equal(await claimDistinctName("ana", ["ANA (2)"], claim), "ana (4)");
  assert.deepEqual(asked, ["ana", "ana (3)", "ana (4)"], "names known taken are not asked");
  assert.equal(
    await claimDistinctName("x".repeat(40), [], claim, 32),
    distinctName("x".repeat(40), [], 32),
    "one rule",
  );
  const never = () => Promise.resolve(false);
  assert.equal(
    await claimDistinctName("Ana", [], never, 32, undefined, 3),
    "Ana (4)",
    "never refused",
  );
  // Candidates someone here holds or is asking for are passed over, not asked, not counted: a
  // crowd saying hello at once with one name gets distinct names, never one unclaimed name.
  asked.length = 0;
  const busyHere = new Set(["Ana", "Ana (2)", "Ana (3)", "Ana (4)", "Ana (5)"]);
  assert.equal(
    await claimDistinctName("Ana", [], claim, 32, (c) => busyHere.has(c), 1),
    "Ana (6)",
  );
  assert.deepEqual(asked, ["Ana (6)"]);
  assert.equal(nameClaimKey("quiet-pine", "Ana"), nameClaimKey("quiet-pine", "ａｎａ"));
  assert.match(nameClaimKey("quiet-pine", "Ünï ☃"), /^quiet-pine\.[0-9a-f]+$/);
});

Deno.test("names in a scene are cleaned, distinct, and generated ones are marked", async () => {
  await withServer({}, async (server) => {
    const first = await TestClient.join(server.url, "names-1");
    const generated = first.welcome.you;
    assert.equal(generated.gen, true, "a made-up name is marked");
    const copycat = await TestClient.join(server.url, "names-1", { name: generated.name });
    assert.equal(copycat.welcome.you.name, `${generated.name} (2)`);
    assert.equal(copycat.welcome.you.gen, undefined, "a chosen name is not marked");
    const sneaky = await TestClient.join(server.url, "names-1", {
      name: `\u202e${generated.name.split("").reverse().join("")}\u202c\u0007`,
    });
    // deno-lint-ignore no-control-regex -- the test looks for control characters on purpose
    assert.doesNotMatch(sneaky.welcome.you.name, /[\u202a-\u202e\u0000-\u001f]/);
    const seen = first.client.messages.filter((m) => m.t === "presence");
    await first.client.waitForCount((m) => m.t === "presence", 2);
    const names = first.client.messages.flatMap((m) => m.t === "presence" ? [m.peer.name] : []);
    assert.ok(seen.length <= 2);
    assert.ok(names.includes(`${generated.name} (2)`), names.join(", "));
    // Once the copy leaves, its name is free again.
    await copycat.client.close();
    const again = await TestClient.join(server.url, "names-1", { name: "Someone Else" });
    assert.equal(again.welcome.you.name, "Someone Else");
    const other = await TestClient.join(server.url, "names-2", { name: generated.name });
    assert.equal(other.welcome.you.name, generated.name, "another scene's names do not count");
    for (const c of [first, sneaky, again, other]) await c.client.close();
  });
});

Deno.test("a rename is one presence rename to everyone, with the same id and both names", async () => {
  await withServer({}, async (server) => {
    const a = await TestClient.join(server.url, "rename-1", { name: "Alma" });
    const b = await TestClient.join(server.url, "rename-1", { name: "Bea" });
    const bId = b.welcome.you.id;
    const presence = (client: TestClient) =>
      client.messages.flatMap((m) => m.t === "presence" && m.peer.id === bId ? [m] : []);
    const renames = (client: TestClient) => presence(client).filter((m) => m.kind === "rename");
    const isRename = (m: ServerMessage) => m.t === "presence" && m.kind === "rename";

    b.client.send({ t: "rename", name: "  Cleo\u202e " });
    await a.client.waitFor(isRename);
    await b.client.waitFor(isRename);
    assert.deepEqual(renames(b.client), renames(a.client), "the renamer hears the same frame");
    assert.deepEqual(renames(a.client)[0], {
      t: "presence",
      kind: "rename",
      peer: { id: bId, name: "Cleo", color: b.welcome.you.color },
      was: "Bea",
    });

    // A taken name gets a suffix; no name means a made-up (marked) one again.
    b.client.send({ t: "rename", name: "alma" });
    await a.client.waitForCount(isRename, 2);
    b.client.send({ t: "rename" });
    await a.client.waitForCount(isRename, 3);
    const [, second, third] = renames(a.client);
    assert.deepEqual([second.was, second.peer.name], ["Cleo", "alma (2)"]);
    assert.equal(third.was, "alma (2)");
    assert.equal(third.peer.gen, true);
    assert.match(third.peer.name, /^[A-Z][a-z]+ [A-Z][a-z]+$/);
    assert.deepEqual(
      presence(a.client).map((m) => m.kind),
      ["join", "rename", "rename", "rename"],
      "no leave, no second join",
    );

    // Newcomers see the new name in their welcome.
    const c = await TestClient.join(server.url, "rename-1");
    assert.equal(c.welcome.peers.find((p) => p.id === bId)?.name, third.peer.name);
    assert.deepEqual(a.client.errors(), []);
    assert.deepEqual(b.client.errors(), []);
    for (const x of [a, b, c]) await x.client.close();
  });
});
