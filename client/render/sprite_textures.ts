/**
 * Procedural sprite textures drawn on a canvas at start-up (no image downloads): a 3×2 atlas of
 * snowflake shapes, one per flake variant 0..5 (the source has six flake textures: docs/sources.md, snow).
 */
import * as THREE from "three";

/** Pixels per atlas cell. */
const CELL = 128;

/** Atlas cells across and down: variant v sits in column v % 3, row floor(v / 3). */
export const SNOW_ATLAS_COLUMNS = 3;
export const SNOW_ATLAS_ROWS = 2;

/** Draws `arms` arms around the cell centre, each by `drawArm` in arm-local coordinates (+y out). */
function radial(ctx: CanvasRenderingContext2D, arms: number, drawArm: () => void): void {
  for (let i = 0; i < arms; i++) {
    ctx.save();
    ctx.rotate((i * 2 * Math.PI) / arms);
    drawArm();
    ctx.restore();
  }
}

function line(ctx: CanvasRenderingContext2D, x0: number, y0: number, x1: number, y1: number) {
  ctx.beginPath();
  ctx.moveTo(x0, y0);
  ctx.lineTo(x1, y1);
  ctx.stroke();
}

/** Two side branches mirrored about the arm (+y): from (0, y) to (±dx, y + dy). */
function branchPair(ctx: CanvasRenderingContext2D, y: number, dx: number, dy: number): void {
  line(ctx, 0, y, dx, y + dy);
  line(ctx, 0, y, -dx, y + dy);
}

/** Starts a path that is the circle of radius `r` about (x, y); the caller fills or strokes it. */
function circle(ctx: CanvasRenderingContext2D, x: number, y: number, r: number): void {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
}

/**
 * Starts a path that is the hexagon of corner radius `r` about the cell centre, its first corner
 * `turn` radians from +x; the caller fills or strokes it.
 */
function hexagon(ctx: CanvasRenderingContext2D, r: number, turn: number): void {
  ctx.beginPath();
  for (let i = 0; i < 6; i++) {
    const angle = (i * Math.PI) / 3 + turn;
    ctx.lineTo(r * Math.cos(angle), r * Math.sin(angle));
  }
  ctx.closePath();
}

/** Variant 0: a soft round clump, the most common flake far away. */
function drawClump(ctx: CanvasRenderingContext2D): void {
  const gradient = ctx.createRadialGradient(0, 0, 0, 0, 0, CELL * 0.42);
  gradient.addColorStop(0, "rgba(255,255,255,1)");
  gradient.addColorStop(0.35, "rgba(240,246,255,0.85)");
  gradient.addColorStop(1, "rgba(230,240,255,0)");
  ctx.fillStyle = gradient;
  circle(ctx, 0, 0, CELL * 0.42);
  ctx.fill();
}

/** A flake's six arms with mirrored side branches (see `branchedArms`). */
interface BranchedArms {
  /** Where branches leave each arm, as fractions of its length. */
  at: readonly number[];
  /**
   * A branch leaving at fraction `a` of an arm `r` long spans `r · (reach − a) · across` across
   * the arm and `r · (reach − a) · along` along it: shorter further out.
   */
  reach: number;
  across: number;
  along: number;
}

/** Six arms `r` px long, each with a pair of side branches at every `at` (see BranchedArms). */
function branchedArms(ctx: CanvasRenderingContext2D, r: number, arms: BranchedArms): void {
  radial(ctx, 6, () => {
    line(ctx, 0, 0, 0, r);
    for (const at of arms.at) {
      const branch = r * (arms.reach - at);
      branchPair(ctx, r * at, branch * arms.across, branch * arms.along);
    }
  });
}

/** Variant 1: a six-armed dendrite with side branches. */
function drawDendrite(ctx: CanvasRenderingContext2D): void {
  ctx.lineWidth = CELL * 0.045;
  branchedArms(ctx, CELL * 0.4, { at: [0.4, 0.65], reach: 0.95, across: 0.56, along: 0.7 });
}

