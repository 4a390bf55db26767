/**
 * `/transfer/upload` and `/transfer/lookup` of the built plugin in the sandbox's kernel-plugin
 * host: raw and JSON uploads hashed in the plugin (checked against node:crypto), percent-encoded
 * names, every limit and refusal, lookup never creating a source, staging admission (2 at a time,
 * 429) on a host that does not serialise paths and what a serialising host does instead, `/health`
 * counts, and a reload forgetting everything.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Sandbox } from "@sisyphus/siyuan-sandbox";
import { waitFor } from "@sisyphus/siyuan-sandbox/testing";
import { afterAll, describe, expect, it } from "vitest";
import { PLUGIN_NAME, routeOf, sandboxWithPlugin, useSandboxWithPlugin } from "./harness.js";

/**
 * Tests that stage 20–42 MiB: goja, SiYuan's engine, runs the portable SHA-256 at about 0.2 MiB/s
 * (V8: about 400), so in the goja engine they take minutes, not seconds (docs/fidelity.md).
 */
const HASHING_HEAVY_MS = 600_000;
const MIB = 1024 * 1024;
const box = useSandboxWithPlugin();
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function answer(res: Response): Promise<Answer> {
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    headers: res.headers,
  };
}

const auth = (sb: Sandbox) => ({ authorization: `Token ${sb.token}` });

/** A raw upload; `name` is sent percent-encoded unless `header` gives the header's exact value. */
async function uploadRaw(
  sb: Sandbox,
  name: string | undefined,
  bytes: Uint8Array,
  extra: Record<string, string> = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    ...auth(sb),
    "content-type": "application/octet-stream",
    ...extra,
  };
  if (name !== undefined) headers["x-sisyphus-file-name"] = encodeURIComponent(name);
  return answer(
    await fetch(routeOf(sb, "/transfer/upload"), { method: "POST", headers, body: bytes }),
  );
}

