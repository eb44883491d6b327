/**
 * A small QR code encoder (ISO/IEC 18004) for links: byte mode, error correction level M,
 * versions 1–10 (up to 213 bytes), mask chosen by the standard's penalty rules. No network, no
 * dependency; the structure follows Project Nayuki's well-known reference implementation.
 */

/** A QR symbol: `size`×`size` modules, row-major, 1 = dark. */
export interface QrCode {
  version: number;
  size: number;
  modules: Uint8Array;
}

/** Per version (index 1–10) for level M: EC codewords per block, then [blocks, data codewords]… */
const BLOCKS_M: readonly (readonly number[])[] = [
  [],
  [10, 1, 16],
  [16, 1, 28],
  [26, 1, 44],
  [18, 2, 32],
  [24, 2, 43],
  [16, 4, 27],
  [18, 4, 31],
  [22, 2, 38, 2, 39],
  [22, 3, 36, 2, 37],
  [26, 4, 43, 1, 44],
];

/** Centres of alignment patterns per version (index 1–10). */
const ALIGNMENT: readonly (readonly number[])[] = [
  [],
  [],
  [6, 18],
  [6, 22],
  [6, 26],
  [6, 30],
  [6, 34],
  [6, 22, 38],
  [6, 24, 42],
  [6, 26, 46],
  [6, 28, 50],
];

/** The largest version this encoder makes. */
export const MAX_QR_VERSION = 10;

/** Data codewords of a version at level M. */
function dataCodewords(version: number): number {
  const spec = BLOCKS_M[version];
  let total = 0;
  for (let i = 1; i < spec.length; i += 2) total += spec[i] * spec[i + 1];
  return total;
}

/** Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1. */
function gfMultiply(x: number, y: number): number {
  let z = 0;
  for (let i = 7; i >= 0; i--) {
    z = (z << 1) ^ ((z >>> 7) * 0x11d);
    z ^= ((y >>> i) & 1) * x;
  }
  return z & 0xff;
}

/** The Reed–Solomon generator polynomial of `degree` (highest coefficient first, leading 1 dropped). */
function rsDivisor(degree: number): number[] {
  const result = new Array<number>(degree).fill(0);
  result[degree - 1] = 1;
  let root = 1;
  for (let i = 0; i < degree; i++) {
    for (let j = 0; j < result.length; j++) {
      result[j] = gfMultiply(result[j], root);
      if (j + 1 < result.length) result[j] ^= result[j + 1];
    }
    root = gfMultiply(root, 0x02);
  }
  return result;
}

/**
 * The Reed–Solomon error correction codewords of `data` (`degree` of them).
 *
 * @example
 * ```ts
 * reedSolomon([32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17], 10)
 * // [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]
 * ```
 */
export function reedSolomon(data: readonly number[], degree: number): number[] {
  const divisor = rsDivisor(degree);
  const result = new Array<number>(degree).fill(0);
  for (const byte of data) {
    const factor = byte ^ (result.shift() as number);
    result.push(0);
    for (let i = 0; i < divisor.length; i++) result[i] ^= gfMultiply(divisor[i], factor);
  }
  return result;
}

/** The 15 format bits for level M and `mask` (BCH(15,5), XOR 0x5412). */
export function formatBits(mask: number): number {
  const data = (0b00 << 3) | mask; // level M is 00
  let rem = data;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  return ((data << 10) | rem) ^ 0x5412;
}

/** The 18 version bits for `version` ≥ 7 (BCH(18,6)). */
export function versionBits(version: number): number {
  let rem = version;
  for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
  return (version << 12) | rem;
}

const bit = (value: number, index: number): boolean => ((value >>> index) & 1) !== 0;

