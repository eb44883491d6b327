import assert from "node:assert/strict";
import {
  acos,
  asin,
  atan,
  atan2,
  cos,
  cosSinArray,
  exp,
  HALF_PI,
  log,
  PI,
  pow,
  pow2i,
  radians,
  sin,
  TAU,
} from "../../shared/dmath.ts";
import { Rng } from "../../shared/prng.ts";

/** 2⁻⁵¹: two units in the last place of numbers in [1, 2). */
const TWO_ULP = 2 ** -51;
const SAMPLES = 200_000;

type Sample = () => number[];

/** Largest error of `ours` against `reference` over SAMPLES deterministic random inputs. */
function worstError(
  sample: Sample,
  ours: (...a: number[]) => number,
  reference: (...a: number[]) => number,
  error: (got: number, want: number, args: number[]) => number,
): { error: number; at: number[] } {
  let worst = 0, at: number[] = [];
  for (let k = 0; k < SAMPLES; k++) {
    const args = sample();
    const e = error(ours(...args), reference(...args), args);
    if (!(e <= worst)) { // NaN counts as the worst
      worst = Number.isNaN(e) ? Infinity : e;
      at = args;
    }
  }
  return { error: worst, at };
}

const absolute = (got: number, want: number) => Math.abs(got - want);
const relative = (got: number, want: number) =>
  want === 0 ? Math.abs(got) : Math.abs(got - want) / Math.abs(want);

function assertWithin(result: { error: number; at: number[] }, bound: number, what: string) {
  assert.ok(result.error <= bound, `${what}: error ${result.error} at ${result.at} > ${bound}`);
}

Deno.test("dmath sin and cos match Math within 2 ulp over ±1e5", async (t) => {
  const rng = new Rng(1);
  const wide: Sample = () => [rng.range(-1e5, 1e5)];
  await t.step(
    "sin absolute",
    () => assertWithin(worstError(wide, sin, Math.sin, absolute), TWO_ULP, "sin"),
  );
  await t.step(
    "cos absolute",
    () => assertWithin(worstError(wide, cos, Math.cos, absolute), TWO_ULP, "cos"),
  );
  const near: Sample = () => [rng.range(-PI / 4, PI / 4)];
  await t.step("sin relative near zero", () => {
    assertWithin(worstError(near, sin, Math.sin, relative), TWO_ULP, "sin");
  });
  await t.step("cos relative near zero", () => {
    assertWithin(worstError(near, cos, Math.cos, relative), TWO_ULP, "cos");
  });
  await t.step("exact values and identities", () => {
    assert.equal(sin(0), 0);
    assert.equal(cos(0), 1);
    assert.equal(sin(1e-300), 1e-300);
    assert.ok(Math.abs(sin(HALF_PI) - 1) <= TWO_ULP);
    assert.ok(Math.abs(cos(PI) + 1) <= TWO_ULP);
    assert.ok(Math.abs(sin(TAU)) < 1e-15);
    for (let k = 0; k < 1000; k++) {
      const x = rng.range(-1e4, 1e4);
      assert.ok(Math.abs(sin(x) ** 2 + cos(x) ** 2 - 1) < 1e-15, `x ${x}`);
      assert.equal(sin(-x), -sin(x));
      assert.equal(cos(-x), cos(x));
    }
    assert.ok(Number.isNaN(sin(Infinity)) && Number.isNaN(cos(NaN)));
  });
});

Deno.test("dmath cosSinArray gives cos's and sin's bits for every angle", () => {
  const rng = new Rng(9);
  const angles = new Float64Array(20_000);
  for (let i = 0; i < angles.length; i++) angles[i] = rng.range(-1e5, 1e5) * (i % 3 ? 1e-4 : 1);
  angles.set([0, -0, PI, -HALF_PI, TAU, 1e-300, NaN, Infinity, -Infinity]);
  const c = new Float64Array(angles.length), s = new Float64Array(angles.length);
  cosSinArray(angles, angles.length, c, s);
  for (let i = 0; i < angles.length; i++) {
    assert.ok(Object.is(c[i], cos(angles[i])), `cos(${angles[i]})`);
    assert.ok(Object.is(s[i], sin(angles[i])), `sin(${angles[i]})`);
  }
});

