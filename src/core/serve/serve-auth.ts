import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";

/** Whether a host name or address is this machine's loopback (what a server without a token may bind and answer). */
export function isLoopback(host: string | undefined): boolean {
  if (!host) return false;
  const h = host.replace(/^\[|\]$/g, "").replace(/^::ffff:/, "");
  if (h === "localhost" || h === "::1") return true;
  return isIP(h) === 4 && h.startsWith("127.");
}

/**
 * Whether a request may be answered: with a token, every route and WebSocket upgrade needs
 * `Authorization: Bearer <token>` (compared in constant time); without one, only loopback peers
 * (the server then binds loopback only too: see startServeServer).
 */
export function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return isLoopback(req.socket.remoteAddress);
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m?.[1]) return false;
  const given = Buffer.from(m[1].trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}