/** The codewords (data and error correction, interleaved) for `bytes` at `version`. */
function codewords(bytes: Uint8Array, version: number): number[] {
  const capacity = dataCodewords(version);
  const bits: number[] = [];
  const push = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1);
  };
  push(0b0100, 4); // byte mode
  push(bytes.length, version < 10 ? 8 : 16);
  for (const byte of bytes) push(byte, 8);
  push(0, Math.min(4, capacity * 8 - bits.length)); // terminator
  push(0, (8 - (bits.length % 8)) % 8);
  const data: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    let byte = 0;
    for (let j = 0; j < 8; j++) byte = (byte << 1) | bits[i + j];
    data.push(byte);
  }
  for (let pad = 0xec; data.length < capacity; pad ^= 0xec ^ 0x11) data.push(pad);

  const spec = BLOCKS_M[version];
  const ecLength = spec[0];
  const blocks: number[][] = [];
  let offset = 0;
  for (let g = 1; g < spec.length; g += 2) {
    for (let b = 0; b < spec[g]; b++) {
      blocks.push(data.slice(offset, offset + spec[g + 1]));
      offset += spec[g + 1];
    }
  }
  const ecBlocks = blocks.map((block) => reedSolomon(block, ecLength));
  const result: number[] = [];
  const longest = Math.max(...blocks.map((block) => block.length));
  for (let i = 0; i < longest; i++) {
    for (const block of blocks) if (i < block.length) result.push(block[i]);
  }
  for (let i = 0; i < ecLength; i++) {
    for (const block of ecBlocks) result.push(block[i]);
  }
  return result;
}

/** The symbol under construction: modules plus which of them are function patterns. */
class QrSymbol {
  readonly size: number;
  readonly dark: Uint8Array;
  readonly fixed: Uint8Array;

  constructor(readonly version: number) {
    this.size = version * 4 + 17;
    this.dark = new Uint8Array(this.size * this.size);
    this.fixed = new Uint8Array(this.size * this.size);
  }

  set(x: number, y: number, dark: boolean): void {
    this.dark[y * this.size + x] = dark ? 1 : 0;
    this.fixed[y * this.size + x] = 1;
  }

