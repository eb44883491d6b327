/**
 * A hostile WebSocket client over a raw TCP connection: it upgrades, then writes whatever frames a
 * test wants without ever reading (unless asked), as an attacker would. Also: the heartbeat-gap
 * observer and a child process's RSS, for the abuse tests.
 */

/** Opcode of a text frame. */
export const TEXT = 0x1;
/** Opcode of a binary frame. */
export const BINARY = 0x2;

const MASK = [0x12, 0x34, 0x56, 0x78];

/** One masked client frame (RFC 6455: clients mask) carrying `payload`. */
export function maskedFrame(opcode: number, payload: Uint8Array): Uint8Array {
  const n = payload.length;
  const extra = n < 126 ? 0 : n < 65536 ? 2 : 8;
  const frame = new Uint8Array(6 + extra + n);
  frame[0] = 0x80 | opcode;
  if (extra === 0) frame[1] = 0x80 | n;
  else if (extra === 2) {
    frame[1] = 0x80 | 126;
    new DataView(frame.buffer).setUint16(2, n);
  } else {
    frame[1] = 0x80 | 127;
    new DataView(frame.buffer).setBigUint64(2, BigInt(n));
  }
  frame.set(MASK, 2 + extra);
  for (let i = 0; i < n; i++) frame[6 + extra + i] = payload[i] ^ MASK[i % 4];
  return frame;
}

/** `count` copies of `frame` back to back (one write sends them all). */
export function repeated(frame: Uint8Array, count: number): Uint8Array {
  const batch = new Uint8Array(frame.length * count);
  for (let i = 0; i < count; i++) batch.set(frame, i * frame.length);
  return batch;
}

/** The header of a masked frame announcing `length` payload bytes (the payload follows). */
export function frameHeader(opcode: number, length: number): Uint8Array {
  const head = new Uint8Array(14);
  head[0] = 0x80 | opcode;
  head[1] = 0x80 | 127;
  new DataView(head.buffer).setBigUint64(2, BigInt(length));
  head.set(MASK, 10);
  return head;
}

/** Opens a TCP connection to `port` and upgrades it at `/s/:scene/ws`; resolves once switched. */
export async function rawUpgrade(port: number, scene: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const request = `GET /s/${scene}/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    "Upgrade: websocket\r\nConnection: Upgrade\r\n" +
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  await conn.write(new TextEncoder().encode(request));
  // Read exactly the response head, byte by byte, so no frame after it is consumed.
  let head = "";
  const one = new Uint8Array(1);
  while (!head.endsWith("\r\n\r\n")) {
    const n = await conn.read(one);
    if (n === null) throw new Error(`upgrade to ${scene}: connection closed after ${head}`);
    head += String.fromCharCode(one[0]);
  }
  if (!head.startsWith("HTTP/1.1 101")) throw new Error(`upgrade refused: ${head}`);
  return conn;
}

/** Writes `batch` until a write fails (the server dropped us) or `untilMs` passes; bytes written. */
export async function floodUntilClosed(
  conn: Deno.TcpConn,
  batch: Uint8Array,
  untilMs: number,
): Promise<{ bytes: number; cut: boolean }> {
  let bytes = 0;
  try {
    while (performance.now() < untilMs) bytes += await conn.write(batch);
    return { bytes, cut: false };
  } catch {
    return { bytes, cut: true };
  }
}

/** Server frames read from `conn` until it closes: their opcodes, close code and text payloads. */
export async function readAll(
  conn: Deno.TcpConn,
  timeoutMs = 5000,
): Promise<{ texts: string[]; closeCode: number | null }> {
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(64 * 1024);
  // Past the deadline, stop waiting: closing the connection ends the pending read.
  const timer = setTimeout(() => {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  }, timeoutMs);
  try {
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
  } catch {
    // Reset by the server (or closed at the deadline): what arrived before counts.
  }
  clearTimeout(timer);
  const data = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    data.set(c, at);
    at += c.length;
  }
  const texts: string[] = [];
  let closeCode: number | null = null;
  let i = 0;
  while (i + 2 <= data.length) {
    const opcode = data[i] & 0x0f;
    let len = data[i + 1] & 0x7f;
    let p = i + 2;
    if (len === 126) {
      len = (data[p] << 8) | data[p + 1];
      p += 2;
    } else if (len === 127) {
      len = Number(new DataView(data.buffer, p, 8).getBigUint64(0));
      p += 8;
    }
    if (p + len > data.length) break;
    const payload = data.subarray(p, p + len);
    if (opcode === TEXT) texts.push(new TextDecoder().decode(payload));
    if (opcode === 0x8 && len >= 2) closeCode = (payload[0] << 8) | payload[1];
    i = p + len;
  }
  return { texts, closeCode };
}

/** Resident set size of process `pid`, in bytes (Linux). */
export function rssBytes(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kib = /VmRSS:\s+(\d+)\s+kB/.exec(status);
  if (!kib) throw new Error(`no VmRSS for ${pid}`);
  return Number(kib[1]) * 1024;
}

/** Samples `pid`'s RSS every `everyMs` until stopped; reports the peak. */
export function rssPeak(pid: number, everyMs = 20): { stop(): number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(pid));
    } catch {
      // The process exited.
    }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssBytes(pid));
    },
  };
}

/**
 * A welcomed client that notes when each heartbeat or event arrives: the gaps between them are
 * what a viewer of another scene would feel while an attack runs.
 */
export class GapObserver {
  readonly #socket: WebSocket;
  #arrivals: number[] = [];
  readonly closed: Promise<void>;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    this.closed = new Promise((resolve) => socket.addEventListener("close", () => resolve()));
    socket.addEventListener("message", (e) => {
      const t = (JSON.parse(e.data as string) as { t: string }).t;
      if (t === "tick" || t === "event") this.#arrivals.push(performance.now());
    });
  }

  /** Joins `scene` and waits for the welcome. */
  static async join(baseUrl: string, scene: string): Promise<GapObserver> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/s/${scene}/ws`);
    const observer = new GapObserver(socket);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => socket.send(JSON.stringify({ t: "hello" })));
      socket.addEventListener("message", function first(e) {
        if ((JSON.parse(e.data as string) as { t: string }).t !== "welcome") return;
        socket.removeEventListener("message", first);
        resolve();
      });
      socket.addEventListener("error", () => reject(new Error(`observer could not join`)));
    });
    return observer;
  }

  /** Starts a new measurement window. */
  reset(): void {
    this.#arrivals = [];
  }

  /** The gaps between consecutive arrivals in this window, ms, in arrival order. */
  gaps(): number[] {
    return this.#arrivals.slice(1).map((t, i) => t - this.#arrivals[i]);
  }

  /** The p99 of the gaps between consecutive arrivals in this window, ms. */
  gapP99(): number {
    const gaps = this.#arrivals.slice(1).map((t, i) => t - this.#arrivals[i]).sort((a, b) => a - b);
    if (gaps.length === 0) return Infinity;
    return gaps[Math.min(gaps.length - 1, Math.floor(gaps.length * 0.99))];
  }

  /** Gaps measured in this window. */
  get samples(): number {
    return Math.max(0, this.#arrivals.length - 1);
  }

  async close(): Promise<void> {
    this.#socket.close(1000, "done");
    await this.closed;
  }
}