Deno.test("dmath acos, asin and atan match Math over their domains", async (t) => {
  const rng = new Rng(2);
  const unit: Sample = () => [rng.range(-1, 1)];
  await t.step("acos on [-1, 1]", () => {
    assertWithin(worstError(unit, acos, Math.acos, absolute), 3 * TWO_ULP, "acos abs");
    assertWithin(worstError(unit, acos, Math.acos, relative), 3 * TWO_ULP, "acos rel");
  });
  await t.step("acos near ±1 and at the ends", () => {
    const edge: Sample = () => [(rng.next() < 0.5 ? -1 : 1) * (1 - rng.next() * 1e-6)];
    assertWithin(worstError(edge, acos, Math.acos, relative), 3 * TWO_ULP, "acos edge");
    assert.equal(acos(1), 0);
    assert.equal(acos(-1), PI);
    assert.ok(Number.isNaN(acos(1.0000001)) && Number.isNaN(acos(-2)));
  });
  await t.step("asin on [-1, 1], relative even near 0", () => {
    assertWithin(worstError(unit, asin, Math.asin, relative), 3 * TWO_ULP, "asin");
    const tiny: Sample = () => [rng.range(-1e-8, 1e-8)];
    assertWithin(worstError(tiny, asin, Math.asin, relative), TWO_ULP, "asin tiny");
  });
  await t.step("atan over many magnitudes", () => {
    const any: Sample = () => [(rng.next() - 0.5) * 10 ** rng.range(-10, 10)];
    assertWithin(worstError(any, atan, Math.atan, relative), 2 * TWO_ULP, "atan");
    assert.equal(atan(Infinity), HALF_PI);
    assert.equal(atan(-Infinity), -HALF_PI);
    assert.ok(Object.is(atan(-0), -0));
  });
});

Deno.test("dmath atan2 matches Math in every quadrant and on the axes", () => {
  const rng = new Rng(3);
  const quadrants = [[1, 1], [-1, 1], [-1, -1], [1, -1]];
  for (const [sx, sy] of quadrants) {
    const sample: Sample = () => [sy * rng.range(1e-3, 1e3), sx * rng.range(1e-3, 1e3)];
    const r = worstError(sample, atan2, Math.atan2, absolute);
    assertWithin(r, 2 * TWO_ULP, `atan2 quadrant x${sx} y${sy}`);
    const [y, x] = sample();
    assert.equal(Math.sign(atan2(y, x)), Math.sign(Math.atan2(y, x)));
  }
  const axes: [number, number][] = [
    [0, 1],
    [-0, 1],
    [0, -1],
    [-0, -1],
    [1, 0],
    [-1, 0],
    [1, -0],
    [0, 0],
    [-0, -0],
    [0, -0],
    [5, Infinity],
    [-5, -Infinity],
  ];
  for (const [y, x] of axes) {
    assert.ok(Object.is(atan2(y, x), Math.atan2(y, x)), `atan2(${y}, ${x})`);
  }
});

