/**
 * Bench-only timing tap, preloaded into the server under test with `node --require` (never part of
 * the product): records, in milliseconds of the monotonic clock (`process.hrtime`, one clock for
 * every process on the machine; `performance.timeOrigin` differs between processes by tens of ms), the interval of every MCP HTTP request the server handled, of every
 * kernel call it made (undici's diagnostics channels: request created → response complete), of
 * every settings read (its one `node:http` client request: request start → response finished)
 * and of every fsync/fdatasync its stores awaited. On SIGUSR2 it writes what it holds to
 * `SISYPHUS_TAP_FILE` (as `<file>.tmp`, then renamed) and starts afresh. With
 * `SISYPHUS_TAP_PROFILE=1` the first dump also starts V8's sampling profiler (100 µs) and the next
 * one stops it and writes `<file>.cpuprofile` first, so the profile covers exactly that window
 * (and so on: every odd dump starts a window, every even one ends it).
 */
"use strict";
const dc = require("node:diagnostics_channel");
const fs = require("node:fs");

const now = () => Number(process.hrtime.bigint()) / 1e6;
/** @type {{kind: string, start: number, end: number, path?: string}[]} */
let records = [];
const open = new WeakMap();

dc.subscribe("http.server.request.start", ({ request, response }) => {
  const start = now();
  response.once("finish", () =>
    records.push({ kind: "mcp", start, end: now(), path: request.url }),
  );
});
dc.subscribe("undici:request:create", ({ request }) => open.set(request, now()));
/** Records the interval of a client request opened above, as `kind`, when it ends. */
const closer =
  (kind) =>
  ({ request }) => {
    const start = open.get(request);
    if (start !== undefined) records.push({ kind, start, end: now(), path: request.path });
    open.delete(request);
  };
dc.subscribe("undici:request:trailers", closer("kernel"));
dc.subscribe("undici:request:error", closer("kernel"));
// The settings read is the server's one `node:http` client request (settings-reader.ts).
dc.subscribe("http.client.request.start", ({ request }) => open.set(request, now()));
dc.subscribe("http.client.response.finish", closer("settings"));

/** Wraps an async method of FileHandle so its awaited time is recorded as `kind`. */
function timeMethod(proto, name, kind) {
  const inner = proto[name];
  proto[name] = async function timed(...args) {
    const start = now();
    try {
      return await inner.apply(this, args);
    } finally {
      records.push({ kind, start, end: now() });
    }
  };
}
fs.promises.open(__filename, "r").then((h) => {
  const proto = Object.getPrototypeOf(h);
  timeMethod(proto, "datasync", "fsync");
  timeMethod(proto, "sync", "fsync");
  return h.close();
});
for (const name of ["fsyncSync", "fdatasyncSync"]) {
  const inner = fs[name];
  fs[name] = (fd) => {
    const start = now();
    try {
      return inner(fd);
    } finally {
      records.push({ kind: "fsync", start, end: now() });
    }
  };
}

let session;
let profiling = false;
/** Starts the profiler on odd calls; stops it and writes the profile on even ones. */
function toggleProfiler(file, then) {
  if (session === undefined) {
    session = new (require("node:inspector").Session)();
    session.connect();
  }
  if (!profiling) {
    profiling = true;
    session.post("Profiler.enable", () =>
      session.post("Profiler.setSamplingInterval", { interval: 100 }, () =>
        session.post("Profiler.start", then),
      ),
    );
    return;
  }
  profiling = false;
  session.post("Profiler.stop", (_err, { profile }) => {
    fs.writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile));
    then();
  });
}

process.on("SIGUSR2", () => {
  const file = process.env.SISYPHUS_TAP_FILE;
  const out = records;
  records = [];
  const write = () => {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(out));
    fs.renameSync(`${file}.tmp`, file);
  };
  if (process.env.SISYPHUS_TAP_PROFILE === "1") toggleProfiler(file, write);
  else write();
});
