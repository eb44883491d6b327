/**
 * A recording WebSocket client for server tests: it keeps every frame and can wait for the one a
 * test expects.
 */
import type { ServerMessage } from "../shared/protocol.ts";
import type { EventBody } from "../shared/types.ts";
import { eventually } from "./wait.ts";
import { CLOSE_TRY_LATER } from "../server/ws/ws_socket.ts";

type Waiter = {
  match: (m: ServerMessage) => boolean;
  resolve: (m: ServerMessage) => void;
};

/**
 * How long {@link TestClient.join} waits for the welcome. A cluster node opening a scene first
 * writes to replicated buckets, which a loaded machine may slow past the usual 5 s wait; tests
 * that judge how soon a welcome comes time it themselves.
 */
const JOIN_TIMEOUT_MS = 15_000;
/** Wait before {@link TestClient.join} says hello again after a "try again later" close. */
const RETRY_MS = 250;

/**
 * A recording WebSocket client.
 *
 * @example
 * ```ts
 * const server = await startTestServer();
 * const { client } = await TestClient.join(server.url, "demo");
 * client.submit({ type: "launch", x: 1, z: 2 });
 * await client.waitFor((m) => m.t === "event");
 * await client.close();
 * await server.close();
 * ```
 */
export class TestClient {
  readonly socket: WebSocket;
  /** Every parsed frame received, in order. */
  readonly messages: ServerMessage[] = [];
  /** Resolves with the close event. */
  readonly closed: Promise<CloseEvent>;
  #waiters: Waiter[] = [];

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => {
      socket.addEventListener("close", (e) => resolve(e));
    });
    socket.addEventListener("message", (e) => {
      const message = JSON.parse(e.data as string) as ServerMessage;
      this.messages.push(message);
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.match(message)) return true;
        w.resolve(message);
        return false;
      });
    });
  }

  /** Opens `/s/:scene/ws`; resolves once open (rejects if the server refuses the upgrade). */
  static async connect(
    baseUrl: string,
    scene: string,
    headers?: Record<string, string>,
  ): Promise<TestClient> {
    const url = `${baseUrl.replace(/^http/, "ws")}/s/${scene}/ws`;
    // Deno's WebSocket accepts headers (used to present a foreign Origin).
    const socket = headers
      ? new WebSocket(url, { headers } as unknown as string[])
      : new WebSocket(url);
    const client = new TestClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`could not open ${url}`)), {
        once: true,
      });
    });
    return client;
  }

  /**
   * Opens `/s/:scene/ws` from the loopback address `localAddress` (e.g. `127.0.0.42`; npm `ws`
   * over `node:net`, which binds it), so a test can speak as many addresses.
   */
  static async connectFrom(
    baseUrl: string,
    scene: string,
    localAddress: string,
  ): Promise<TestClient> {
    const url = `${baseUrl.replace(/^http/, "ws")}/s/${scene}/ws`;
    const { WebSocket: NodeWebSocket } = await import("ws");
    const socket = new NodeWebSocket(url, { localAddress }) as unknown as WebSocket;
    const client = new TestClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`could not open ${url}`)), {
        once: true,
      });
    });
    return client;
  }

  /**
   * Connects (from `hello.from`, a loopback address, when given) and says hello; resolves with
   * the welcome.
   */
  static async join(
    baseUrl: string,
    scene: string,
    hello: { name?: string; lastSeq?: number; person?: string; from?: string } = {},
  ): Promise<{ client: TestClient; welcome: Extract<ServerMessage, { t: "welcome" }> }> {
    const { from, ...said } = hello;
    const deadline = performance.now() + JOIN_TIMEOUT_MS;
    for (;;) {
      const client = from === undefined
        ? await TestClient.connect(baseUrl, scene)
        : await TestClient.connectFrom(baseUrl, scene, from);
      client.send({ t: "hello", ...said });
      const outcome = await client.#welcomeOrClose(Math.max(0, deadline - performance.now()));
      if (outcome !== null && "t" in outcome) {
        return { client, welcome: outcome as Extract<ServerMessage, { t: "welcome" }> };
      }
      // The test never gets the client to close: close it here, or the failure also leaks it.
      await client.close();
      // "Try again later" before the welcome (a cluster node whose first open of the scene NATS
      // refused for a moment): a browser reconnects, and so does this client, within the wait.
      if (outcome?.code === CLOSE_TRY_LATER && performance.now() + RETRY_MS < deadline) {
        await new Promise((r) => setTimeout(r, RETRY_MS));
        continue;
      }
      throw new Error(
        outcome === null
          ? `timed out after ${JOIN_TIMEOUT_MS} ms waiting for the welcome`
          : `closed (${outcome.code} ${outcome.reason}) before the welcome`,
      );
    }
  }

  /** The welcome, the socket's close before it, or null after `timeoutMs`. */
  #welcomeOrClose(timeoutMs: number): Promise<ServerMessage | CloseEvent | null> {
    const isWelcome = (m: ServerMessage) => m.t === "welcome";
    const seen = this.messages.find(isWelcome);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const finish = (outcome: ServerMessage | CloseEvent | null) => {
        clearTimeout(timer);
        this.socket.removeEventListener("close", onClose);
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(outcome);
      };
      const onClose = (e: CloseEvent) => finish(e);
      const waiter: Waiter = { match: isWelcome, resolve: finish };
      const timer = setTimeout(() => finish(null), timeoutMs);
      this.socket.addEventListener("close", onClose);
      this.#waiters.push(waiter);
    });
  }

  /**
   * Sends an object as JSON, or a raw string / bytes as they are. Event bodies go through
   * {@link submit}; a v1 frame (`{t: "launch"}` and the like) throws, so a test written against
   * the old protocol fails at once instead of waiting for events that never come.
   */
  send(message: unknown): void {
    const t = (message as { t?: unknown } | null)?.t;
    if (t === "launch" || t === "gun" || t === "settings") {
      throw new TypeError(`{t: "${t}"} is protocol v1: use client.submit({type: "${t}", ...})`);
    }
    this.socket.send(
      typeof message === "string" || message instanceof Uint8Array
        ? message as string
        : JSON.stringify(message),
    );
  }

  /** Submits an event body (`{t: "submit", body}`) for the server to stamp and forward. */
  submit(body: EventBody): void {
    this.send({ t: "submit", body });
  }

  /** The first message so far, or the next one, that matches; rejects after `timeoutMs`. */
  waitFor(match: (m: ServerMessage) => boolean, timeoutMs = 5000): Promise<ServerMessage> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for a message`));
      }, timeoutMs);
      const waiter: Waiter = {
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  /** Waits until `count` messages so far match; returns all that match. */
  async waitForCount(
    match: (m: ServerMessage) => boolean,
    count: number,
    timeoutMs = 5000,
  ): Promise<ServerMessage[]> {
    await eventually(
      `${count} matching messages arrived`,
      () => this.messages.filter(match).length >= count,
      timeoutMs,
    );
    return this.messages.filter(match);
  }

  /** Received events, in arrival order. */
  events(): Extract<ServerMessage, { t: "event" }>[] {
    return this.messages.filter((m) => m.t === "event") as Extract<ServerMessage, { t: "event" }>[];
  }

  /** Received errors. */
  errors(): Extract<ServerMessage, { t: "error" }>[] {
    return this.messages.filter((m) => m.t === "error") as Extract<ServerMessage, { t: "error" }>[];
  }

  /** Closes the socket and waits for the close to complete. */
  async close(): Promise<CloseEvent> {
    if (this.socket.readyState < WebSocket.CLOSING) this.socket.close(1000, "test done");
    return await this.closed;
  }
}