async function postJson(sb: Sandbox, path: string, body: unknown): Promise<Answer> {
  return answer(
    await fetch(routeOf(sb, path), {
      method: "POST",
      headers: { ...auth(sb), "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

const uploadJson = (sb: Sandbox, fileName: unknown, bytes: Uint8Array) =>
  postJson(sb, "/transfer/upload", {
    fileName,
    dataBase64: Buffer.from(bytes).toString("base64"),
  });

const lookup = (sb: Sandbox, fileName: string, digest: string, size: number) =>
  postJson(sb, "/transfer/lookup", { fileName, sha256: digest, size });

async function health(sb: Sandbox): Promise<Record<string, unknown>> {
  return (await fetch(routeOf(sb, "/health"), { headers: auth(sb) })).json() as Promise<
    Record<string, unknown>
  >;
}

describe("kernel file transfer", () => {
  it("stages raw and JSON uploads under one handle with the kernel's full SHA-256; lookup finds only that", async () => {
    const sb = box.current;
    await sb.plugins.reload(PLUGIN_NAME);
    const bytes = randomBytes(300_000);
    const raw = await uploadRaw(sb, "photo.png", bytes);
    expect(raw.status).toBe(200);
    expect(raw.body).toEqual({
      uploadSource: expect.stringMatching(/^stg_[0-9a-f]{32}$/),
      fileName: "photo.png",
      sha256: sha(bytes),
      size: bytes.length,
      expiresAt: expect.any(String),
      reused: false,
    });
    const expires = Date.parse(raw.body["expiresAt"] as string) - Date.now();
    expect(expires).toBeGreaterThan(9 * 60_000);
    expect(expires).toBeLessThanOrEqual(10 * 60_000);
    const json = await uploadJson(sb, "photo.png", bytes);
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({
      uploadSource: raw.body["uploadSource"],
      sha256: sha(bytes),
      reused: true,
    });
    const other = await uploadJson(sb, "photo-2.png", bytes);
    expect(other.body["uploadSource"]).not.toBe(raw.body["uploadSource"]);

    const hit = await lookup(sb, "photo.png", sha(bytes), bytes.length);
    expect(hit).toMatchObject({ status: 200 });
    expect(hit.body).toMatchObject({
      found: true,
      uploadSource: raw.body["uploadSource"],
      fileName: "photo.png",
      sha256: sha(bytes),
      size: bytes.length,
    });
    expect(
      (await lookup(sb, "photo.png", sha(bytes).toUpperCase(), bytes.length)).body,
    ).toMatchObject({ found: true });
    for (const [name, digest, size] of [
      ["Photo.png", sha(bytes), bytes.length],
      ["photo.png", sha(bytes), bytes.length + 1],
      ["photo.png", sha(randomBytes(16)), bytes.length],
    ] as const) {
      expect((await lookup(sb, name, digest, size)).body).toEqual({ found: false });
    }
    // a claimed digest never creates a source
    const unseen = randomBytes(64);
    expect((await lookup(sb, "unseen.bin", sha(unseen), 64)).body).toEqual({ found: false });
    expect(await health(sb)).toMatchObject({ stagingEntries: 2, stagingBytes: 2 * bytes.length });
    expect((await lookup(sb, "unseen.bin", sha(unseen), 64)).body).toEqual({ found: false });

    const short = await lookup(sb, "photo.png", sha(bytes).slice(0, 16), bytes.length);
    expect(short).toMatchObject({ status: 400, body: { error: "invalid_sha256" } });
    expect(await lookup(sb, "photo.png", sha(bytes), -1)).toMatchObject({
      status: 400,
      body: { error: "invalid_size" },
    });
    expect(await lookup(sb, "../photo.png", sha(bytes), 1)).toMatchObject({
      status: 400,
      body: { error: "invalid_file_name", details: { reason: "separator" } },
    });
    expect(await postJson(sb, "/transfer/lookup", "{")).toMatchObject({
      status: 400,
      body: { error: "invalid_json" },
    });

    // With a commit's credential the lookup also answers `source`, from the alias pool: an alias
    // this kernel never issued is `unknown` (the commit then answers for itself), never compared
    // with the digest's first digits.
    const credential = (expectedSourceHash: unknown) =>
      postJson(sb, "/transfer/lookup", {
        fileName: "photo.png",
        sha256: sha(bytes),
        size: bytes.length,
        expectedSourceHash,
      });
    expect((await credential(`sha256:v1:${sha(bytes).slice(0, 6)}`)).body).toMatchObject({
      found: true,
      source: { credential: "unknown" },
    });
    expect(await credential(7)).toMatchObject({
      status: 400,
      body: { error: "invalid_arguments" },
    });
  });

  it("takes percent-encoded UTF-8 names and refuses bad ones with a typed reason", async () => {
    const sb = box.current;
    const bytes = randomBytes(1000);
    const name = "报告 résumé+draft 😀.pdf";
    const raw = await uploadRaw(sb, name, bytes);
    expect(raw).toMatchObject({ status: 200, body: { fileName: name, sha256: sha(bytes) } });
    expect((await uploadJson(sb, name, bytes)).body["uploadSource"]).toBe(raw.body["uploadSource"]);

    const refusals: Array<[string | undefined, string]> = [
      [undefined, "missing"],
      ["", "empty"],
      ["..%2Fx", "separator"],
      ["%2F", "separator"],
      ["a%5Cb", "separator"],
      ["..", "dot_segment"],
      ["a%00b", "control_character"],
      ["x".repeat(256), "too_long"],
      ["%E0%A4%A", "bad_percent_encoding"],
      ["%FF", "bad_percent_encoding"],
    ];
    for (const [header, reason] of refusals) {
      const headers: Record<string, string> =
        header === undefined ? {} : { "x-sisyphus-file-name": header };
      const res = await uploadRaw(sb, undefined, bytes, headers);
      expect(res, String(header)).toMatchObject({
        status: 400,
        body: { error: "invalid_file_name", details: { reason } },
      });
    }
    expect(await uploadJson(sb, undefined, bytes)).toMatchObject({
      status: 400,
      body: { error: "invalid_file_name", details: { reason: "missing" } },
    });
    expect(await uploadJson(sb, "a/b", bytes)).toMatchObject({
      status: 400,
      body: { details: { reason: "separator" } },
    });
  });

  it("refuses wrong content types, empty files, bad base64 and bad JSON; only POST", async () => {
    const sb = box.current;
    const url = routeOf(sb, "/transfer/upload");
    const plain = await fetch(url, {
      method: "POST",
      headers: { ...auth(sb), "content-type": "text/plain", "x-sisyphus-file-name": "a.txt" },
      body: "hello",
    });
    expect(await answer(plain)).toMatchObject({
      status: 415,
      body: { error: "unsupported_content_type" },
    });
    expect(await uploadRaw(sb, "e.bin", new Uint8Array(0))).toMatchObject({
      status: 400,
      body: { error: "empty_file" },
    });
    expect(await uploadJson(sb, "e.bin", new Uint8Array(0))).toMatchObject({
      status: 400,
      body: { error: "empty_file" },
    });
    for (const dataBase64 of ["abc", "ab!=", "YW Jj", "YWJj\n", "YQ===", "YW=j", "-_-_"]) {
      expect(
        await postJson(sb, "/transfer/upload", { fileName: "a", dataBase64 }),
        dataBase64,
      ).toMatchObject({ status: 400, body: { error: "invalid_base64" } });
    }
    expect(await postJson(sb, "/transfer/upload", { fileName: "a" })).toMatchObject({
      status: 400,
      body: { error: "invalid_arguments" },
    });
    expect(await postJson(sb, "/transfer/upload", "[1]")).toMatchObject({
      status: 400,
      body: { error: "invalid_json" },
    });
    expect((await fetch(url, { headers: auth(sb) })).status).toBe(405);
    expect(
      (await fetch(routeOf(sb, "/transfer/other"), { method: "POST", headers: auth(sb) })).status,
    ).toBe(404);
    expect((await fetch(url, { method: "POST" })).status).toBe(401);
  });

  it(
    "holds 10 MiB per file, 32 MiB and 64 entries in total, never evicting a live entry",
    async () => {
      const sb = box.current;
      await sb.plugins.reload(PLUGIN_NAME);
      const atCap = randomBytes(10 * MIB);
      const firstStagedAt = Date.now();
      const first = await uploadRaw(sb, "cap.bin", atCap);
      expect(first).toMatchObject({ status: 200, body: { size: 10 * MIB, sha256: sha(atCap) } });
      const over = randomBytes(10 * MIB + 1);
      expect(await uploadRaw(sb, "over.bin", over)).toMatchObject({
        status: 413,
        body: { error: "file_too_large", details: { size: 10 * MIB + 1, limit: 10 * MIB } },
      });
      expect(await uploadJson(sb, "over.bin", over)).toMatchObject({
        status: 413,
        body: { error: "file_too_large" },
      });
      // 3 × 10 MiB + 2 MiB = 32 MiB: full; one byte more is refused
      for (const n of [1, 2]) {
        expect((await uploadRaw(sb, `cap-${n}.bin`, randomBytes(10 * MIB))).status).toBe(200);
      }
      expect((await uploadRaw(sb, "two.bin", randomBytes(2 * MIB))).status).toBe(200);
      const full = await uploadRaw(sb, "one-more.bin", randomBytes(1));
      expect(full).toMatchObject({
        status: 507,
        body: {
          error: "staging_full",
          details: { limit: "bytes", entries: 4, bytes: 32 * MIB, maxTotalBytes: 32 * MIB },
        },
      });
      // until the oldest entry expires (10 min after it was staged; goja hashes the 32 MiB slowly)
      const retryAfter = Number(full.headers.get("retry-after"));
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect(retryAfter).toBeGreaterThanOrEqual(
        600 - Math.ceil((Date.now() - firstStagedAt) / 1000),
      );
      // the same content under the same name needs no room: the existing handle
      expect((await uploadRaw(sb, "cap.bin", atCap)).body).toMatchObject({
        uploadSource: first.body["uploadSource"],
        reused: true,
      });
      expect(await health(sb)).toMatchObject({
        stagingEntries: 4,
        stagingBytes: 32 * MIB,
        stagingRejectedFull: 1,
      });

      await sb.plugins.reload(PLUGIN_NAME);
      for (let i = 0; i < 64; i++) {
        expect((await uploadRaw(sb, `n${i}.txt`, Buffer.from(`entry ${i}`))).status).toBe(200);
      }
      expect(await uploadRaw(sb, "n64.txt", Buffer.from("entry 64"))).toMatchObject({
        status: 507,
        body: { error: "staging_full", details: { limit: "entries", entries: 64, maxEntries: 64 } },
      });
    },
    HASHING_HEAVY_MS,
  );

  it("forgets every staged file on a plugin reload", async () => {
    const sb = box.current;
    await sb.plugins.reload(PLUGIN_NAME);
    const bytes = randomBytes(5000);
    expect((await uploadRaw(sb, "kept.bin", bytes)).status).toBe(200);
    expect((await lookup(sb, "kept.bin", sha(bytes), 5000)).body).toMatchObject({ found: true });
    await sb.plugins.reload(PLUGIN_NAME);
    expect((await lookup(sb, "kept.bin", sha(bytes), 5000)).body).toEqual({ found: false });
    const h = await health(sb);
    expect(h).toMatchObject({
      stagingInFlight: 0,
      stagingEntries: 0,
      stagingBytes: 0,
      stagingRejectedBusy: 0,
      stagingRejectedFull: 0,
    });
  });

  it("shows counts, never names, handles or content, in /health", async () => {
    const sb = box.current;
    await sb.plugins.reload(PLUGIN_NAME);
    const staged = await uploadRaw(sb, "secret-name.bin", Buffer.from("secret content"));
    const h = await health(sb);
    expect(h).toMatchObject({ stagingInFlight: 0, stagingEntries: 1, stagingBytes: 14 });
    const text = JSON.stringify(h);
    for (const s of [
      "secret",
      staged.body["uploadSource"] as string,
      staged.body["sha256"] as string,
    ]) {
      expect(text).not.toContain(s);
    }
  });

  it(
    "queues uploads per path on a host that serialises paths: the cap of 2 is never reached",
    async () => {
      const sb = box.current;
      await sb.plugins.reload(PLUGIN_NAME);
      const files = [0, 1, 2].map(() => randomBytes(4 * MIB));
      let peak = 0;
      let done = false;
      const watch = (async () => {
        while (!done) {
          peak = Math.max(peak, (await health(sb))["stagingInFlight"] as number);
        }
      })();
      const answers = await Promise.all(files.map((b, i) => uploadRaw(sb, `q${i}.bin`, b)));
      done = true;
      await watch;
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(answers.map((a) => a.body["sha256"])).toEqual(files.map(sha));
      expect(peak).toBeLessThanOrEqual(1);
      expect(await health(sb)).toMatchObject({ stagingRejectedBusy: 0, stagingEntries: 3 });
    },
    HASHING_HEAVY_MS,
  );
});

describe("staging admission on a host that does not serialise paths", () => {
  const started: Sandbox[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
  });

  it(
    "hashes two uploads at a time and answers 429 to a third meanwhile",
    async () => {
      const sb = await sandboxWithPlugin({ serialisePaths: false });
      started.push(sb);
      let busy: Answer | undefined;
      // Each round starts two 10 MiB stagings, waits until /health shows both hashing, then sends a
      // third; a round whose pair finished before the third arrived is repeated after a reload (at
      // most 5 rounds).
      for (let round = 0; round < 5 && busy === undefined; round++) {
        const pair = [0, 1].map(() => randomBytes(10 * MIB));
        const running = pair.map((b, i) => uploadRaw(sb, `r${round}-${i}.bin`, b));
        await waitFor(
          async () => {
            const h = await health(sb);
            return h["stagingInFlight"] === 2 || (h["stagingEntries"] as number) >= 2;
          },
          // checked back to back, as the window with both hashing can be short
          { what: "both stagings hashing, or both done", intervalMs: 1, timeoutMs: 120_000 },
        );
        const third = await uploadRaw(sb, `third-${round}.bin`, randomBytes(1000));
        const results = await Promise.all(running);
        expect(results.map((r) => r.body["sha256"])).toEqual(pair.map(sha));
        if (third.status === 429) busy = third;
        else await sb.plugins.reload(PLUGIN_NAME);
      }
      expect(busy).toMatchObject({
        status: 429,
        body: { error: "staging_busy", details: { limit: 2 } },
      });
      expect(busy?.headers.get("retry-after")).toBe("1");
      const h = await health(sb);
      expect(h["stagingRejectedBusy"]).toBe(1);
      expect(h["stagingInFlight"]).toBe(0);
    },
    HASHING_HEAVY_MS,
  );
});
