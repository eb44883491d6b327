/** The audience on its own: fan-out, presence within its limit, backpressure drops. */
import assert from "node:assert/strict";
import type { PeerInfo } from "../../shared/protocol.ts";
import { Audience, type Listener } from "../../server/scene/audience.ts";
import { SharedFrame } from "../../server/scene/shared_frame.ts";

class FakeListener implements Listener {
  readonly sent: string[] = [];
  /** Every frame as passed in: a broadcast's `SharedFrame` objects, or strings. */
  readonly frames: (string | SharedFrame)[] = [];
  audienceIndex = -1;
  gone = false;
  /** Set to make the next checked send drop this listener (a full socket). */
  slow = false;
  constructor(readonly id: string) {}
  send(frame: string | SharedFrame): void {
    if (this.gone) return;
    this.frames.push(frame);
    this.sent.push(typeof frame === "string" ? frame : frame.text);
  }
  sendChecked(frame: string | SharedFrame): void {
    if (this.slow) this.gone = true;
    else this.send(frame);
  }
  info(): PeerInfo {
    return { id: this.id, name: this.id, color: "#fff" };
  }
}

function kinds(listener: FakeListener): string[] {
  return listener.sent.map((text) => {
    const m = JSON.parse(text);
    return m.t === "presence" ? `${m.kind} ${m.peer.id}` : m.t;
  });
}

Deno.test("audience fans out to everyone but the sender and survives removals", () => {
  const audience = new Audience<FakeListener>(8);
  const [a, b, c] = ["a", "b", "c"].map((id) => new FakeListener(id));
  for (const l of [a, b, c]) audience.add(l);
  audience.add(b);
  assert.equal(audience.size, 3, "adding twice does not duplicate");
  audience.broadcast('{"t":"event"}', b);
  assert.deepEqual([a, b, c].map((l) => l.sent.length), [1, 0, 1]);
  audience.remove(a);
  assert.equal(a.audienceIndex, -1);
  audience.broadcast('{"t":"event"}');
  assert.deepEqual([a, b, c].map((l) => l.sent.length), [1, 1, 2]);
  assert.deepEqual(audience.members().map((l) => l.id).sort(), ["b", "c"]);
});

Deno.test("audience announces people up to its presence limit", () => {
  const audience = new Audience<FakeListener>(2);
  const people = ["a", "b", "c"].map((id) => new FakeListener(id));
  const announced = people.map((l) => {
    const yes = audience.announce(l);
    audience.add(l);
    if (yes) audience.presenceJoin(l);
    return yes;
  });
  assert.deepEqual(announced, [true, true, false]);
  assert.deepEqual(audience.announced().map((p) => p.id), ["a", "b"]);
  assert.deepEqual(kinds(people[0]), ["join b"]);
  audience.remove(people[2]);
  audience.remove(people[1]);
  assert.deepEqual(kinds(people[0]), ["join b", "leave b"], "only announced people leave aloud");
});

Deno.test("audience heartbeats check backpressure every few beats and report drops", () => {
  const audience = new Audience<FakeListener>(8);
  const [fast, slow] = [new FakeListener("fast"), new FakeListener("slow")];
  audience.add(fast);
  audience.add(slow);
  slow.slow = true;
  const dropped: string[] = [];
  const onDrop = (l: FakeListener) => {
    dropped.push(l.id);
    audience.remove(l);
  };
  audience.heartbeat('{"t":"tick","n":1}', onDrop);
  assert.deepEqual(dropped, ["slow"], "the first beat checks");
  for (let n = 2; n <= 4; n++) audience.heartbeat(`{"t":"tick","n":${n}}`, onDrop);
  assert.equal(fast.sent.length, 4);
  assert.equal(audience.size, 1);
});

Deno.test("audience passes every listener the same shared frame for a broadcast and a heartbeat", () => {
  const audience = new Audience<FakeListener>(8);
  const listeners = ["a", "b", "c", "d", "e"].map((id) => new FakeListener(id));
  for (const l of listeners) audience.add(l);
  audience.broadcast('{"t":"event","seq":1}', listeners[1]);
  // Two beats: the first checks every socket's backlog (sendChecked), the second does not.
  audience.heartbeat('{"t":"tick","n":60}', () => {});
  audience.heartbeat('{"t":"tick","n":120}', () => {});
  const shared = (l: FakeListener) => l.frames.map((f) => f instanceof SharedFrame ? f : null);
  const [event, beat1, beat2] = shared(listeners[0]);
  assert.ok(event && beat1 && beat2, "broadcasts come as shared frames");
  assert.deepEqual(
    [event.text, beat1.text, beat2.text],
    ['{"t":"event","seq":1}', '{"t":"tick","n":60}', '{"t":"tick","n":120}'],
  );
  for (const l of listeners) {
    assert.deepEqual(
      shared(l),
      l.id === "b" ? [beat1, beat2] : [event, beat1, beat2],
      `${l.id} got the very same frame objects, each once`,
    );
  }
});
