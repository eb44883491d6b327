/**
 * How one tumbling flake looks on the screen, in TypeScript: the same rules as the snow shader
 * (`snow_points.ts`), so tests can measure flake sizes at the default view and check that
 * orbiting the camera changes a flake's look.
 *
 * A flake is a square of side `size` turned about its centre in **world** axes, as source 000
 * turns its quad: yaw about world y by angle b, then pitch about world x by angle a (its
 * `matYaw * matPitch` with row vectors: orientation Rx(a)·Ry(b); docs/sources.md, snow). Its
 * edges are then Ex = (cos b, sin a sin b, −cos a sin b) and Ey = (0, cos a, sin a). A point
 * sprite draws the flake's perspective image: each edge E, at view-space position P, moves the
 * screen point by (E.x + E.z·P.x/d, E.y + E.z·P.y/d)/d (d = −P.z, the depth) times the pixels a
 * metre covers at distance 1.
 */

/** Share of a flake's sprite size under which it fades (sub-pixel flakes fade, not flicker). */
export const FLAKE_FADE_PIXELS = 2;
/**
 * Depths (metres) over which a flake near the lens fades in: a 0.5 m flake 2.5 m away already
 * covers a sixth of a 720 px screen.
 */
export const FLAKE_NEAR_FADE = [1, 2.5] as const;

/** The flake's two edges in world space, per metre of side: out = [Ex, Ey] (6 numbers). */
export function flakeEdges(a: number, b: number, out: Float64Array): void {
  const ca = Math.cos(a), sa = Math.sin(a), cb = Math.cos(b), sb = Math.sin(b);
  out[0] = cb;
  out[1] = sa * sb;
  out[2] = -ca * sb;
  out[3] = 0;
  out[4] = ca;
  out[5] = sa;
}

/**
 * The screen image of a flake (pixels, y up): the two edges' projections `[Ax, Ay, Bx, By]`
 * for a flake of side `size` at view-space position `(px, py, pz)` whose world edges
 * (`flakeEdges`) are `edges`, seen through a camera whose world-to-view rotation is the 3×3
 * column-major `view` (three.js `Matrix4.elements` of the view matrix: indices 0,1,2,4,5,6,8,9,10).
 *
 * @example
 * ```ts
 * const edges = new Float64Array(6), out = new Float64Array(4);
 * flakeEdges(0, 0, edges); // facing +z
 * const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
 * flakeImage(edges, identity, 0, 0, -10, 0.3, 1000, out); // out ≈ [30, 0, 0, 30]
 * ```
 */
export function flakeImage(
  edges: Float64Array,
  view: ArrayLike<number>,
  px: number,
  py: number,
  pz: number,
  size: number,
  pointScale: number,
  out: Float64Array,
): void {
  const d = Math.max(-pz, 0.05);
  const k = (size * pointScale) / d;
  for (let e = 0; e < 2; e++) {
    const wx = edges[e * 3], wy = edges[e * 3 + 1], wz = edges[e * 3 + 2];
    const vx = view[0] * wx + view[4] * wy + view[8] * wz;
    const vy = view[1] * wx + view[5] * wy + view[9] * wz;
    const vz = view[2] * wx + view[6] * wy + view[10] * wz;
    out[e * 2] = k * (vx + (vz * px) / d);
    out[e * 2 + 1] = k * (vy + (vz * py) / d);
  }
}

/**
 * The point sprite's side in pixels for a flake image `[Ax, Ay, Bx, By]`: the image's bounding
 * square, at least one pixel.
 */
export function flakeSpriteSide(image: Float64Array): number {
  const x = Math.abs(image[0]) + Math.abs(image[2]);
  const y = Math.abs(image[1]) + Math.abs(image[3]);
  return Math.max(x, y, 1);
}

/**
 * A flake's opacity factor: sub-pixel flakes fade by their size in pixels (`pixels`, the
 * flake's side seen face-on), far flakes melt into the night between `far[0]` and `far[1]`
 * metres, and a flake about to touch the lens fades.
 */
export function flakeFade(pixels: number, depth: number, far: readonly [number, number]): number {
  const smooth = (e0: number, e1: number, x: number) => {
    const t = Math.min(1, Math.max(0, (x - e0) / (e1 - e0)));
    return t * t * (3 - 2 * t);
  };
  return Math.min(1, Math.max(0, pixels / FLAKE_FADE_PIXELS)) *
    (1 - smooth(far[0], far[1], depth)) *
    smooth(FLAKE_NEAR_FADE[0], FLAKE_NEAR_FADE[1], depth);
}
