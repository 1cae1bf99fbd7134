import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * NeMo Gym's session cookie, as its servers set and read it: Starlette's SessionMiddleware
 * (installed by `SimpleServer.setup_session_middleware`) keeps `request.session` in one cookie
 * named `<ServerClass>___<server name>`, whose value is `base64(json(session))` signed by
 * itsdangerous' TimestampSigner (HMAC-SHA1 over a django-concat derived key, with a timestamp).
 * The session dict holds `session_id` (SESSION_ID_KEY, a uuid4). NeMo Gym's agents never look
 * inside: they carry the cookie jar from `/seed_session` to every tool call and `/verify`.
 *
 * rlenv keeps the format and the attributes (path=/, Max-Age of 14 days, httponly, samesite=lax)
 * but signs with a random key per server start: NeMo Gym's key is the cookie's own name (its
 * comment says a product would override it), which would let anyone mint a cookie.
 */

/** The key NeMo Gym's servers read the session id under (nemo_gym.server_utils.SESSION_ID_KEY). */
export const SESSION_ID_KEY = "session_id";
/** Starlette's default max_age: 14 days, in seconds. */
export const SESSION_MAX_AGE_S = 14 * 24 * 60 * 60;
/** `<ServerClass>___<server name>`, as SimpleServer.get_session_middleware_key spells it. */
export const SESSION_COOKIE = "RlenvResourcesServer___rlenv_serve";

const SALT = "itsdangerous.Signer";

const b64url = (b: Buffer) => b.toString("base64url");

function intToBytes(n: number): Buffer {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from(bytes);
}

function bytesToInt(b: Buffer): number {
  let n = 0;
  for (const byte of b) n = n * 256 + byte;
  return n;
}

/** itsdangerous' TimestampSigner with its defaults (salt "itsdangerous.Signer", key derivation django-concat, SHA-1). */
export class SessionSigner {
  private readonly key: Buffer;

  constructor(secret: string | Buffer = randomBytes(32).toString("hex")) {
    this.key = createHash("sha1")
      .update(Buffer.concat([Buffer.from(SALT), Buffer.from("signer"), Buffer.from(secret)]))
      .digest();
  }

  private signature(value: string): string {
    return b64url(createHmac("sha1", this.key).update(value).digest());
  }

  /** `value.timestamp.signature`, the timestamp in whole seconds. */
  sign(value: string, nowS = Math.floor(Date.now() / 1000)): string {
    const stamped = `${value}.${b64url(intToBytes(nowS))}`;
    return `${stamped}.${this.signature(stamped)}`;
  }

  /** The value, or undefined when the signature is wrong, the format broken or the stamp older than maxAgeS. */
  unsign(signed: string, maxAgeS = SESSION_MAX_AGE_S, nowS = Math.floor(Date.now() / 1000)): string | undefined {
    const cut = signed.lastIndexOf(".");
    if (cut <= 0) return undefined;
    const stamped = signed.slice(0, cut);
    const given = Buffer.from(signed.slice(cut + 1));
    const expected = Buffer.from(this.signature(stamped));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const stampCut = stamped.lastIndexOf(".");
    if (stampCut <= 0) return undefined;
    const age = nowS - bytesToInt(Buffer.from(stamped.slice(stampCut + 1), "base64url"));
    if (age > maxAgeS) return undefined;
    return stamped.slice(0, stampCut);
  }
}

/** The session a NeMo Gym client's cookie carries, and the Set-Cookie that hands one out. */
export class SessionCookie {
  constructor(
    private readonly signer = new SessionSigner(),
    readonly name = SESSION_COOKIE,
  ) {}

  /** The value Starlette writes: base64 of the session dict's JSON (Python's json.dumps spacing), signed. */
  value(sessionId: string): string {
    const json = `{"${SESSION_ID_KEY}": ${JSON.stringify(sessionId)}}`;
    return this.signer.sign(Buffer.from(json).toString("base64"));
  }

  /** The Set-Cookie header, with SessionMiddleware's attributes. */
  header(sessionId: string): string {
    return `${this.name}=${this.value(sessionId)}; path=/; Max-Age=${SESSION_MAX_AGE_S}; httponly; samesite=lax`;
  }

  /** The session id of a request's cookie; undefined when it has none, or one not signed by this server. */
  read(req: IncomingMessage): string | undefined {
    const raw = cookieValue(req.headers.cookie, this.name);
    if (raw === undefined) return undefined;
    const payload = this.signer.unsign(raw);
    if (payload === undefined) return undefined;
    try {
      const session = JSON.parse(Buffer.from(payload, "base64").toString("utf8")) as unknown;
      const id = typeof session === "object" && session !== null ? (session as Record<string, unknown>)[SESSION_ID_KEY] : undefined;
      return typeof id === "string" ? id : undefined;
    } catch {
      return undefined;
    }
  }
}

/** One cookie's value from a Cookie header (quotes, as http.cookies may add them, taken off). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const v = part.slice(eq + 1).trim();
    return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
  }
  return undefined;
}
