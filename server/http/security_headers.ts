/**
 * Security headers on every HTTP response (Hono middleware): a Content-Security-Policy that fits
 * the scene page (scripts from this origin only, no eval, no framing), `nosniff`, and no
 * referrer leaking scene ids to other sites. WebSocket upgrades pass untouched.
 */
import { createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";

/** A CSP source for one inline `<style>` block (the error page has one). */
export function styleHash(css: string): string {
  return `'sha256-${createHash("sha256").update(css).digest("base64")}'`;
}

/**
 * The policy for a request to `host`. `connect-src` names the WebSocket schemes explicitly:
 * some browsers do not let `'self'` cover `ws:`/`wss:`.
 *
 * @example
 * ```ts
 * contentSecurityPolicy("localhost:8000", []);
 * // "default-src 'self'; script-src 'self'; ... frame-ancestors 'none'"
 * ```
 */
export function contentSecurityPolicy(host: string | undefined, inlineStyles: string[]): string {
  const sockets = host && /^[a-z0-9.:\[\]-]+$/i.test(host) ? ` ws://${host} wss://${host}` : "";
  return [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self'${inlineStyles.map((s) => ` ${s}`).join("")}`,
    // The favicon is a data: URL; canvases the client draws may become blob:/data: images.
    "img-src 'self' data: blob:",
    `connect-src 'self'${sockets}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Middleware adding the headers to every response but a WebSocket upgrade. */
export function securityHeaders(inlineStyles: string[] = []): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.res.status === 101) return;
    const headers = c.res.headers;
    headers.set(
      "content-security-policy",
      contentSecurityPolicy(c.req.header("host"), inlineStyles),
    );
    headers.set("x-content-type-options", "nosniff");
    headers.set("referrer-policy", "no-referrer");
  };
}
