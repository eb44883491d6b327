/**
 * The WebSocket link to a scene: validates every server frame with zod, says hello (resuming
 * from the last seen `seq` after a reconnect), keeps the clock in sync with pings, and
 * reconnects with exponential backoff when the link drops or goes silent. A hello refused for
 * its name is said again without one, so a bad name never leaves the page hanging.
 */
import { type ClientMessage, ServerMessageSchema } from "../../shared/protocol.ts";
import type {
  DraftRelayMessage,
  DraftStateMessage,
  ErrorMessage,
  HostKeyMessage,
  PreparingMessage,
  PresenceMessage,
  Reaction,
  ReactionsMessage,
  ResyncMessage,
  StatusMessage,
  WelcomeMessage,
} from "../../shared/protocol.ts";
import type { ClientBody, HostAction, SceneEvent } from "../../shared/types.ts";
import { ClockSync } from "./clock_sync.ts";

/** Where the link stands, for the HUD. */
export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

/** Why the link is in its state, and when the next attempt is due. */
export interface ConnectionInfo {
  /** Human reason, e.g. "connection lost" or "connected". */
  reason: string;
  /** While waiting to reconnect: when the next attempt starts, on the link's clock (`now`). */
  retryAtMs?: number;
}

/** What the link reports. Every callback receives an already validated frame. */
export interface NetHandlers {
  welcome(message: WelcomeMessage): void;
  heartbeat(horizon: number): void;
  event(event: SceneEvent): void;
  presence(message: PresenceMessage): void;
  error(message: ErrorMessage): void;
  resync(message: ResyncMessage): void;
  /** You are a host now (`key`: your new host key, to keep). */
  host?(message: HostKeyMessage): void;
  /** People in the scene (you too) sent quick reactions (at most a frame a quarter second). */
  reactions?(message: ReactionsMessage): void;
  /** Edits to the scene's shared show draft (composers only; yours come back too). */
  draft?(message: DraftRelayMessage): void;
  /** The whole shared show draft (composers, on arrival or when let compose). */
  draftState?(message: DraftStateMessage): void;
  /** For people who do not compose: whether a show is being prepared. */
  preparing?(message: PreparingMessage): void;
  /** Cluster mode: the sky paused (owner changing, NATS unreachable) or live again. */
  status?(message: StatusMessage): void;
  state(state: ConnectionState, info: ConnectionInfo): void;
  /** The server refused the name in `hello` (`reason`); the link joins without one. */
  nameRefused(name: string, reason: string): void;
  /** A frame that failed validation (a bug on one side); the link stays up. */
  invalid(reason: string): void;
}

/** Options for {@link Net}. */
export interface NetOptions {
  url: string;
  /** Display name sent in `hello`. */
  name?: string;
  /** This browser's person token, sent in every `hello` (see `personToken`). */
  person?: string;
  /** The `seq` to resume after when reconnecting, or `undefined` for a fresh welcome. */
  resumeFrom(): number | undefined;
  handlers: NetHandlers;
  /** Local monotonic clock in ms (tests may substitute it). */
  now?: () => number;
}

/**
 * Reconnect backoff: 0.5 s doubling to at most 3 s (±25 % jitter). A failed attempt while the
 * server is down costs it nothing, so the cap is short: a page notices a returning server within
 * ~3 s (with a 10 s cap it waited ~11 s after a restart).
 */
const BACKOFF = { firstMs: 500, maxMs: 3_000 } as const;
/**
 * The link's watchdog: heartbeats arrive every ≤ 50 ms, so `silenceMs` without a frame means the
 * link is dead; the silence is checked every `checkMs`.
 */
const WATCHDOG = { silenceMs: 5_000, checkMs: 1_000 } as const;
/**
 * Clock-sync pings from each welcome on: the first `startup` of them `startupGapMs` apart (a good
 * offset soon after joining), then one every `intervalMs`.
 */
const PINGS = { startup: 5, startupGapMs: 120, intervalMs: 2_000 } as const;

