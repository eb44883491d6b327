import assert from "node:assert/strict";
import { FIREWORK_KINDS } from "../../shared/firework_kinds.ts";
import { Fireworks } from "../../shared/fireworks/mod.ts";
import { Hasher } from "../../shared/hash.ts";

const SEED = 0x5eed18;

/** Launches of every kind and break count, a few ticks apart. */
function launchAt(fw: Fireworks, tick: number): void {
  if (tick % 7 !== 0 || tick > 600) return;
  const seq = tick / 7 + 1;
  const kind = FIREWORK_KINDS[seq % FIREWORK_KINDS.length];
  fw.launch(
    seq,
    tick,
    { x: (seq % 9) * 8 - 36, z: 20 - (seq % 5) * 10, kind, breaks: 1 + seq % 3 },
    "auto",
  );
}

Deno.test("closed-form fireworks equal stepped ones slot for slot, across compactions", () => {
  // A tight arena (slack 1.1) so the closed-form pools compact several times. `closed` is never
  // read (its hash evaluates each launch into scratch; the pool keeps only births); `read` has
  // its views read at every comparison (its pool keeps the evaluated state from then on).
  const stepped = new Fireworks(SEED, 200_000);
  const closed = new Fireworks(SEED, 200_000, { closedForm: true, slack: 1.1 });
  const read = new Fireworks(SEED, 200_000, { closedForm: true, slack: 1.1 });
  const compactions = { seen: 0, version: closed.pool.layoutVersion };
  const hash = (fw: Fireworks) => {
    const h = new Hasher();
    fw.hashInto(h);
    return h.digest();
  };
  let compared = 0;
  for (let tick = 0; tick < 1000; tick++) {
    for (const fw of [stepped, closed, read]) {
      launchAt(fw, tick);
      fw.step(tick);
    }
    if (closed.pool.layoutVersion !== compactions.version) {
      compactions.seen++;
      compactions.version = closed.pool.layoutVersion;
    }
    assert.equal(closed.live(), stepped.live(), `live at ${tick + 1}`);
    assert.equal(read.live(), stepped.live(), `live at ${tick + 1}`);
    assert.equal(closed.used(), stepped.used());
    if (tick % 29 !== 0) continue;
    assert.equal(hash(closed), hash(stepped), `hash at ${tick + 1}`);
    const a = stepped.pool, b = read.pool;
    // Reading a view evaluates the closed form into the pool (kept from the first read on).
    const { position, previous, color } = read.settledView;
    for (let k = 0; k < a.blocks.length; k++) {
      const x = a.blocks[k], y = b.blocks[k];
      assert.equal(y.seq, x.seq);
      assert.equal(y.lo, x.lo);
      assert.equal(y.hi, x.hi);
      for (let i = x.lo; i < x.hi; i++) {
        const p = x.start + i, q = y.start + i;
        for (let c = 0; c < 3; c++) {
          assert.equal(position[q * 3 + c], a.position[p * 3 + c]);
          assert.equal(previous[q * 3 + c], a.previous[p * 3 + c]);
        }
        for (let c = 0; c < 4; c++) assert.equal(color[q * 4 + c], a.color[p * 4 + c]);
        assert.equal(b.life[q], a.life[p]);
        compared++;
      }
    }
    assert.equal(hash(read), hash(stepped), `hash at ${tick + 1} (state kept)`);
  }
  assert.ok(compactions.seen >= 2, `the arena compacted (${compactions.seen} times)`);
  assert.ok(compared > 30_000, `${compared} slots compared`);
  assert.equal(closed.live(), 0);
  // Never read, the closed-form pool stored births only: 44 bytes a slot, half of stepping's 88.
  assert.equal(closed.pool.hasState, false);
  assert.equal(read.pool.hasState, true);
});

