import assert from "node:assert/strict";
import { Hasher } from "../../shared/hash.ts";
import { type Block, ParticlePool } from "../../shared/particle_pool.ts";

const block = (seq: number, size: number, endTick: number): Block => ({
  seq,
  tick: seq,
  start: 0,
  size,
  endTick,
});

/** Marks every slot of `b` with its seq so moves are visible. */
function stamp(pool: ParticlePool, b: Block): void {
  for (let i = b.start; i < b.start + b.size; i++) {
    pool.position[i * 3] = b.seq;
    pool.life[i] = b.seq * 10 + (i - b.start);
  }
}

Deno.test("pool blocks stay dense and in order when an earlier block expires", () => {
  const pool = new ParticlePool(100);
  const a = block(1, 10, 5), b = block(2, 20, 50), c = block(3, 5, 50);
  for (const x of [a, b, c]) {
    pool.add(x);
    stamp(pool, x);
  }
  assert.equal(pool.count, 35);
  pool.expire(5);
  assert.equal(pool.count, 25);
  assert.deepEqual(pool.blocks.map((x) => [x.seq, x.start]), [[2, 0], [3, 20]]);
  for (let i = 0; i < 20; i++) assert.equal(pool.life[i], 20 + i);
  for (let i = 0; i < 5; i++) assert.equal(pool.life[20 + i], 30 + i);
  assert.equal(pool.position[20 * 3], 3);
});

Deno.test("pool zeroes a new block even where an old one lived", () => {
  const pool = new ParticlePool(100);
  const a = block(1, 10, 5);
  pool.add(a);
  stamp(pool, a);
  pool.expire(5);
  const b = block(2, 10, 50);
  pool.add(b);
  for (let i = 0; i < 10; i++) assert.equal(pool.life[i], 0);
  assert.equal(pool.position[0], 0);
});

Deno.test("pool grows past its first allocation keeping its contents, up to capacity", () => {
  const pool = new ParticlePool(50_000);
  assert.equal(pool.allocated, 0);
  const a = block(1, 5000, 99);
  pool.add(a);
  stamp(pool, a);
  const before = pool.life;
  const b = block(2, 20_000, 99);
  pool.add(b);
  assert.notEqual(pool.life, before, "new arrays after growth");
  for (let i = 0; i < 5000; i++) assert.equal(pool.life[i], 10 + i);
  assert.equal(pool.allocated >= 25_000, true);
  assert.throws(() => pool.add(block(3, 30_000, 99)), RangeError);
});

Deno.test("pool block hash depends on the block, not on where it sits", () => {
  const hashOf = (pool: ParticlePool, b: Block) => {
    const h = new Hasher();
    pool.hashBlock(h, b, 0, b.size);
    return h.digest();
  };
  const p1 = new ParticlePool(100), p2 = new ParticlePool(100);
  const x = block(7, 10, 99), filler = block(6, 30, 99);
  p1.add(x);
  stamp(p1, x);
  p2.add(filler);
  const y = block(7, 10, 99);
  p2.add(y);
  stamp(p2, y);
  assert.equal(hashOf(p1, x), hashOf(p2, y));
  p2.life[y.start] += 1;
  assert.notEqual(hashOf(p1, x), hashOf(p2, y));
});

Deno.test("pool with slack puts a block in the next gap that holds it, low in the buffer", () => {
  // Capacity 100, slack 1.5: an arena of 150 slots. A block goes into the next gap from the last
  // block's end, wrapping around, below a soft limit of (used + size) × (1 + slack) / 2 first.
  const pool = new ParticlePool(100, 1.5);
  pool.reserve(150);
  const version = pool.layoutVersion;
  const a = block(1, 40, 10), b = block(2, 30, 30), c = block(3, 20, 30);
  for (const x of [a, b, c]) pool.add(x);
  assert.deepEqual([a.start, b.start, c.start], [0, 40, 70]);
  pool.expire(10); // a ends: a 40-slot gap at 0
  const d = block(4, 30, 50);
  pool.add(d); // 90..100 is all there is below the soft limit (100): wraps around to 0
  assert.equal(d.start, 0);
  const e = block(5, 20, 50);
  pool.add(e); // on from d: 30..40 is too small, 90..125 holds it
  assert.equal(e.start, 90);
  pool.expire(30); // b and c end: 30..90 is free
  const g = block(7, 40, 60);
  pool.add(g); // nothing from 110 to the soft limit (113): wraps around to 30
  assert.equal(g.start, 30);
  stamp(pool, g);
  assert.equal(pool.layoutVersion, version, "nothing moved");
  assert.deepEqual(pool.blocks.map((x) => x.seq), [4, 5, 7], "application order");
  assert.equal(pool.count, 110);
  assert.equal(pool.life[30], 70);
});

Deno.test("pool with slack compacts, in address order, when no gap holds a block", () => {
  // Capacity 100, slack 1.2: an arena of 120 slots.
  const pool = new ParticlePool(100, 1.2);
  pool.reserve(120);
  const blocks = [
    block(1, 30, 10),
    block(2, 10, 90),
    block(3, 30, 10),
    block(4, 10, 90),
    block(5, 20, 90),
  ];
  for (const x of blocks) {
    pool.add(x);
    stamp(pool, x);
  }
  pool.expire(10); // gaps of 30 at 0 and 40, 20 free on top
  const big = block(6, 40, 90);
  pool.add(big); // 80 of 100 used with it, but no gap holds 40
  assert.deepEqual(pool.moves, [30, 0, 10, 70, 10, 10, 80, 20, 20]);
  assert.deepEqual(
    pool.blocks.map((x) => [x.seq, x.start]),
    [[2, 0], [4, 10], [5, 20], [6, 40]],
  );
  for (let i = 0; i < 10; i++) assert.equal(pool.life[i], 20 + i, "block 2 moved whole");
  for (let i = 0; i < 10; i++) assert.equal(pool.life[10 + i], 40 + i, "block 4 moved whole");
  for (let i = 0; i < 20; i++) assert.equal(pool.life[20 + i], 50 + i, "block 5 moved whole");
  assert.equal(pool.count, 80);
});