/** One WebSocket connection to a scene, re-established automatically until {@link close}. */
export class Net {
  /** The synced server clock. */
  readonly clock = new ClockSync();
  private readonly options: NetOptions;
  private readonly now: () => number;
  private socket: WebSocket | null = null;
  private connectionState: ConnectionState = "connecting";
  private attempts = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private pingTimer: ReturnType<typeof setTimeout> | undefined;
  private watchdogTimer: ReturnType<typeof setInterval> | undefined;
  private pingsSent = 0;
  private lastFrameMs = 0;
  private wantFresh = false;
  private stopped = false;
  /** Set by {@link reconnectNow}: the next close reopens at once instead of backing off. */
  private reopenAtOnce = false;
  /** The name sent in the hello not yet answered by a welcome. */
  private pendingName: string | undefined;

  constructor(options: NetOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
  }

  /** Current connection state. */
  get state(): ConnectionState {
    return this.connectionState;
  }

  /** True while the socket is open and welcomed. */
  get connected(): boolean {
    return this.connectionState === "open";
  }

  /**
   * Network round trip in ms: the clock filter's best recent sample (a busy main thread only ever
   * adds to a measured round trip), or NaN before the first pong and while not connected.
   */
  get latencyMs(): number {
    return this.connected && Number.isFinite(this.clock.rttMs) ? this.clock.rttMs : NaN;
  }

  /** The display name sent in `hello` (undefined: the server picks one). */
  get name(): string | undefined {
    return this.options.name;
  }

  /** Opens the link. */
  connect(): void {
    this.stopped = false;
    this.open();
  }

  /** Sends a frame if the link is open and welcomed; returns whether it was sent. */
  send(message: ClientMessage): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    // Before the welcome the server refuses everything but hello ("send hello first").
    if (message.t !== "hello" && !this.connected) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  /**
   * Drops the current connection and reconnects asking for a full welcome (no resume), used when
   * the local event stream can no longer be trusted (a gap in `seq`).
   */
  restartFresh(): void {
    this.wantFresh = true;
    this.socket?.close(4000, "client restarts from a fresh welcome");
  }

  /** Sends a host action for the server to check; false when not connected. */
  hostAction(action: HostAction): boolean {
    return this.send({ t: "host", action });
  }

  /** Sends a quick reaction to everyone in the scene; false when not connected. */
  react(emoji: Reaction): boolean {
    return this.send({ t: "react", emoji });
  }

  /** Submits an event body for the server to stamp and forward; false when not connected. */
  submit(body: ClientBody): boolean {
    return this.send({ t: "submit", body });
  }

  /**
   * Tries again now: while waiting out a backoff, starts the next attempt at once; while
   * connected, reconnects (resuming) at once, e.g. to say hello under a new name.
   */
  reconnectNow(): void {
    if (this.stopped) return;
    if (this.socket) {
      this.reopenAtOnce = true;
      this.socket.close(4002, "client reconnects");
      return;
    }
    clearTimeout(this.reconnectTimer);
    this.open();
  }

  /**
   * Goes by another display name: on an open link one `rename` frame (the others see one presence
   * `rename`, not a leave and a join); otherwise the next hello carries it.
   */
  rename(name: string | undefined): void {
    this.options.name = name;
    this.send(name === undefined ? { t: "rename" } : { t: "rename", name });
  }

  /** Closes the link for good. */
  close(): void {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.stopTimers();
    this.socket?.close(1000, "bye");
    this.socket = null;
    this.setState("closed", { reason: "closed" });
  }

  private open(): void {
    this.setState(this.attempts === 0 ? "connecting" : "reconnecting", { reason: "connecting…" });
    const socket = new WebSocket(this.options.url);
    this.socket = socket;
    socket.onopen = () => this.onOpen(socket);
    socket.onmessage = (message) => this.onFrame(message.data);
    socket.onclose = (event) => this.onClose(socket, event.code, event.reason);
    // onerror always precedes onclose; the close handler does the work.
    socket.onerror = () => {};
  }

  private onOpen(socket: WebSocket): void {
    if (socket !== this.socket) return;
    const resume = this.wantFresh ? undefined : this.options.resumeFrom();
    this.wantFresh = false;
    this.pendingName = this.options.name;
    this.sayHello(resume);
    this.lastFrameMs = this.now();
    this.pingsSent = 0;
    let lastCheckMs = this.now();
    this.watchdogTimer = setInterval(() => {
      const nowMs = this.now();
      // A check this late means the page itself stalled (a busy or throttled tab): frames that
      // arrived meanwhile wait behind this callback, so the silence is ours, not the server's.
      const stalled = nowMs - lastCheckMs > 2 * WATCHDOG.checkMs;
      lastCheckMs = nowMs;
      if (stalled) {
        this.lastFrameMs = Math.max(this.lastFrameMs, nowMs - WATCHDOG.checkMs);
      } else if (nowMs - this.lastFrameMs > WATCHDOG.silenceMs) {
        socket.close(4001, "no heartbeat from the server");
      }
    }, WATCHDOG.checkMs);
  }