Deno.test("dmath exp and log match Math over their whole range", async (t) => {
  const rng = new Rng(4);
  await t.step("exp on [-700, 700]", () => {
    const sample: Sample = () => [rng.range(-700, 700)];
    assertWithin(worstError(sample, exp, Math.exp, relative), TWO_ULP, "exp");
  });
  await t.step("exp into subnormals and overflow", () => {
    for (const x of [-708.5, -720, -740, -745, -746, 709.7, 709.79, 710, -Infinity]) {
      const want = Math.exp(x);
      const got = exp(x);
      assert.ok(got === want || relative(got, want) < 1e-3, `exp(${x}) = ${got}, not ${want}`);
    }
    assert.equal(exp(0), 1);
    assert.equal(exp(800), Infinity);
  });
  await t.step("log on [1e-300, 1e300]", () => {
    const sample: Sample = () => [10 ** rng.range(-300, 300)];
    assertWithin(worstError(sample, log, Math.log, relative), TWO_ULP, "log");
  });
  await t.step("log near 1, subnormals and specials", () => {
    const near: Sample = () => [rng.range(0.5, 2)];
    assertWithin(worstError(near, log, Math.log, absolute), TWO_ULP / 2, "log near 1");
    for (const x of [5e-324, 1e-310, 2.2250738585072014e-308, Number.MAX_VALUE]) {
      assert.ok(relative(log(x), Math.log(x)) <= TWO_ULP, `log(${x})`);
    }
    assert.equal(log(1), 0);
    assert.equal(log(0), -Infinity);
    assert.equal(log(Infinity), Infinity);
    assert.ok(Number.isNaN(log(-1)));
  });
});

Deno.test("dmath pow matches Math within |y·ln x| ulps", async (t) => {
  const rng = new Rng(5);
  await t.step("real exponents", () => {
    const sample: Sample = () => [10 ** rng.range(-3, 3), rng.range(-50, 50)];
    const scaled = (got: number, want: number, [x, y]: number[]) =>
      relative(got, want) / Math.max(1, Math.abs(y * Math.log(x)));
    assertWithin(worstError(sample, pow, Math.pow, scaled), TWO_ULP, "pow");
  });
  await t.step("small integer exponents are exact where the result is", () => {
    for (let base = -9; base <= 9; base++) {
      for (let k = 0; k <= 15; k++) {
        if (base === 0) continue;
        assert.equal(pow(base, k), base ** k, `${base}^${k}`);
      }
    }
    assert.equal(pow(2, -10), 1 / 1024);
    assert.equal(pow(2, -1074), 5e-324);
    assert.ok(Number.isNaN(pow(-2, 0.5)));
    assert.equal(pow(0, -1), Infinity);
    assert.equal(pow(7, 0), 1);
  });
  await t.step("pow2i is exact over the whole exponent range", () => {
    for (let k = -1074; k <= 1023; k++) assert.equal(pow2i(k), 2 ** k, `2^${k}`);
    assert.equal(pow2i(1024), Infinity);
  });
  assert.equal(radians(180), PI);
});

Deno.test("shared sources use no engine-dependent maths, clocks or randomness", async () => {
  // (The DOM's `window` as a global, `window.x` / `window[…]`: a birth window or ./window.ts is
  // no offender.)
  const forbidden = new RegExp(
    String.raw`Math\.(sin|cos|tan|asin|acos|atan|atan2|exp|expm1|log|log2|log10|log1p|pow|cbrt|` +
      String.raw`hypot|sinh|cosh|tanh|asinh|acosh|atanh|random)\b|\bDate\b|\bperformance\b|` +
      String.raw`\bsetTimeout\b|\bsetInterval\b|\*\*|\bdocument\b|(?<![\w/])window\s*[.[]`,
  );
  const offenders: string[] = [];
  let files = 0;
  // Every file below shared/, its role folders (shared/fireworks/…) too.
  const read = async (folder: string): Promise<void> => {
    for await (const entry of Deno.readDir(new URL(`../../shared/${folder}`, import.meta.url))) {
      const name = `${folder}${entry.name}`;
      if (entry.isDirectory) await read(`${name}/`);
      if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
      files++;
      const source = await Deno.readTextFile(new URL(`../../shared/${name}`, import.meta.url));
      const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
      code.split("\n").forEach((line, k) => {
        if (forbidden.test(line)) offenders.push(`${name}:${k}: ${line.trim()}`);
      });
    }
  };
  await read("");
  assert.ok(files >= 8, `found only ${files} files in shared/`);
  assert.deepEqual(offenders, []);
});
