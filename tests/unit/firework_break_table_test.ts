import assert from "node:assert/strict";
import type * as THREE from "three";
import {
  BREAK_TABLE_WIDTH,
  BREAK_TEXELS,
  FireworkBreakTable,
  MAX_BREAKS_PER_GROUP,
  ROWS_PER_LINE,
} from "../../client/render/firework_break_table.ts";

/** [from, to) as an array. */
function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}

/** The rows of `table` its next upload sends (whole texture lines). */
function rowsToUpload(table: FireworkBreakTable): Set<number> {
  const rows = new Set<number>();
  const pending = table.pendingLines;
  const lines = pending === "all"
    ? Array.from({ length: table.texture.image.height }, (_, line) => line)
    : pending;
  for (const line of lines) {
    for (let r = 0; r < ROWS_PER_LINE; r++) rows.add(line * ROWS_PER_LINE + r);
  }
  return rows;
}

/**
 * A stand-in for three's renderer that records what `upload` asks three to send: each
 * `initTexture` of a texture marked for update, as "whole" (no update ranges) or its update
 * ranges as [first line, lines] (three sends a range a line), and clears the ranges as three does.
 */
function recordingRenderer() {
  const sent = { whole: 0, ranges: [] as [number, number][] };
  const floatsPerLine = BREAK_TABLE_WIDTH * 4;
  const canvas = new EventTarget();
  const versions = new WeakMap<THREE.DataTexture, number>();
  const renderer = {
    domElement: canvas,
    initTexture: (texture: THREE.DataTexture) => {
      assert.ok(texture.version > (versions.get(texture) ?? 0), "marked for update");
      versions.set(texture, texture.version);
      if (texture.updateRanges.length === 0) sent.whole++;
      for (const { start, count } of texture.updateRanges) {
        assert.equal(start % floatsPerLine, 0, "a range starts a line");
        assert.equal(count % floatsPerLine, 0, "a range is whole lines");
        sent.ranges.push([start / floatsPerLine, count / floatsPerLine]);
      }
      texture.clearUpdateRanges();
    },
  };
  return { sent, canvas, renderer: renderer as unknown as THREE.WebGLRenderer };
}

Deno.test("firework break table uploads a new texture whole, then each written line as an update range", () => {
  const table = new FireworkBreakTable(64);
  const { sent, renderer } = recordingRenderer();
  assert.equal(table.pendingLines, "all");
  table.upload(renderer);
  assert.equal(sent.whole, 1);
  assert.deepEqual(table.pendingLines, []);
  // Twenty neighbouring groups (launches of a few frames): two lines.
  for (let g = 0; g < 20; g++) table.touch(table.allocate() * MAX_BREAKS_PER_GROUP, 4);
  table.touch(3 * ROWS_PER_LINE, 1); // and a compaction's line further on
  assert.deepEqual(table.pendingLines, [0, 1, 3]);
  table.upload(renderer);
  assert.deepEqual(sent.ranges, [[0, 1], [1, 1], [3, 1]]);
  assert.equal(sent.whole, 1);
  assert.deepEqual(table.pendingLines, []);
  table.upload(renderer);
  assert.equal(sent.ranges.length, 3, "nothing written, nothing sent");
  table.dispose();
});

Deno.test("firework break table uploads whole again after the renderer's context was restored", () => {
  const table = new FireworkBreakTable(64);
  const { sent, canvas, renderer } = recordingRenderer();
  table.upload(renderer);
  table.touch(table.allocate() * MAX_BREAKS_PER_GROUP, 4);
  canvas.dispatchEvent(new Event("webglcontextrestored"));
  assert.equal(table.pendingLines, "all");
  table.upload(renderer);
  assert.equal(sent.whole, 2);
  assert.deepEqual(sent.ranges, []);
  table.dispose();
  canvas.dispatchEvent(new Event("webglcontextrestored"));
  assert.equal(sent.whole, 2, "a disposed table listens no more");
});

Deno.test("firework break table hands out neighbouring groups round the table and uploads only touched rows", () => {
  const table = new FireworkBreakTable(32);
  const first = [0, 1, 2, 3].map(() => table.allocate());
  assert.deepEqual(first, [0, 1, 2, 3]);
  table.upload(recordingRenderer().renderer);
  table.touch(first[1] * MAX_BREAKS_PER_GROUP, 3);
  assert.deepEqual([...rowsToUpload(table)].sort((x, y) => x - y), range(0, ROWS_PER_LINE));
  // A freed group is not taken again before the search comes round to it: a frame's launches
  // take neighbouring groups, whose rows go up as one run of lines.
  table.free(first[1]);
  assert.equal(table.allocate(), 4);
  for (let g = 5; g < 24; g++) assert.equal(table.allocate(), g);
  assert.equal(table.used, 23);
  for (let g = 0; g < 16; g++) if (g !== 1) table.free(g);
  assert.equal(table.used, 8);
  for (let g = 24; g < 32; g++) assert.equal(table.allocate(), g);
  // Round the table: the search wraps to the first free groups.
  assert.equal(table.allocate(), 0);
  assert.equal(table.allocate(), 1);
  assert.equal(table.used, 18);
  assert.throws(() => table.free(2), "a group not in use");
  table.dispose();
});

Deno.test("firework break table growth keeps its rows and uploads all of them to the new texture", () => {
  const table = new FireworkBreakTable(16);
  let grown = 0;
  table.onGrow = () => grown++;
  for (let g = 0; g < 12; g++) {
    const group = table.allocate();
    table.data[table.offset(group * MAX_BREAKS_PER_GROUP)] = group + 1;
  }
  assert.equal(grown, 0);
  const before = table.texture;
  const group = table.allocate(); // the 13th: more than 3/4 in use, the table doubles
  assert.equal(grown, 1);
  assert.notEqual(table.texture, before);
  assert.equal(table.texture.image.height * BREAK_TABLE_WIDTH, 32 * 4 * BREAK_TEXELS);
  assert.equal(group, 16, "the search goes on in the new half");
  for (let g = 0; g < 12; g++) {
    assert.equal(table.data[table.offset(g * MAX_BREAKS_PER_GROUP)], g + 1, `group ${g} kept`);
  }
  // Rows written before the growth are not touched again, yet the new texture must carry them.
  const rows = rowsToUpload(table);
  for (let g = 0; g < 12; g++) {
    assert.ok(rows.has(g * MAX_BREAKS_PER_GROUP), `group ${g}'s first row uploaded`);
  }
  table.dispose();
});
