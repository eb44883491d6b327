/**
 * Prints the mean drawn colour of a peony's burst sparks at 0.05, 0.15, 0.3, 0.6 and 1.0 of their
 * mean life, per theme (testing/firework_colour_path.ts: shared/'s colours times the shader's
 * young-burst light): `deno run -A scripts/firework_colour_path.ts [--children]`.
 */
import { THEMES } from "../shared/types.ts";
import { peonyColourPath } from "../testing/firework_colour_path.ts";

const children = Deno.args.includes("--children");
for (const theme of THEMES) {
  console.log(`${theme}${children ? " (burst sparks and their children)" : " (burst sparks)"}`);
  for (const p of peonyColourPath(theme, undefined, 4, children)) {
    const [r, g, b] = p.rgb;
    console.log(
      `  ${p.share.toFixed(2)} of life (${p.ticks} ticks): rgb (${r.toFixed(2)}, ${
        g.toFixed(2)
      }, ` +
        `${b.toFixed(2)}), g/r ${(g / r).toFixed(2)}, b/r ${(b / r).toFixed(2)}, ` +
        `light ${p.light.toFixed(2)}, ${p.sparks.toFixed(0)} sparks`,
    );
  }
}
