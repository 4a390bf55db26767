/**
 * The sources run in a plugin's realm before `kernel.js` (contract §6), in two parts:
 *
 * - {@link VM_SHIM_SOURCE}, for the `vm` engine only: it trims a `node:vm` context to goja's
 *   built-ins and builds what goja_nodejs gives in SiYuan 3.7.3: `console`, `Buffer` (goja_nodejs's:
 *   `from`, `alloc`, `poolSize`; `toString`/`equals`/`read*`; encodings hex, utf8, utf-8, base64,
 *   base64Url), `URL`/`URLSearchParams`, timers and `require`. The `goja` engine has the real ones.
 * - {@link REALM_SOURCE}, for both engines: the frozen `siyuan` object over a bridge of host ("Go
 *   side") functions, and the internals the host calls into (lifecycle hooks, events, RPC, MCP
 *   tools, HTTP and SSE handlers). Everything crosses the bridge as JSON text and bytes, so the
 *   same source runs in V8 beside the host and in goja in another process (goja-host/main.go).
 */

/** Built-ins V8 has and goja 065cd970 lacks (contract §6), removed from the plugin realm. */
export const REMOVED_GLOBALS = [
  "Intl",
  "WeakRef",
  "FinalizationRegistry",
  "Atomics",
  "SharedArrayBuffer",
  "WebAssembly",
  "Iterator",
  "AsyncIterator",
  "Temporal",
  "ShadowRealm",
  "Float16Array",
  "DisposableStack",
  "AsyncDisposableStack",
  "SuppressedError",
  "console",
] as const;