  drawFunctionPatterns(): void {
    const size = this.size;
    for (let i = 0; i < size; i++) {
      this.set(6, i, i % 2 === 0);
      this.set(i, 6, i % 2 === 0);
    }
    for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const x = cx + dx, y = cy + dy;
          if (x < 0 || y < 0 || x >= size || y >= size) continue;
          const distance = Math.max(Math.abs(dx), Math.abs(dy));
          this.set(x, y, distance !== 2 && distance !== 4);
        }
      }
    }
    const centres = ALIGNMENT[this.version];
    const last = centres.length - 1;
    for (let i = 0; i <= last; i++) {
      for (let j = 0; j <= last; j++) {
        // The three corners overlap the finder patterns.
        if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue;
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) {
            this.set(centres[i] + dx, centres[j] + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
          }
        }
      }
    }
    this.drawFormat(0); // reserves the format area; redrawn with the chosen mask
    if (this.version >= 7) {
      const bits = versionBits(this.version);
      for (let i = 0; i < 18; i++) {
        const a = size - 11 + (i % 3);
        const b = Math.floor(i / 3);
        this.set(a, b, bit(bits, i));
        this.set(b, a, bit(bits, i));
      }
    }
  }

  drawFormat(mask: number): void {
    const bits = formatBits(mask);
    const size = this.size;
    for (let i = 0; i <= 5; i++) this.set(8, i, bit(bits, i));
    this.set(8, 7, bit(bits, 6));
    this.set(8, 8, bit(bits, 7));
    this.set(7, 8, bit(bits, 8));
    for (let i = 9; i < 15; i++) this.set(14 - i, 8, bit(bits, i));
    for (let i = 0; i < 8; i++) this.set(size - 1 - i, 8, bit(bits, i));
    for (let i = 8; i < 15; i++) this.set(8, size - 15 + i, bit(bits, i));
    this.set(8, size - 8, true); // the dark module
  }

  drawCodewords(data: readonly number[]): void {
    const size = this.size;
    let i = 0;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5; // skip the vertical timing column
      for (let vert = 0; vert < size; vert++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const upward = ((right + 1) & 2) === 0;
          const y = upward ? size - 1 - vert : vert;
          const index = y * size + x;
          if (this.fixed[index] || i >= data.length * 8) continue;
          this.dark[index] = bit(data[i >>> 3], 7 - (i & 7)) ? 1 : 0;
          i++;
        }
      }
    }
  }

  applyMask(mask: number): void {
    const size = this.size;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const index = y * size + x;
        if (this.fixed[index]) continue;
        let invert: boolean;
        switch (mask) {
          case 0:
            invert = (x + y) % 2 === 0;
            break;
          case 1:
            invert = y % 2 === 0;
            break;
          case 2:
            invert = x % 3 === 0;
            break;
          case 3:
            invert = (x + y) % 3 === 0;
            break;
          case 4:
            invert = (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0;
            break;
          case 5:
            invert = ((x * y) % 2) + ((x * y) % 3) === 0;
            break;
          case 6:
            invert = (((x * y) % 2) + ((x * y) % 3)) % 2 === 0;
            break;
          default:
            invert = (((x + y) % 2) + ((x * y) % 3)) % 2 === 0;
        }
        if (invert) this.dark[index] ^= 1;
      }
    }
  }

  /** The standard's penalty score (lower scans better). */
  penalty(): number {
    const size = this.size;
    const at = (x: number, y: number) => this.dark[y * size + x];
    let score = 0;
    for (let pass = 0; pass < 2; pass++) {
      for (let a = 0; a < size; a++) {
        let run = 0;
        let previous = -1;
        let window = 0;
        for (let b = 0; b < size; b++) {
          const value = pass === 0 ? at(b, a) : at(a, b);
          if (value === previous) {
            run++;
            if (run === 5) score += 3;
            else if (run > 5) score++;
          } else {
            run = 1;
            previous = value;
          }
          // Finder-like 1011101 with four light modules on one side.
          window = ((window << 1) | value) & 0x7ff;
          if (b >= 10 && (window === 0b10111010000 || window === 0b00001011101)) score += 40;
        }
      }
    }
    let darkCount = 0;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        const value = at(x, y);
        darkCount += value;
        if (
          x + 1 < size && y + 1 < size && value === at(x + 1, y) && value === at(x, y + 1) &&
          value === at(x + 1, y + 1)
        ) {
          score += 3;
        }
      }
    }
    const total = size * size;
    score += (Math.ceil(Math.abs(darkCount * 20 - total * 10) / total) - 1) * 10;
    return score;
  }
}

/**
 * Encodes `text` (as UTF-8) in the smallest version that holds it.
 *
 * @example
 * ```ts
 * const qr = encodeQr("https://example.org/s/quiet-pine-4821");
 * qr.modules[0]; // 1: the top-left finder pattern is dark
 * ```
 */
export function encodeQr(text: string): QrCode {
  const bytes = new TextEncoder().encode(text);
  let version = 1;
  while (4 + (version < 10 ? 8 : 16) + bytes.length * 8 > dataCodewords(version) * 8) {
    version++;
    if (version > MAX_QR_VERSION) {
      throw new Error(
        `qr_too_long: ${bytes.length} bytes do not fit a version ${MAX_QR_VERSION} code`,
      );
    }
  }
  const data = codewords(bytes, version);
  const symbol = new QrSymbol(version);
  symbol.drawFunctionPatterns();
  symbol.drawCodewords(data);
  let best = 0;
  let bestScore = Infinity;
  for (let mask = 0; mask < 8; mask++) {
    symbol.applyMask(mask);
    symbol.drawFormat(mask);
    const score = symbol.penalty();
    if (score < bestScore) {
      best = mask;
      bestScore = score;
    }
    symbol.applyMask(mask); // XOR again: undo
  }
  symbol.applyMask(best);
  symbol.drawFormat(best);
  return { version, size: symbol.size, modules: symbol.dark };
}
