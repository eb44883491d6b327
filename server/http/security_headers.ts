/**
 * Security headers on every HTTP response, through Hono's maintained `hono/secure-headers`
 * middleware: a Content-Security-Policy that fits the scene page (scripts from this origin only,
 * no eval, framing only by the sites FRAME_ANCESTORS names), `nosniff`, no referrer leaking scene
 * ids to other sites, X-Frame-Options DENY unless sites may frame the page (it cannot name them;
 * the CSP's `frame-ancestors` does, and browsers that know it ignore X-Frame-Options), and the
 * middleware's other defaults. Strict-Transport-Security is left to whoever terminates TLS (a
 * server here may be plain HTTP on a LAN; the default would pin every subdomain for 180 days).
 * WebSocket upgrades pass untouched.
 */
import { createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/** A CSP source for one inline `<style>` block (the error page has one). */
export function styleHash(css: string): string {
  return `'sha256-${createHash("sha256").update(css).digest("base64")}'`;
}

/** What {@link securityHeaders} allows beyond its defaults. */
export interface SecurityHeaderOptions {
  /** CSP hashes of inline `<style>` blocks ({@link styleHash}). */
  inlineStyles?: string[];
  /** Origins allowed to frame the pages (FRAME_ANCESTORS); none by default. */
  frameAncestors?: string[];
}

/** The WebSocket sources for a request to `host` (none for a host that is not a plain name). */
function socketSources(host: string | undefined): string[] {
  return host && /^[a-z0-9.:\[\]-]+$/i.test(host) ? [`ws://${host}`, `wss://${host}`] : [];
}

/**
 * The CSP's directives (Hono writes them out). `connect-src` names the WebSocket schemes
 * explicitly, through a function of the request: some browsers do not let `'self'` cover
 * `ws:`/`wss:`.
 */
function directives(inlineStyles: string[], frameAncestors: string[]) {
  const sockets = (c: Context) => socketSources(c.req.header("host")).join(" ");
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", ...inlineStyles],
    // The favicon is a data: URL; canvases the client draws may become blob:/data: images.
    imgSrc: ["'self'", "data:", "blob:"],
    connectSrc: ["'self'", sockets],
    workerSrc: ["'self'", "blob:"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: frameAncestors.length > 0 ? frameAncestors : ["'none'"],
  };
}

/**
 * Middleware adding the headers to every response but a WebSocket upgrade.
 *
 * @example
 * ```ts
 * app.use("*", securityHeaders({ frameAncestors: ["https://blog.example"] }));
 * ```
 */
export function securityHeaders(options: SecurityHeaderOptions = {}): MiddlewareHandler {
  const frameAncestors = options.frameAncestors ?? [];
  const headers = secureHeaders({
    contentSecurityPolicy: directives(options.inlineStyles ?? [], frameAncestors),
    xFrameOptions: frameAncestors.length > 0 ? false : "DENY",
    strictTransportSecurity: false,
  });
  return (c, next) =>
    c.req.header("upgrade")?.toLowerCase() === "websocket" ? next() : headers(c, next);
}
