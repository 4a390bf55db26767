/** `/api/sync/performSync` (kernel/api/sync.go): `data: null` always; the outcome is a toast. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../src/index.js";
import { post, start } from "./helpers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await start();
});
afterAll(() => sb.stop());

describe("/api/sync/performSync", () => {
  it("answers code 0 and data null, and tells the user sync is not enabled", async () => {
    const before = sb.control.messages().length;
    const r = await post(sb, "/api/sync/performSync", {});
    expect(r).toEqual({ status: 200, body: { code: 0, msg: "", data: null } });
    const pushed = sb.control.messages().slice(before);
    expect(pushed).toHaveLength(1);
    expect(pushed[0]).toMatchObject({ timeout: 5000, error: false });
    expect(pushed[0]!.msg).toMatch(/sync/i);
  });

  it("the mobile app's automatic sync returns silently", async () => {
    const before = sb.control.messages().length;
    const r = await post(sb, "/api/sync/performSync", { mobileSwitch: true });
    expect(r.body).toEqual({ code: 0, msg: "", data: null });
    expect(sb.control.messages()).toHaveLength(before);
  });

  it("needs a JSON object body and the token", async () => {
    const empty = await post(sb, "/api/sync/performSync", undefined);
    expect(empty.body.code).toBe(-1);
    const anonymous = await post(sb, "/api/sync/performSync", {}, { token: null });
    expect(anonymous.status).toBe(401);
  });
});