Deno.test("closed-form fireworks step without placing or moving sparks until read", () => {
  const fw = new Fireworks(SEED, 50_000, { closedForm: true, windowBirthsAbove: 0 });
  fw.launch(1, 0, { x: 0, z: 0, y: 40, kind: "peony" }, "auto");
  for (let tick = 0; tick < 200; tick++) fw.step(tick);
  const block = fw.pool.blocks[0];
  const slot = block.start + block.plan.sparkStart[0];
  // The break burst (its sparks counted born, their slots marked for a renderer), but no step
  // placed a spark: its birth state is written when first read.
  assert.equal(block.bursts, 1);
  assert.equal(block.burstsWritten, 0);
  assert.ok(block.births.length > 0, "the burst's slots are marked born");
  // No slot of the pool holds a birth: they are written into a one-launch window when read.
  assert.equal(fw.pool.windowed, true);
  assert.equal(fw.pool.maxLife.length, 0, "nothing read yet: not even the window");
  // A renderer reading the births by slot makes the pool keep them, and places them (origin
  // and velocity, not a position).
  fw.placeBursts(block);
  assert.equal(fw.pool.windowed, false);
  assert.equal(block.burstsWritten, 1);
  assert.notEqual(fw.pool.origin[slot * 3 + 1], 0);
  assert.ok(fw.pool.maxLife[slot] > 0);
  assert.equal(fw.pool.hasState, false);
  assert.equal(fw.pool.position.length, 0);
  const y = fw.settledView.position[slot * 3 + 1];
  assert.equal(fw.pool.hasState, true, "reading the settled view keeps the state from now on");
  assert.notEqual(y, 0, "reading the settled view evaluates the closed form");
  assert.notEqual(y, fw.pool.origin[slot * 3 + 1]);
});

Deno.test("closed-form fireworks hash the same whether their bursts are placed every tick or at the hash", () => {
  // A renderer places each break's sparks the tick it bursts; a sky nobody draws places them
  // only when a checkpoint reads them (after later breaks, splits and compactions).
  const eager = new Fireworks(SEED, 200_000, { closedForm: true, windowBirthsAbove: 0 });
  const lazy = new Fireworks(SEED, 200_000, { closedForm: true, windowBirthsAbove: 0 });
  let checked = 0, placedByHash = 0;
  for (let tick = 0; tick < 700; tick++) {
    launchAt(eager, tick);
    launchAt(lazy, tick);
    eager.step(tick);
    lazy.step(tick);
    for (const block of eager.pool.blocks) eager.placeBursts(block);
    if ((tick + 1) % 61 !== 0) continue;
    if (lazy.pool.blocks.some((block) => block.burstsWritten < block.bursts)) placedByHash++;
    const a = new Hasher(), b = new Hasher();
    eager.hashInto(a);
    lazy.hashInto(b);
    assert.equal(b.digest(), a.digest(), `hash at ${tick + 1}`);
    checked++;
  }
  assert.equal(checked, 11);
  assert.ok(placedByHash >= 8, `${placedByHash} hashes placed breaks first`);
  // The lazy sky kept no birth per slot (each launch's written into a one-launch window when
  // hashed); the eager one, read by slot, keeps 44 bytes a slot.
  assert.equal(lazy.pool.windowed, true);
  assert.equal(eager.pool.windowed, false);
  assert.equal(lazy.pool.allocated, eager.pool.allocated);
  assert.ok(
    lazy.pool.bytes * 10 < eager.pool.bytes,
    `births: ${lazy.pool.bytes} bytes windowed, ${eager.pool.bytes} kept`,
  );
});

Deno.test("closed-form jump leaves each launch's live range where stepping and a hash leave it", () => {
  // A hash raises each launch's first live slot (`lo`) from the evaluated lives; a jump marks
  // ember waves without writing them and leaves `lo` to the joiner's first read. After it they
  // must agree, or a late joiner visits (and hashes) different ranges from the veteran's.
  const stepped = new Fireworks(SEED, 200_000, { closedForm: true });
  let risen = 0;
  for (let tick = 0; tick < 700; tick++) {
    launchAt(stepped, tick);
    stepped.step(tick);
    if ((tick + 1) % 97 !== 0) continue;
    stepped.hashInto(new Hasher());
    // Every launch so far at once (the ended ones dropped by the jump): room for all of them.
    const jumped = new Fireworks(SEED, 2_000_000, { closedForm: true });
    for (let t = 0; t <= tick; t++) launchAt(jumped, t);
    jumped.jumpTo(tick + 1);
    // A jump writes no birth and leaves each range from its shell; the first read raises it.
    jumped.hashInto(new Hasher());
    const a = stepped.pool.blocks, b = jumped.pool.blocks;
    assert.equal(b.length, a.length, `launches at ${tick + 1}`);
    risen += a.filter((block) => block.lo > 0).length;
    for (let k = 0; k < a.length; k++) {
      assert.equal(b[k].seq, a[k].seq);
      assert.equal(b[k].lo, a[k].lo, `lo of launch ${a[k].seq} at ${tick + 1}`);
      assert.equal(b[k].hi, a[k].hi, `hi of launch ${a[k].seq} at ${tick + 1}`);
      assert.deepEqual(b[k].emberWaves, a[k].emberWaves);
    }
  }
  assert.ok(risen > 20, `launches whose range had risen: ${risen}`);
});