  private sayHello(resume: number | undefined): void {
    const hello: ClientMessage = { t: "hello" };
    if (this.pendingName) hello.name = this.pendingName;
    if (resume !== undefined) hello.lastSeq = resume;
    if (this.options.person) hello.person = this.options.person;
    this.send(hello);
  }

  private onFrame(data: unknown): void {
    this.lastFrameMs = this.now();
    if (typeof data !== "string") {
      this.options.handlers.invalid("binary frame from the server");
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      this.options.handlers.invalid("server frame is not JSON");
      return;
    }
    const parsed = ServerMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.options.handlers.invalid(`server frame failed validation: ${parsed.error.message}`);
      return;
    }
    const message = parsed.data;
    const handlers = this.options.handlers;
    switch (message.t) {
      case "welcome":
        this.attempts = 0;
        this.pendingName = undefined;
        this.clock.hint(message.horizon, this.lastFrameMs);
        this.setState("open", { reason: "connected" });
        // Pings wait for the welcome: before it the server answers anything but hello with an error.
        if (this.pingTimer === undefined) this.schedulePing(0);
        handlers.welcome(message);
        break;
      case "tick":
        handlers.heartbeat(message.n);
        break;
      case "event": {
        const { t: _t, ...event } = message;
        handlers.event(event);
        break;
      }
      case "presence":
        handlers.presence(message);
        break;
      case "pong":
        this.clock.addSample(message.ct, this.lastFrameMs, message.n);
        break;
      case "error":
        if (!this.connected && this.pendingName !== undefined && message.code === "bad_message") {
          // The hello was refused, and only its name can be at fault: join without one.
          const name = this.pendingName;
          this.pendingName = undefined;
          this.options.name = undefined;
          handlers.nameRefused(name, message.message);
          this.sayHello(this.wantFresh ? undefined : this.options.resumeFrom());
          break;
        }
        handlers.error(message);
        break;
      case "resync":
        handlers.resync(message);
        break;
      case "status":
        handlers.status?.(message);
        break;
      case "reactions":
        handlers.reactions?.(message);
        break;
      case "host":
        handlers.host?.(message);
        break;
      case "draft":
        handlers.draft?.(message);
        break;
      case "draft-state":
        handlers.draftState?.(message);
        break;
      case "preparing":
        handlers.preparing?.(message);
        break;
    }
  }

  private onClose(socket: WebSocket, code: number, reason: string): void {
    if (socket !== this.socket) return;
    this.stopTimers();
    this.socket = null;
    if (this.stopped) return;
    if (this.reopenAtOnce) {
      this.reopenAtOnce = false;
      this.open();
      return;
    }
    const delay = Math.min(BACKOFF.maxMs, BACKOFF.firstMs * 2 ** this.attempts) *
      (0.75 + Math.random() * 0.5);
    this.attempts++;
    const why = reason || (code === 1006 ? "connection lost" : `closed (${code})`);
    this.setState("reconnecting", { reason: why, retryAtMs: this.now() + delay });
    this.reconnectTimer = setTimeout(() => this.open(), delay);
  }

  private schedulePing(delayMs: number): void {
    this.pingTimer = setTimeout(() => {
      this.send({ t: "ping", id: this.pingsSent, ct: this.now() });
      this.pingsSent++;
      this.schedulePing(
        this.pingsSent < PINGS.startup ? PINGS.startupGapMs : PINGS.intervalMs,
      );
    }, delayMs);
  }

  private stopTimers(): void {
    clearTimeout(this.pingTimer);
    this.pingTimer = undefined;
    clearInterval(this.watchdogTimer);
  }

  private setState(state: ConnectionState, info: ConnectionInfo): void {
    this.connectionState = state;
    this.options.handlers.state(state, info);
  }
}
