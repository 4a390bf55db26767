/**
 * The source run inside each plugin's `node:vm` context before `kernel.js` (contract §6). It is a
 * function of a bridge of host ("Go side") functions; it trims the realm to goja's built-ins, then
 * builds, in the plugin's own realm, what goja + goja_nodejs + SiYuan inject: `console`, `Buffer`
 * (goja_nodejs's: `from`, `alloc`, `poolSize`; `toString`/`equals`/`read*`; encodings hex, utf8,
 * utf-8, base64, base64Url), `URL`/`URLSearchParams`, timers, `require` and the frozen `siyuan`.
 * It returns the internals the host needs (lifecycle, handler slots, data objects, ports).
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

export const PRELUDE_SOURCE = String.raw`(function (bridge) {
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
  drop(Error, ["captureStackTrace", "stackTraceLimit", "isError"]);
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
  Buffer.prototype = proto;
  Object.setPrototypeOf(Buffer, U8);
  Buffer.poolSize = 8192;
  Buffer.from = from;
  Buffer.alloc = alloc;

  function bytesIn(outer) { return wrap(outer); }
  function arrayBufferIn(outer) { var a = new U8(outer.length); a.set(outer); return a.buffer; }

  // ---- console, timers, URL, require ----
  function fmt(args) { return bridge.format(Array.prototype.slice.call(args)); }
  var console = {
    log: function () { bridge.log("info", fmt(arguments)); },
    info: function () { bridge.log("info", fmt(arguments)); },
    debug: function () { bridge.log("debug", fmt(arguments)); },
    warn: function () { bridge.log("warn", fmt(arguments)); },
    error: function () { bridge.log("error", fmt(arguments)); },
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
    util: { format: function () { return fmt(arguments); }, inherits: function (ctor, sup) {
      Object.setPrototypeOf(ctor.prototype, sup.prototype); Object.setPrototypeOf(ctor, sup); } },
  };
  hidden("require", function require(id) {
    var name = String(id);
    if (name.indexOf("node:") === 0) name = name.slice(5);
    if (Object.prototype.hasOwnProperty.call(modules, name)) return modules[name];
    bridge.requireMissed(String(id));
    throw new Error("Invalid module");
  });

  // ---- siyuan ----
  function realmPromise(outer) {
    return new Promise(function (resolve, reject) {
      outer.then(resolve, function (e) { reject(new Error(e && e.message ? e.message : String(e))); });
    });
  }
  function dataObject(outer) {
    return {
      text: function () { return Promise.resolve(bridge.decodeUtf8(outer)); },
      json: function () { return new Promise(function (res) { res(JSON.parse(bridge.decodeUtf8(outer))); }); },
      buffer: function () { return Promise.resolve(bytesIn(outer)); },
      arrayBuffer: function () { return Promise.resolve(arrayBufferIn(outer)); },
    };
  }
  var lifecycle = Object.seal({ onload: null, onrunning: null, onunload: null });
  var plugin = Object.freeze({
    name: bridge.plugin.name,
    version: bridge.plugin.version,
    displayName: bridge.plugin.displayName,
    platform: bridge.plugin.platform,
    i18n: bridge.plugin.i18n === null ? null : JSON.parse(bridge.plugin.i18n),
    lifecycle: lifecycle,
  });
  var event = Object.seal({
    handler: null,
    emit: function (topic, payload) { return realmPromise(bridge.emit(String(topic), JSON.stringify(payload === undefined ? null : payload))); },
  });
  function logWith(level) {
    return function () {
      var parts = [];
      for (var i = 0; i < arguments.length; i++) {
        var a = arguments[i];
        parts.push(typeof a === "string" ? a : a !== null && typeof a === "object" ? JSON.stringify(a) : String(a));
      }
      bridge.log(level, parts.join(" "), true);
    };
  }
  var logger = Object.freeze({ trace: logWith("trace"), debug: logWith("debug"), info: logWith("info"),
    warn: logWith("warn"), error: logWith("error") });
  var storage = Object.freeze({
    get: function (p) { return realmPromise(bridge.storage.get(String(p)).then(dataObject)); },
    put: function (p, value) { return realmPromise(bridge.storage.put(String(p), String(value))); },
    remove: function (p) { return realmPromise(bridge.storage.remove(String(p))); },
    list: function (p) {
      return realmPromise(bridge.storage.list(String(p)).then(function (json) { return JSON.parse(json); }));
    },
    watcher: Object.freeze({
      add: function (p) { return realmPromise(bridge.storage.watch(String(p), true)); },
      remove: function (p) { return realmPromise(bridge.storage.watch(String(p), false)); },
    }),
  });
  var rpcMethods = new Map();
  var rpc = Object.freeze({
    bind: function (name, fn) {
      if (typeof fn !== "function") return Promise.reject(new TypeError("siyuan.rpc.bind: handler must be a function"));
      rpcMethods.set(String(name), { fn: fn, descriptions: Array.prototype.slice.call(arguments, 2).map(String) });
      return Promise.resolve();
    },
    unbind: function (name) { rpcMethods.delete(String(name)); return Promise.resolve(); },
    broadcast: function (method, params) {
      return realmPromise(bridge.rpcBroadcast(String(method), JSON.stringify(params === undefined ? null : params)));
    },
  });
  var mcpTools = new Map();
  var mcp = Object.freeze({
    registerTool: function (name, spec, handler) {
      var json = JSON.stringify(spec || {});
      if (/"type"\s*:\s*\[/.test(json)) return Promise.reject(new Error("invalid json schema: type must be a string"));
      if (typeof handler !== "function") return Promise.reject(new TypeError("handler must be a function"));
      mcpTools.set(String(name), { spec: JSON.parse(json), handler: handler });
      return Promise.resolve();
    },
    unregisterTool: function (name) { mcpTools.delete(String(name)); return Promise.resolve(); },
  });
  function headerString(h) {
    var out = {};
    if (h && typeof h === "object") for (var k in h) out[k] = String(h[k]);
    return JSON.stringify(out);
  }
  var client = Object.freeze({
    fetch: function (path, init) {
      init = init || {};
      var body = init.body;
      var kind = typeof body === "string" ? "string" : body instanceof ArrayBuffer ? "arraybuffer" : "none";
      return realmPromise(bridge.fetch(String(path), init.method === undefined ? "GET" : String(init.method),
        headerString(init.headers), kind, kind === "none" ? null : body).then(function (r) {
        var res = JSON.parse(r.meta);
        var d = dataObject(r.body);
        res.text = d.text; res.json = d.json; res.buffer = d.buffer; res.arrayBuffer = d.arrayBuffer;
        return res;
      }));
    },
    socket: function (path) {
      return Object.seal({ readyState: 3, url: String(path),
        open: function () { return Promise.reject(new Error("siyuan-sandbox: siyuan.client.socket is not supported (the sandbox serves no WebSocket)")); },
        close: function () { return Promise.resolve(); } });
    },
    event: function (path) {
      var es = { onopen: null, onmessage: null, onerror: null, onclose: null, close: function () {} };
      bridge.timers.setTimeout(function () {
        if (typeof es.onerror === "function") es.onerror({ type: "error", message: "siyuan-sandbox: siyuan.client.event is not supported" });
      }, 0);
      return Object.seal(es);
    },
  });
  function slot() { return Object.seal({ handler: null }); }
  var priv = Object.freeze({ http: slot(), ws: slot(), es: slot() });
  var server = Object.freeze({ private: priv });
  var secrets = Object.freeze({ resolve: function (t) { return bridge.resolve("secrets", String(t)); } });
  var vars = Object.freeze({ resolve: function (t) { return bridge.resolve("vars", String(t)); } });
  var siyuan = Object.freeze({ plugin: plugin, event: event, logger: logger, storage: storage, rpc: rpc,
    mcp: mcp, client: client, server: server, secrets: secrets, vars: vars });
  Object.defineProperty(g, "siyuan", { value: siyuan, writable: false, configurable: false, enumerable: false });

  function ssePort(send, close) {
    var port = Object.seal({
      onopen: null, onclose: null,
      send: function (ev) {
        if (!ev || ev.data === undefined) throw new TypeError("port.send: event.data is required");
        send(JSON.stringify({ data: typeof ev.data === "string" ? ev.data : JSON.stringify(ev.data),
          event: ev.event === undefined ? null : String(ev.event), id: ev.id === undefined ? null : String(ev.id),
          retry: ev.retry === undefined ? null : Number(ev.retry) }));
      },
      close: function () { close(); },
    });
    return port;
  }
  return {
    lifecycle: lifecycle,
    event: event,
    slots: priv,
    rpcMethods: rpcMethods,
    mcpTools: mcpTools,
    fromJson: function (s) { return JSON.parse(s); },
    toJson: function (v) { return JSON.stringify(v); },
    dataObject: dataObject,
    ssePort: ssePort,
    isPromise: function (v) { return v !== null && (typeof v === "object" || typeof v === "function") && typeof v.then === "function"; },
    errorText: function (e) { return e instanceof Error ? e.message : String(e); },
  };
})`;
