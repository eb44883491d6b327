import assert from "node:assert/strict";
import {
  BREAK_TABLE_WIDTH,
  BREAK_TEXELS,
  FireworkBreakTable,
  MAX_BREAKS_PER_GROUP,
  ROWS_PER_LINE,
  type TableRenderer,
} from "../../client/render/firework_break_table.ts";

/** [from, to) as an array. */
function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, k) => from + k);
}

/** The rows of `table` its next upload sends. */
function rowsToUpload(table: FireworkBreakTable): Set<number> {
  const rows = new Set<number>();
  const pending = table.pendingRuns;
  const runs: [number, number][] = pending === "all"
    ? [[0, (table.lines * ROWS_PER_LINE) / MAX_BREAKS_PER_GROUP]]
    : pending;
  for (const [group, count] of runs) {
    for (let r = group * MAX_BREAKS_PER_GROUP; r < (group + count) * MAX_BREAKS_PER_GROUP; r++) {
      rows.add(r);
    }
  }
  return rows;
}

/**
 * A stand-in for three's renderer and its WebGL2 context that records what `upload` sends: each
 * texture made and sent whole (`texImage2D`: its height), and each `texSubImage2D` as
 * [x, line, width, first float of `data` read], checking that the source offset is the texels'.
 */
function recordingRenderer() {
  const sent = { whole: [] as number[], ranges: [] as [number, number, number, number][] };
  const canvas = new EventTarget();
  const made: object[] = [];
  const deleted: object[] = [];
  let bound: object | null = null;
  const gl = {
    TEXTURE_2D: 1,
    RGBA32F: 2,
    RGBA: 3,
    FLOAT: 4,
    NEAREST: 5,
    CLAMP_TO_EDGE: 6,
    createTexture: () => {
      const texture = { n: made.length };
      made.push(texture);
      return texture;
    },
    deleteTexture: (texture: object) => deleted.push(texture),
    texParameteri: () => {},
    texImage2D: (
      _t: number,
      _l: number,
      _f: number,
      width: number,
      height: number,
      ..._rest: unknown[]
    ) => {
      assert.equal(width, BREAK_TABLE_WIDTH);
      assert.ok(bound !== null);
      sent.whole.push(height);
    },
    texSubImage2D: (
      _t: number,
      _l: number,
      x: number,
      y: number,
      width: number,
      height: number,
      _f: number,
      _type: number,
      _data: Float32Array,
      offset: number,
    ) => {
      assert.equal(height, 1, "one line a call");
      assert.ok(x + width <= BREAK_TABLE_WIDTH, "within its line");
      assert.equal(offset, (y * BREAK_TABLE_WIDTH + x) * 4, "the texels' own floats");
      assert.equal(bound, made[made.length - 1], "into the table's texture");
      sent.ranges.push([x, y, width, offset]);
    },
  };
  const state = {
    bindTexture: (_type: number, texture: object) => {
      bound = texture;
    },
    pixelStorei: () => {},
  };
  const renderer = { domElement: canvas, getContext: () => gl, state };
  return { sent, canvas, made, deleted, renderer: renderer as unknown as TableRenderer };
}

/** Texels of a group (its four rows). */
const GROUP = MAX_BREAKS_PER_GROUP * BREAK_TEXELS;

