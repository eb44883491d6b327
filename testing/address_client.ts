/**
 * A recording WebSocket client that connects from a chosen loopback source address (Linux routes
 * all of 127/8 to loopback), for tests of budgets by address and by network: `127.0.1.x` and
 * `127.0.2.x` are two /24 networks, `127.0.1.2` and `127.0.1.3` two addresses of one.
 *
 * @example
 * ```ts ignore
 * const client = await AddressClient.connect(server.url, "demo", "127.0.1.2");
 * client.send({ t: "hello" });
 * await client.waitFor((m) => m.t === "welcome");
 * await client.close();
 * ```
 */
import WebSocket from "ws";
import type { ServerMessage } from "../shared/protocol.ts";

/** A WebSocket client bound to one source address. */
export class AddressClient {
  readonly messages: ServerMessage[] = [];
  readonly closed: Promise<number>;
  readonly #socket: WebSocket;
  #waiters: { match: (m: ServerMessage) => boolean; resolve: (m: ServerMessage) => void }[] = [];

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    this.closed = new Promise((resolve) => socket.on("close", (code: number) => resolve(code)));
    socket.on("message", (data: unknown) => {
      const message = JSON.parse(String(data)) as ServerMessage;
      this.messages.push(message);
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.match(message)) return true;
        w.resolve(message);
        return false;
      });
    });
  }

  /** Opens `/s/:scene/ws` from `address`; resolves once open (rejects when refused). */
  static async connect(url: string, scene: string, address: string): Promise<AddressClient> {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/s/${scene}/ws`, {
      localAddress: address,
    });
    const client = new AddressClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", (e: Error) => reject(e));
    });
    return client;
  }

  /** Connects from `address`, says hello; resolves with the client once welcomed (or refused). */
  static async join(url: string, scene: string, address: string): Promise<AddressClient> {
    const client = await AddressClient.connect(url, scene, address);
    client.send({ t: "hello" });
    await client.waitFor((m) => m.t === "welcome" || m.t === "error");
    return client;
  }

  /** Whether the server welcomed this client. */
  get welcomed(): boolean {
    return this.messages.some((m) => m.t === "welcome");
  }

  send(message: unknown): void {
    this.#socket.send(JSON.stringify(message));
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
      const waiter = {
        match,
        resolve: (m: ServerMessage) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  async close(): Promise<void> {
    if (this.#socket.readyState !== WebSocket.CLOSED) {
      this.#socket.close(1000, "done");
      await this.closed;
    }
  }
}