export const VM_SHIM_SOURCE = String.raw`(function (bridge) {
  "use strict";
  var g = globalThis;
  function drop(obj, names) {
    if (!obj) return;
    for (var i = 0; i < names.length; i++) {
      try { delete obj[names[i]]; } catch (e) { /* non-configurable: residual risk */ }
    }
  }
  drop(g, bridge.removedGlobals);
  drop(Promise, ["withResolvers", "try"]);
  drop(Object, ["groupBy"]);
  drop(Map, ["groupBy"]);
  drop(Array, ["fromAsync"]);
  drop(Set.prototype, ["union", "intersection", "difference", "symmetricDifference",
    "isSubsetOf", "isSupersetOf", "isDisjointFrom"]);
  drop(Math, ["sumPrecise", "f16round"]);
  drop(String.prototype, ["isWellFormed", "toWellFormed"]);
  drop(RegExp, ["escape", "input", "$_", "lastMatch", "$&", "lastParen", "$+", "leftContext",
    "$\u0060", "rightContext", "$'", "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9"]);
  drop(ArrayBuffer.prototype, ["resize", "transfer", "transferToFixedLength", "resizable",
    "maxByteLength", "detached"]);
  drop(Uint8Array, ["fromBase64", "fromHex"]);
  drop(Uint8Array.prototype, ["toBase64", "toHex", "setFromBase64", "setFromHex"]);
  // Error.stackTraceLimit stays (goja has none): without it V8 gives errors no stack, and goja's do
  // have one (the kernel quotes a throw's innermost frame)
  drop(Error, ["captureStackTrace", "isError"]);
  drop(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())), ["map", "filter",
    "take", "drop", "flatMap", "reduce", "toArray", "forEach", "some", "every", "find"]);

  // RegExp built at run time: goja rejects the d/v flags; the sandbox also refuses what goja
  // would silently mistranslate (\p{...}, named groups), as the language check does for literals.
  var NativeRegExp = RegExp;
  var RegExpProxy = new Proxy(NativeRegExp, {
    construct: function (target, args, newTarget) {
      var src = args[0];
      var pattern = src instanceof NativeRegExp ? src.source : src === undefined ? "" : String(src);
      var flags = args[1] === undefined ? (src instanceof NativeRegExp ? src.flags : "") : String(args[1]);
      var v = bridge.regexViolation(pattern, flags);
      if (v) throw v.kind === "compile" ? new SyntaxError(v.message) : new Error("siyuan-sandbox: " + v.message);
      return Reflect.construct(target, args, newTarget === RegExpProxy ? target : newTarget);
    },
    apply: function (target, self, args) {
      return new RegExpProxy(args[0], args[1]);
    },
  });
  Object.defineProperty(g, "RegExp", { value: RegExpProxy, writable: true, configurable: true, enumerable: false });

  // ---- Buffer (goja_nodejs) ----
  var U8 = Uint8Array;
  var CODECS = { hex: 1, utf8: 1, "utf-8": 1, base64: 1, base64Url: 1 };
  function wrap(u8) {
    var b = Reflect.construct(U8, [u8.length], Buffer);
    b.set(u8);
    return b;
  }
  function Buffer(arg, enc) {
    if (typeof arg === "number") {
      throw new TypeError("Calling the Buffer constructor with numeric argument is not implemented yet");
    }
    return from.apply(null, arguments);
  }
  function from(arg, enc) {
    if (arguments.length === 0) {
      throw new TypeError("The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object. Received undefined");
    }
    if (arg instanceof ArrayBuffer) return Reflect.construct(U8, Array.prototype.slice.call(arguments), Buffer);
    if (typeof arg === "string") {
      var e = typeof enc === "string" && CODECS[enc] ? enc : "utf8";
      return wrap(bridge.decodeString(arg, e));
    }
    if (arg !== null && typeof arg === "object") {
      if (arg instanceof U8) return wrap(arg);
      if (typeof arg.valueOf === "function") {
        var v = arg.valueOf();
        if (v !== arg) return from(v, enc);
      }
      if (typeof arg[Symbol.toPrimitive] === "function") return from(arg[Symbol.toPrimitive]("string"), enc);
      if (arg.length !== undefined) {
        var n = Math.trunc(Number(arg.length)) || 0;
        var out = Reflect.construct(U8, [n], Buffer);
        for (var i = 0; i < n; i++) out[i] = Number(arg[i]) & 255;
        return out;
      }
    }
    throw new TypeError("The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object. Received " + String(arg));
  }
  function codecOf(enc) {
    if (enc === undefined) return "utf8";
    if (!CODECS[enc]) throw new TypeError("Unknown encoding: " + enc);
    return enc;
  }
  function alloc(size, fill, enc) {
    if (typeof size !== "number" || size < 0) throw new TypeError('The "size" argument must be of type number.');
    var buf = Reflect.construct(U8, [Math.trunc(size)], Buffer);
    if (typeof fill === "string") {
      var pat = bridge.decodeString(fill, codecOf(typeof enc === "string" ? enc : undefined));
      if (pat.length > 0) for (var i = 0; i < buf.length; i++) buf[i] = pat[i % pat.length];
    } else if (fill !== undefined) {
      var f = Number(fill);
      if (isFinite(f)) buf.fill(Math.trunc(f) & 255);
    }
    return buf;
  }
  var proto = Object.create(U8.prototype);
  Object.defineProperty(proto, "constructor", { value: Buffer, writable: true, configurable: false, enumerable: false });
  proto.toString = function (enc) { return bridge.encodeBytes(this, codecOf(enc)); };
  proto.equals = function (other) {
    if (!(other instanceof U8)) throw new TypeError('The "otherBuffer" argument must be an instance of Buffer or Uint8Array.');
    if (other.length !== this.length) return false;
    for (var i = 0; i < this.length; i++) if (this[i] !== other[i]) return false;
    return true;
  };
  function view(b) { return new DataView(b.buffer, b.byteOffset, b.byteLength); }
  function offsetArg(b, off, n) {
    if (off === undefined) off = 0;
    if (typeof off !== "number") throw new TypeError('The "offset" argument must be of type number.');
    off = Math.trunc(off);
    if (off < 0 || off + n > b.length) throw new RangeError('The value of "offset" ' + off + " is out of range");
    return off;
  }
  var READS = [
    ["Int8", 1, "getInt8"], ["UInt8", 1, "getUint8"], ["Int16", 2, "getInt16"], ["UInt16", 2, "getUint16"],
    ["Int32", 4, "getInt32"], ["UInt32", 4, "getUint32"], ["Float", 4, "getFloat32"], ["Double", 8, "getFloat64"],
    ["BigInt64", 8, "getBigInt64"], ["BigUInt64", 8, "getBigUint64"],
  ];
  READS.forEach(function (r) {
    var ends = r[1] === 1 ? [""] : ["BE", "LE"];
    ends.forEach(function (end) {
      var fn = function (off) {
        var o = offsetArg(this, off, r[1]);
        return view(this)[r[2]](o, end === "LE");
      };
      proto["read" + r[0] + end] = fn;
      if (r[0].indexOf("UInt") >= 0) proto["read" + r[0].replace("UInt", "Uint") + end] = fn;
    });
  });
  function readVar(le, signed) {
    return function (off, len) {
      if (typeof off !== "number") throw new TypeError(off === undefined ? 'The "offset" argument is required.' : 'The "offset" argument must be of type number.');
      if (typeof len !== "number") throw new TypeError(len === undefined ? 'The "byteLength" argument is required.' : 'The "byteLength" argument must be of type number.');
      if (len < 1 || len > 6) throw new RangeError('The value of "byteLength" ' + len + " is out of range");
      var o = offsetArg(this, off, len);
      var v = 0;
      for (var i = 0; i < len; i++) v = v * 256 + this[le ? o + len - 1 - i : o + i];
      if (signed && v >= Math.pow(2, 8 * len - 1)) v -= Math.pow(2, 8 * len);
      return v;
    };
  }
  proto.readIntBE = readVar(false, true);
  proto.readIntLE = readVar(true, true);
  proto.readUIntBE = proto.readUintBE = readVar(false, false);
  proto.readUIntLE = proto.readUintLE = readVar(true, false);
  function outOfRange(value) { return new RangeError('The value of "value" ' + value + " is out of range."); }
  READS.forEach(function (r) {
    var ends = r[1] === 1 ? [""] : ["BE", "LE"];
    var setter = "set" + r[2].slice(3);
    var big = r[0].indexOf("Big") === 0;
    var bits = 8 * r[1];
    ends.forEach(function (end) {
      var fn = function (value, off) {
        var o = offsetArg(this, off, r[1]);
        if (!big && r[0] !== "Float" && r[0] !== "Double") {
          var v = Number(value);
          var lo = r[0].indexOf("UInt") >= 0 ? 0 : -Math.pow(2, bits - 1);
          var hi = r[0].indexOf("UInt") >= 0 ? Math.pow(2, bits) - 1 : Math.pow(2, bits - 1) - 1;
          if (!(v >= lo && v <= hi)) throw outOfRange(value);
        }
        view(this)[setter](o, value, end === "LE");
        return o + r[1];
      };
      proto["write" + r[0] + end] = fn;
      if (r[0].indexOf("UInt") >= 0) proto["write" + r[0].replace("UInt", "Uint") + end] = fn;
    });
  });
  function writeVar(le, signed) {
    return function (value, off, len) {
      if (typeof len !== "number") throw new TypeError(len === undefined ? 'The "byteLength" argument is required.' : 'The "byteLength" argument must be of type number.');
      if (len < 1 || len > 6) throw new RangeError('The value of "byteLength" ' + len + " is out of range");
      var o = offsetArg(this, off, len);
      var v = Math.trunc(Number(value));
      var max = Math.pow(2, 8 * len);
      if (signed ? !(v >= -max / 2 && v < max / 2) : !(v >= 0 && v < max)) throw outOfRange(value);
      if (v < 0) v += max;
      for (var i = len - 1; i >= 0; i--) {
        this[le ? o + (len - 1 - i) : o + i] = v % 256;
        v = Math.floor(v / 256);
      }
      return o + len;
    };
  }
  proto.writeIntBE = writeVar(false, true);
  proto.writeIntLE = writeVar(true, true);
  proto.writeUIntBE = proto.writeUintBE = writeVar(false, false);
  proto.writeUIntLE = proto.writeUintLE = writeVar(true, false);
  // write(string, offset, length, encoding): the encoding only as the fourth argument
  proto.write = function (str, off, length, enc) {
    if (typeof str !== "string") throw new TypeError('The "string" argument must be of type string.');
    var o = off === undefined ? 0 : offsetArg(this, off, 0);
    var max = this.length - o;
    var n = length === undefined ? max : Math.trunc(Number(length));
    var raw = bridge.decodeString(str, enc === undefined ? "utf8" : codecOf(enc));
    if (raw.length < n) n = raw.length;
    if (n > max) n = max;
    for (var i = 0; i < n; i++) this[o + i] = raw[i];
    return n;
  };
  function concat(list, totalLength) {
    if (list === null || typeof list !== "object" || typeof list[Symbol.iterator] !== "function") {
      throw new TypeError('The "list" argument must be of type object.');
    }
    var bufs = Array.from(list);
    if (bufs.length === 0) return Reflect.construct(U8, [0], Buffer);
    var total = 0;
    bufs.forEach(function (b, i) {
      if (!(b instanceof U8)) throw new TypeError('The "list[' + i + ']" argument must be an instance of Buffer or Uint8Array.');
      total += b.length;
    });
    if (arguments.length > 1) {
      if (typeof totalLength !== "number" || totalLength !== Math.trunc(totalLength)) throw new TypeError('The "totalLen" argument must be of type number.');
      if (totalLength < 0) throw new RangeError('The value of "length" is out of range. It must be >= 0 && <= 9007199254740991. Received ' + totalLength);
      total = totalLength;
    }
    var out = Reflect.construct(U8, [total], Buffer);
    var at = 0;
    for (var i = 0; i < bufs.length && at < total; i++) {
      var b = bufs[i].length > total - at ? bufs[i].subarray(0, total - at) : bufs[i];
      out.set(b, at);
      at += b.length;
    }
    return out;
  }
  Buffer.prototype = proto;
  Object.setPrototypeOf(Buffer, U8);
  Buffer.poolSize = 8192;
  Buffer.from = from;
  Buffer.alloc = alloc;
  Buffer.concat = concat;


  // ---- console, timers, URL, require ----
  // goja_nodejs's util.format: %s, %d, %j and %%; the rest of the arguments as strings
  function fmt(args) {
    var f = args.length > 0 && args[0] !== undefined ? String(args[0]) : "";
    var rest = Array.prototype.slice.call(args, 1), n = 0, out = "";
    for (var i = 0; i < f.length; i++) {
      var c = f[i];
      if (c !== "%" || i + 1 >= f.length) { out += c; continue; }
      var k = f[++i];
      if (k === "%") { out += "%"; continue; }
      if (n >= rest.length) { out += "%" + k; continue; }
      if (k === "s") out += String(rest[n++]);
      else if (k === "d") out += String(Number(rest[n++]));
      else if (k === "j") out += JSON.stringify(rest[n++]);
      else out += "%" + k;
    }
    for (; n < rest.length; n++) out += " " + String(rest[n]);
    return out;
  }
  // goja_nodejs's console through SiYuan's printer: each line as "[plugin:<name>] <line>"
  function print(level, text) {
    var rows = text.split("\n");
    for (var i = 0; i < rows.length; i++) bridge.log(level, "[plugin:" + bridge.name + "] " + rows[i]);
  }
  var console = {
    log: function () { print("info", fmt(arguments)); },
    info: function () { print("info", fmt(arguments)); },
    debug: function () { print("info", fmt(arguments)); },
    warn: function () { print("warn", fmt(arguments)); },
    error: function () { print("error", fmt(arguments)); },
  };
  function hidden(name, value) {
    Object.defineProperty(g, name, { value: value, writable: true, configurable: true, enumerable: false });
  }
  hidden("console", console);
  hidden("Buffer", Buffer);
  hidden("URL", bridge.URL);
  hidden("URLSearchParams", bridge.URLSearchParams);
  ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"].forEach(function (n) {
    hidden(n, bridge.timers[n]);
  });
  var modules = {
    buffer: { Buffer: Buffer },
    console: console,
    url: { URL: bridge.URL, URLSearchParams: bridge.URLSearchParams },
    util: { format: function () { return fmt(arguments); } },
  };
  hidden("require", function require(id) {
    var name = String(id);
    if (name.indexOf("node:") === 0) name = name.slice(5);
    if (Object.prototype.hasOwnProperty.call(modules, name)) return modules[name];
    bridge.requireMissed(String(id));
    // goja_nodejs panics with a Go error, which reaches JavaScript as a GoError
    var e = new Error("Invalid module");
    e.name = "GoError";
    throw e;
  });

  // What the realm source needs from this realm: its bytes and its promises.
  return {
    bytesBuffer: function (outer) { return wrap(outer); },
    bytesArrayBuffer: function (outer) { var a = new U8(outer.length); a.set(outer); return a.buffer; },
    // a host call's failure reaches goja as a GoError (rt.NewGoError)
    promise: function (outer) {
      return new Promise(function (resolve, reject) {
        outer.then(resolve, function (e) {
          var err = new Error(e && e.message ? e.message : String(e));
          err.name = "GoError";
          reject(err);
        });
      });
    },
  };
})`;