Deno.test("firework break table uploads a new texture whole, then each run of written groups in a line", () => {
  const table = new FireworkBreakTable(64);
  const { sent, renderer, made } = recordingRenderer();
  assert.equal(table.pendingRuns, "all");
  table.upload(renderer);
  assert.deepEqual(sent.whole, [table.lines]);
  assert.equal(table.texture.sourceTexture, made[0], "three samples the table's texture");
  assert.deepEqual(table.pendingRuns, []);
  // Twenty neighbouring groups (launches of a few frames): two lines, 16 groups a line.
  for (let g = 0; g < 20; g++) table.touch(table.allocate() * MAX_BREAKS_PER_GROUP, 4);
  table.touch(3 * ROWS_PER_LINE + 5, 1); // and one row of a group further on (a compaction's)
  assert.deepEqual(table.pendingRuns, [[0, 16], [16, 4], [49, 1]]);
  table.upload(renderer);
  assert.deepEqual(sent.ranges.map(([x, y, width]) => [x, y, width]), [
    [0, 0, 16 * GROUP],
    [0, 1, 4 * GROUP],
    [GROUP, 3, GROUP],
  ]);
  assert.equal(sent.whole.length, 1);
  assert.deepEqual(table.pendingRuns, []);
  table.upload(renderer);
  assert.equal(sent.ranges.length, 3, "nothing written, nothing sent");
  // One launch of a frame: its group alone (512 bytes), not its whole line.
  table.touch(table.allocate() * MAX_BREAKS_PER_GROUP, 4);
  table.upload(renderer);
  assert.deepEqual(sent.ranges[3].slice(0, 3), [4 * GROUP, 1, GROUP]);
  table.dispose();
});

Deno.test("firework break table uploads whole again after the renderer's context was restored", () => {
  const table = new FireworkBreakTable(64);
  const { sent, canvas, renderer, made, deleted } = recordingRenderer();
  table.upload(renderer);
  table.touch(table.allocate() * MAX_BREAKS_PER_GROUP, 4);
  canvas.dispatchEvent(new Event("webglcontextrestored"));
  assert.equal(table.pendingRuns, "all");
  table.upload(renderer);
  assert.equal(sent.whole.length, 2);
  assert.deepEqual(sent.ranges, []);
  assert.equal(made.length, 2, "a new texture in the new context");
  assert.equal(table.texture.sourceTexture, made[1]);
  assert.deepEqual(deleted, [], "the lost context's texture is not deleted in the new one");
  table.dispose();
  assert.deepEqual(deleted, [made[1]], "dispose deletes the texture");
  canvas.dispatchEvent(new Event("webglcontextrestored"));
  assert.equal(sent.whole.length, 2, "a disposed table listens no more");
});

Deno.test("firework break table hands out neighbouring groups round the table and uploads only touched rows", () => {
  const table = new FireworkBreakTable(32);
  const first = [0, 1, 2, 3].map(() => table.allocate());
  assert.deepEqual(first, [0, 1, 2, 3]);
  table.upload(recordingRenderer().renderer);
  table.touch(first[1] * MAX_BREAKS_PER_GROUP, 3);
  // Only the touched group's rows, not its line.
  assert.deepEqual(
    [...rowsToUpload(table)].sort((x, y) => x - y),
    range(first[1] * MAX_BREAKS_PER_GROUP, (first[1] + 1) * MAX_BREAKS_PER_GROUP),
  );
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
  const { sent, renderer, made, deleted } = recordingRenderer();
  table.upload(renderer);
  const group = table.allocate(); // the 13th: more than 3/4 in use, the table doubles
  assert.equal(grown, 1);
  assert.equal(table.lines * BREAK_TABLE_WIDTH, 32 * 4 * BREAK_TEXELS);
  assert.equal(group, 16, "the search goes on in the new half");
  for (let g = 0; g < 12; g++) {
    assert.equal(table.data[table.offset(g * MAX_BREAKS_PER_GROUP)], g + 1, `group ${g} kept`);
  }
  // Rows written before the growth are not touched again, yet the new texture must carry them.
  const rows = rowsToUpload(table);
  for (let g = 0; g < 12; g++) {
    assert.ok(rows.has(g * MAX_BREAKS_PER_GROUP), `group ${g}'s first row uploaded`);
  }
  table.upload(renderer);
  assert.deepEqual(sent.whole, [1, 2], "the grown texture made and sent whole");
  assert.deepEqual(deleted, [made[0]], "the old texture deleted");
  assert.equal(table.texture.sourceTexture, made[1]);
  table.dispose();
});