/** Variant 2: a hexagonal plate with an inner ring. */
function drawPlate(ctx: CanvasRenderingContext2D): void {
  const r = CELL * 0.36;
  ctx.lineWidth = CELL * 0.04;
  ctx.fillStyle = "rgba(235,243,255,0.35)";
  hexagon(ctx, r, 0);
  ctx.fill();
  ctx.stroke();
  radial(ctx, 6, () => line(ctx, 0, 0, 0, r * 0.55));
  circle(ctx, 0, 0, r * 0.3);
  ctx.stroke();
}

/** Variant 3: a star of six plain needles with little plates at the tips. */
function drawStellar(ctx: CanvasRenderingContext2D): void {
  const r = CELL * 0.4;
  ctx.lineWidth = CELL * 0.05;
  radial(ctx, 6, () => {
    line(ctx, 0, 0, 0, r * 0.8);
    circle(ctx, 0, r * 0.84, CELL * 0.05);
    ctx.fill();
  });
  circle(ctx, 0, 0, CELL * 0.08);
  ctx.fill();
}

/** Variant 4: a fern-like dendrite, many fine side branches on each of six arms. */
function drawFern(ctx: CanvasRenderingContext2D): void {
  ctx.lineWidth = CELL * 0.03;
  const at = [0.3, 0.42, 0.54, 0.66, 0.78, 0.9];
  branchedArms(ctx, CELL * 0.43, { at, reach: 1.15, across: 0.22, along: 0.198 });
}

/** Variant 5: a sectored plate, six broad leaves with ribs, and a hexagonal core. */
function drawSectored(ctx: CanvasRenderingContext2D): void {
  const r = CELL * 0.4;
  ctx.lineWidth = CELL * 0.03;
  radial(ctx, 6, () => {
    ctx.fillStyle = "rgba(235,243,255,0.55)";
    ctx.beginPath();
    ctx.moveTo(0, r * 0.15);
    ctx.lineTo(r * 0.2, r * 0.55);
    ctx.lineTo(0, r);
    ctx.lineTo(-r * 0.2, r * 0.55);
    ctx.closePath();
    ctx.fill();
    ctx.stroke();
    line(ctx, 0, r * 0.15, 0, r);
  });
  hexagon(ctx, r * 0.18, Math.PI / 6);
  ctx.fill();
}

/**
 * A 384×256 RGBA atlas of six flake shapes: variant v sits in cell (v % 3, floor(v / 3)),
 * cells counted from the texture's bottom-left as GLSL sees them. White on transparent with a soft
 * halo so flakes glow a little against the night sky.
 */
export function createSnowflakeAtlas(): THREE.CanvasTexture {
  const canvas = document.createElement("canvas");
  canvas.width = CELL * SNOW_ATLAS_COLUMNS;
  canvas.height = CELL * SNOW_ATLAS_ROWS;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("no_canvas_2d: the browser refused a 2D canvas for the flake sprites");
  const painters = [drawClump, drawDendrite, drawPlate, drawStellar, drawFern, drawSectored];
  for (let variant = 0; variant < painters.length; variant++) {
    ctx.save();
    // Canvas rows run top-down, texture v runs bottom-up (flipY): cell row 0 is the canvas' bottom.
    const column = variant % SNOW_ATLAS_COLUMNS;
    const row = SNOW_ATLAS_ROWS - 1 - Math.floor(variant / SNOW_ATLAS_COLUMNS);
    ctx.translate(column * CELL + CELL / 2, row * CELL + CELL / 2);
    ctx.strokeStyle = "rgba(255,255,255,0.95)";
    ctx.fillStyle = "rgba(255,255,255,0.95)";
    ctx.lineCap = "round";
    ctx.shadowColor = "rgba(200,225,255,0.9)";
    ctx.shadowBlur = CELL * 0.06;
    painters[variant](ctx);
    ctx.restore();
  }
  const texture = new THREE.CanvasTexture(canvas);
  texture.colorSpace = THREE.SRGBColorSpace;
  texture.generateMipmaps = false;
  texture.minFilter = THREE.LinearFilter;
  texture.magFilter = THREE.LinearFilter;
  return texture;
}
