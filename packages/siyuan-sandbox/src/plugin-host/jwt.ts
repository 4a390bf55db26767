/** The plugin JWT (`CreatePluginJWT`, contract §9): HS256, a per-"process" random key. */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString("base64url");

/** Signs and checks plugin tokens; `rotate()` models a kernel restart (a new random key). */
export class PluginJwt {
  private key = randomBytes(32);

  rotate(): void {
    this.key = randomBytes(32);
  }

  /** A token for one plugin start. */
  sign(pluginName: string): string {
    const head = b64({ alg: "HS256", typ: "JWT" });
    const claims = b64({
      iss: "siyuan-kernel",
      sub: pluginName,
      aud: "siyuan-kernel-plugin",
      role: "administrator",
      iat: Math.floor(Date.now() / 1000),
    });
    const sig = createHmac("sha256", this.key).update(`${head}.${claims}`).digest("base64url");
    return `${head}.${claims}.${sig}`;
  }

  /** The plugin name when `token` is a valid plugin JWT signed with the current key, else null. */
  verify(token: string): string | null {
    const parts = token.split(".");
    if (parts.length !== 3) return null;
    const want = createHmac("sha256", this.key).update(`${parts[0]}.${parts[1]}`).digest();
    const got = Buffer.from(parts[2]!, "base64url");
    if (got.length !== want.length || !timingSafeEqual(got, want)) return null;
    try {
      const c = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as Record<
        string,
        unknown
      >;
      if (c.iss !== "siyuan-kernel" || c.aud !== "siyuan-kernel-plugin") return null;
      return typeof c.sub === "string" ? c.sub : null;
    } catch {
      return null;
    }
  }
}
