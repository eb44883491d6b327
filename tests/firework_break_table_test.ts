import assert from "node:assert/strict";
import {
  BREAK_TABLE_WIDTH,
  BREAK_TEXELS,
  FireworkBreakTable,
  MAX_BREAKS_PER_GROUP,
} from "../client/render/firework_break_table.ts";

/** The rows of `table` its texture's pending update ranges cover. */
function rowsToUpload(table: FireworkBreakTable): Set<number> {
  const rows = new Set<number>();
  const floats = BREAK_TEXELS * 4;
  for (const { start, count } of table.texture.updateRanges) {
    // A range is uploaded as one texture line's run of texels: it must not cross a line.
    const line = Math.floor(start / (BREAK_TABLE_WIDTH * 4));
    assert.equal(Math.floor((start + count - 1) / (BREAK_TABLE_WIDTH * 4)), line);
    for (let f = start; f < start + count; f += floats) rows.add(f / floats);
  }
  return rows;
}

Deno.test("firework break table reuses freed groups and uploads only touched rows", () => {
  const table = new FireworkBreakTable(32);
  const a = table.allocate(), b = table.allocate();
  assert.deepEqual([a, b], [0, 1]);
  table.touch(b * MAX_BREAKS_PER_GROUP, 3);
  assert.deepEqual([...rowsToUpload(table)].sort((x, y) => x - y), [4, 5, 6]);
  table.free(a);
  assert.equal(table.allocate(), a, "a freed group is taken again first");
  assert.equal(table.used, 2);
  table.dispose();
});

Deno.test("firework break table growth keeps its rows and uploads all of them to the new texture", () => {
  const table = new FireworkBreakTable(16);
  let grown = 0;
  table.onGrow = () => grown++;
  for (let g = 0; g < 16; g++) {
    const group = table.allocate();
    table.data[table.offset(group * MAX_BREAKS_PER_GROUP)] = group + 1;
  }
  const before = table.texture;
  const group = table.allocate(); // the 17th: the table doubles
  assert.equal(grown, 1);
  assert.notEqual(table.texture, before);
  assert.equal(table.texture.image.height * BREAK_TABLE_WIDTH, 32 * 4 * BREAK_TEXELS);
  for (let g = 0; g < 16; g++) {
    assert.equal(table.data[table.offset(g * MAX_BREAKS_PER_GROUP)], g + 1, `group ${g} kept`);
  }
  // Rows written before the growth are not touched again, yet the new texture must carry them.
  const rows = rowsToUpload(table);
  for (let g = 0; g < group; g++) {
    assert.ok(rows.has(g * MAX_BREAKS_PER_GROUP), `group ${g}'s first row uploaded`);
  }
  table.dispose();
});