/**
 * The realm source both engines run: a function of the bridge that installs the frozen `siyuan`
 * and returns the internals the host calls. Bridge (host functions; JSON crosses as text):
 * `plugin` `{name, version, displayName, platform, i18n}` (i18n as JSON text or null), `now()`,
 * `log(level, text, fromLogger)`, `note(op, argsJson)`, `callSync(op, argsJson)` → JSON text,
 * `call(op, argsJson, bytes?)` → promise of `{value: JSON text, bytes: outer bytes or null}`,
 * `bytesText`/`bytesBuffer`/`bytesArrayBuffer(outer bytes)` and `setTimeout`.
 * Every internal returns a plain object (or a promise of one) and never throws: `{ok, json?,
 * raw?, error?}`; `raw` is the only member that is not JSON.
 */
export const REALM_SOURCE = String.raw`(function (bridge) {
  "use strict";
  var g = globalThis;
  var stringify = JSON.stringify, parse = JSON.parse;
  // Date.now reads the host's wall clock, so a test can step it as an OS clock steps
  // (new Date() and timers are unaffected).
  Date.now = function now() { return bridge.now(); };

  function errorText(e) {
    return e !== null && typeof e === "object" && "message" in e ? String(e.message) : String(e);
  }
  function isThenable(v) {
    return v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function";
  }
  // What SiYuan says of a handler that failed (plugin.go invokeFunction): a throw is goja's
  // Exception text, the value and its innermost frame ("Error: boom at x/kernel.js:3:9(4)"); a
  // rejected promise is always "promise rejected: <nil>" (its callback never sees the reason).
  function thrownText(e) {
    var text;
    try { text = String(e); } catch (x) { text = "[object]"; }
    var stack = e !== null && typeof e === "object" && typeof e.stack === "string" ? e.stack : "";
    var m = /\n\s*at ([^\n]+)/.exec(stack);
    return m ? text + " at " + m[1].replace(/\s+$/, "") : text;
  }
  function settleHandler(fn, done) {
    var r;
    try { r = fn(); } catch (e) { return { ok: false, error: thrownText(e) }; }
    if (!isThenable(r)) return done(r);
    return Promise.resolve(r).then(done, function () { return { ok: false, error: "promise rejected: <nil>" }; });
  }
  // Runs fn now; maps its (awaited) value with done; a throw or rejection is {ok:false, error}.
  function settle(fn, done) {
    var fail = function (e) { return { ok: false, error: errorText(e) }; };
    var r;
    try { r = fn(); } catch (e) { return fail(e); }
    if (!isThenable(r)) {
      try { return done(r); } catch (e) { return fail(e); }
    }
    return Promise.resolve(r).then(done, fail);
  }
  function call(op, args, bytes) {
    return bridge.call(op, stringify(args), bytes).then(function (r) {
      return { value: parse(r.value), bytes: r.bytes };
    });
  }
  function dataObject(outer) {
    return {
      text: function () { return Promise.resolve(bridge.bytesText(outer)); },
      json: function () { return new Promise(function (res) { res(parse(bridge.bytesText(outer))); }); },
      buffer: function () { return Promise.resolve(bridge.bytesBuffer(outer)); },
      arrayBuffer: function () { return Promise.resolve(bridge.bytesArrayBuffer(outer)); },
    };
  }
  var name = bridge.plugin.name;
  var lifecycle = Object.seal({ onload: null, onrunning: null, onunload: null });
  var plugin = Object.freeze({
    name: name,
    version: bridge.plugin.version,
    displayName: bridge.plugin.displayName,
    platform: bridge.plugin.platform,
    i18n: bridge.plugin.i18n === null ? null : parse(bridge.plugin.i18n),
    lifecycle: lifecycle,
  });
  var event = Object.seal({
    handler: null,
    emit: function (topic, payload) {
      return call("emit", [String(topic), payload === undefined ? null : payload]).then(function () {});
    },
  });
  function logWith(level) {
    return function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i++) {
        var a = arguments[i];
        parts.push(typeof a === "string" ? a : a !== null && typeof a === "object" ? stringify(a) : String(a));
      }
      bridge.log(level, parts.join(" "), true);
    };
  }
  var logger = Object.freeze({ trace: logWith("trace"), debug: logWith("debug"), info: logWith("info"),
    warn: logWith("warn"), error: logWith("error") });
  function none() {}
  var storage = Object.freeze({
    get: function (p) { return call("storage.get", [String(p)]).then(function (r) { return dataObject(r.bytes); }); },
    put: function (p, value) { return call("storage.put", [String(p), String(value)]).then(none); },
    remove: function (p) { return call("storage.remove", [String(p)]).then(none); },
    list: function (p) { return call("storage.list", [String(p)]).then(function (r) { return r.value; }); },
    watcher: Object.freeze({
      add: function (p) { return call("storage.watch", [String(p), true]).then(none); },
      remove: function (p) { return call("storage.watch", [String(p), false]).then(none); },
    }),
  });
  var rpcMethods = new Map();
  function rpcChanged() {
    var list = [];
    rpcMethods.forEach(function (m, n) { list.push({ name: n, descriptions: m.descriptions }); });
    bridge.note("registry.rpc", stringify([list]));
  }
  var rpc = Object.freeze({
    bind: function (n, fn) {
      if (typeof fn !== "function") return Promise.reject(new TypeError("siyuan.rpc.bind: handler must be a function"));
      rpcMethods.set(String(n), { fn: fn, descriptions: Array.prototype.slice.call(arguments, 2).map(String) });
      rpcChanged();
      return Promise.resolve();
    },
    unbind: function (n) { rpcMethods.delete(String(n)); rpcChanged(); return Promise.resolve(); },
    broadcast: function (method, params) {
      return call("rpc.broadcast", [String(method), params === undefined ? null : params]).then(none);
    },
  });
  var mcpTools = new Map();
  function toolsChanged() {
    var list = [];
    mcpTools.forEach(function (t, n) { list.push({ name: n, spec: t.spec }); });
    bridge.note("registry.tools", stringify([list]));
  }
  var mcp = Object.freeze({
    registerTool: function (n, spec, handler) {
      var json = stringify(spec || {});
      if (/"type"\s*:\s*\[/.test(json)) return Promise.reject(new Error("invalid json schema: type must be a string"));
      if (typeof handler !== "function") return Promise.reject(new TypeError("handler must be a function"));
      mcpTools.set(String(n), { spec: parse(json), handler: handler });
      toolsChanged();
      return Promise.resolve();
    },
    unregisterTool: function (n) { mcpTools.delete(String(n)); toolsChanged(); return Promise.resolve(); },
  });
  function headerObject(h) {
    var out = {};
    if (h && typeof h === "object") for (var k in h) out[k] = String(h[k]);
    return out;
  }
  var client = Object.freeze({
    fetch: function (path, init) {
      init = init || {};
      var body = init.body;
      var kind = typeof body === "string" ? "string" : body instanceof ArrayBuffer ? "arraybuffer" : "none";
      return call("fetch", [String(path), init.method === undefined ? "GET" : String(init.method),
        headerObject(init.headers), kind, kind === "string" ? body : null],
        kind === "arraybuffer" ? body : undefined).then(function (r) {
        var res = r.value;
        var d = dataObject(r.bytes);
        res.text = d.text; res.json = d.json; res.buffer = d.buffer; res.arrayBuffer = d.arrayBuffer;
        return res;
      });
    },
    socket: function (path) {
      return Object.seal({ readyState: 3, url: String(path),
        open: function () { return Promise.reject(new Error("siyuan-sandbox: siyuan.client.socket is not supported (the sandbox serves no WebSocket)")); },
        close: function () { return Promise.resolve(); } });
    },
    event: function (path) {
      var es = { onopen: null, onmessage: null, onerror: null, onclose: null, close: function () {} };
      bridge.setTimeout(function () {
        if (typeof es.onerror === "function") es.onerror({ type: "error", message: "siyuan-sandbox: siyuan.client.event is not supported" });
      }, 0);
      return Object.seal(es);
    },
  });
  function slot() { return Object.seal({ handler: null }); }
  var priv = Object.freeze({ http: slot(), ws: slot(), es: slot() });
  var server = Object.freeze({ private: priv });
  function resolver(kind) {
    return function (t) { return parse(bridge.callSync("resolve", stringify([kind, String(t)]))); };
  }
  var secrets = Object.freeze({ resolve: resolver("secrets") });
  var vars = Object.freeze({ resolve: resolver("vars") });
  var siyuan = Object.freeze({ plugin: plugin, event: event, logger: logger, storage: storage, rpc: rpc,
    mcp: mcp, client: client, server: server, secrets: secrets, vars: vars });
  Object.defineProperty(g, "siyuan", { value: siyuan, writable: false, configurable: false, enumerable: false });

  // ---- what the host calls ----
  // The request object: body.data and each form file's data are indexes into bytes.
  function requestOf(argJson, bytes) {
    var arg = parse(argJson);
    var body = arg.request.body;
    if (typeof body.data === "number") body.data = dataObject(bytes[body.data]);
    if (body.form) {
      for (var field in body.form.files) {
        body.form.files[field].forEach(function (f) { f.data = dataObject(bytes[f.data]); });
      }
    }
    return arg;
  }
  // body.raw.data as bytes (a string stays text): the host writes them as the answer.
  function rawOf(result) {
    var raw = result && result.body && result.body.raw ? result.body.raw.data : undefined;
    if (typeof raw === "string") return raw;
    if (ArrayBuffer.isView(raw)) return raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
    if (raw instanceof ArrayBuffer) return raw;
    return null;
  }
  function jsonOf(v) { return v === undefined ? undefined : stringify(v); }
  // SiYuan's getRequestHandler words for a slot without a handler
  function slotProblem(slot, kind) {
    if (slot.handler === null || slot.handler === undefined) return "siyuan.server[private][" + kind + "].handler is not set";
    if (typeof slot.handler !== "function") return "siyuan.server[private][" + kind + "].handler is not a function";
    return null;
  }
  var ports = new Map();
  return {
    hook: function (n) {
      var fn = lifecycle[n];
      if (typeof fn !== "function") return { ok: false, missing: true };
      return settle(function () { return fn.call(lifecycle); }, function () { return { ok: true }; });
    },
    publish: function (evJson) {
      var h = event.handler;
      if (typeof h !== "function") return { ok: true };
      var r = settle(function () { return h(parse(evJson)); }, function () { return { ok: true }; });
      var logged = function (o) {
        if (!o.ok) bridge.log("error", "event handler failed: " + o.error, true);
        return o;
      };
      return isThenable(r) ? r.then(logged) : logged(r);
    },
    rpc: function (method, paramsJson) {
      var m = rpcMethods.get(method);
      if (!m) return { ok: false, missing: true };
      var args = parse(paramsJson);
      return settleHandler(function () { return m.fn.apply(undefined, args); },
        function (v) { return { ok: true, json: jsonOf(v) }; });
    },
    tool: function (n, argsJson) {
      var t = mcpTools.get(n);
      if (!t || typeof t.handler !== "function") return { ok: false, missing: true };
      return settleHandler(function () { return t.handler.call(g, parse(argsJson)); },
        function (v) { return { ok: true, json: jsonOf(v) }; });
    },
    http: function (argJson, bytes) {
      var s = priv.http;
      var missing = slotProblem(s, "http");
      if (missing) return { ok: false, error: missing };
      var arg = requestOf(argJson, bytes || []);
      return settleHandler(function () { return s.handler.call(s, arg); },
        function (result) { return { ok: true, json: jsonOf(result), raw: rawOf(result) }; });
    },
    sse: function (stream, argJson, bytes) {
      var s = priv.es;
      var missing = slotProblem(s, "es");
      if (missing) return { ok: false, error: missing };
      return settleHandler(function () {
        var arg = requestOf(argJson, bytes || []);
        var port = Object.seal({
          onopen: null, onclose: null,
          send: function (ev) {
            if (!ev || ev.data === undefined) throw new TypeError("port.send: event.data is required");
            bridge.note("sse.send", stringify([stream, { data: typeof ev.data === "string" ? ev.data : stringify(ev.data),
              event: ev.event === undefined ? null : String(ev.event), id: ev.id === undefined ? null : String(ev.id),
              retry: ev.retry === undefined ? null : Number(ev.retry) }]));
          },
          close: function () { bridge.note("sse.close", stringify([stream])); },
        });
        ports.set(stream, port);
        arg.port = port;
        return s.handler.call(s, arg);
      }, function () { return { ok: true }; });
    },
    ssePort: function (stream, what) {
      var port = ports.get(stream);
      if (!port) return { ok: true };
      if (what === "closed") ports.delete(stream);
      var fn = what === "open" ? port.onopen : port.onclose;
      if (typeof fn !== "function") return { ok: true };
      return settle(function () { return fn.call(port); }, function () { return { ok: true }; });
    },
  };
})`;
