/**
 * The part of the kernel's `siyuan.storage` (contract §6, §10) that the durable stores use, and
 * {@link MemoryPluginStorage}, a faithful in-memory fake with fault injection for tests.
 *
 * Kernel behaviour this mirrors (3.7.3, `kernel/plugin/api_storage.go`): every call is async;
 * `get` of a missing file (or of a directory) rejects; `put(path, value)` writes `String(value)`
 * and creates the parent directories; `remove` is `os.RemoveAll` (recursive, a missing path is
 * not an error, the root is refused); `list` of a missing directory rejects. Paths are relative
 * to the plugin's storage root and may not escape it.
 *
 * Plain ES2022 only: this file is bundled into the goja kernel script.
 */

/** What `siyuan.storage.get` resolves to (the stores only read text). */
export interface PluginStorageData {
  /** The file's text. The kernel's data object may answer synchronously; callers `await` it. */
  text(): string | Promise<string>;
}

/** One entry of `siyuan.storage.list`. `updated` is the modification time in Unix seconds. */
export interface PluginStorageEntry {
  name: string;
  isDir: boolean;
  isSymlink: boolean;
  updated: number;
}

/** The subset of `siyuan.storage` the stores use. Pass `siyuan.storage` itself in the kernel. */
export interface PluginStorage {
  get(path: string): Promise<PluginStorageData>;
  /** Writes the string form of `content` (the whole file), creating parent directories. */
  put(path: string, content: string): Promise<unknown>;
  /** Removes a file or a directory recursively; a missing path is not an error. */
  remove(path: string): Promise<unknown>;
  /** The entries of a directory; rejects when it does not exist. */
  list(path: string): Promise<readonly PluginStorageEntry[]>;
}

/** A storage call, as seen by a {@link StorageFault} hook. */
export interface StorageCall {
  op: "get" | "put" | "remove" | "list";
  /** Normalised path. */
  path: string;
  /** 0-based index of this call among all calls of its kind (`put`/`remove` share one counter: "mutations"). */
  index: number;
  /** Length of the content for `put`. */
  bytes?: number;
}

/**
 * What a fault hook asks for: `"fail"` rejects without touching the data; `"fail-after"` applies
 * the call and then rejects (the kernel wrote, but the caller never learnt it). `undefined`: no fault.
 */
export type StorageFaultAction = "fail" | "fail-after" | undefined;

/** A fault-injection hook consulted before every call. */
export type StorageFault = (call: StorageCall) => StorageFaultAction;

/** One successful or attempted `put`, for measurements. */
export interface PutRecord {
  path: string;
  bytes: number;
  /** False when the put was rejected by an injected fault without being applied. */
  applied: boolean;
}

/** Thrown by {@link MemoryPluginStorage} for an injected fault. */
export class InjectedStorageFault extends Error {
  readonly call: StorageCall;
  constructor(call: StorageCall) {
    super(`injected storage fault: ${call.op} ${call.path}`);
    this.name = "InjectedStorageFault";
    this.call = call;
  }
}

function normalise(path: string): string {
  const parts: string[] = [];
  for (const part of String(path).split(/[\\/]+/)) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) throw new Error("siyuan.storage: path traversal not allowed");
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at < 0 ? "" : path.slice(0, at);
}

/**
 * In-memory `siyuan.storage`. Files and directories live in maps; `put` creates parents. Faults:
 * {@link MemoryPluginStorage.fault} (a hook), {@link MemoryPluginStorage.crashAfterMutations}
 * (every `put`/`remove` from the Nth on fails, as if the process died there), and
 * {@link MemoryPluginStorage.corrupt} (replace a file's text behind the stores' back).
 */
export class MemoryPluginStorage implements PluginStorage {
  readonly #files = new Map<string, { text: string; updated: number }>();
  /** Directories, root (`""`) included. */
  readonly #dirs = new Set<string>([""]);
  #clock = 1_786_543_200;
  #mutations = 0;
  #reads = 0;
  #lists = 0;
  /** Fault hook consulted before every call (in addition to a crash point). */
  fault: StorageFault | undefined;
  #crashAt: { at: number; action: "fail" | "fail-after" } | undefined;
  /** Every `put` in call order. */
  readonly puts: PutRecord[] = [];

  /** Number of `put`/`remove` calls so far (including failed ones). */
  get mutations(): number {
    return this.#mutations;
  }

  /**
   * From the `n`th mutation on (0-based: `n = 0` fails the very next one), every `put`/`remove`
   * fails. `"fail-after"` applies that first failing call before rejecting (a write that landed
   * but was never acknowledged); later ones are never applied. Clear with {@link heal}.
   */
  crashAfterMutations(n: number, action: "fail" | "fail-after" = "fail"): void {
    this.#crashAt = { at: this.#mutations + n, action };
  }

  /** Removes the crash point and the fault hook. */
  heal(): void {
    this.#crashAt = undefined;
    this.fault = undefined;
  }

  /** Replaces the text of an existing file (simulated corruption). */
  corrupt(path: string, text: string | ((old: string) => string)): void {
    const p = normalise(path);
    const file = this.#files.get(p);
    if (file === undefined) throw new Error(`no file ${p} to corrupt`);
    file.text = typeof text === "function" ? text(file.text) : text;
  }

  /** A sorted snapshot of every file: path → text. */
  files(): Map<string, string> {
    return new Map([...this.#files.entries()].sort().map(([p, f]) => [p, f.text]));
  }

  /** The text of a file, or `undefined`. */
  read(path: string): string | undefined {
    return this.#files.get(normalise(path))?.text;
  }

  /** An independent copy (same files), e.g. to replay from a saved state. */
  clone(): MemoryPluginStorage {
    const copy = new MemoryPluginStorage();
    for (const [p, f] of this.#files) copy.#files.set(p, { ...f });
    for (const d of this.#dirs) copy.#dirs.add(d);
    return copy;
  }

  #check(call: StorageCall): StorageFaultAction {
    const crash = this.#crashAt;
    if ((call.op === "put" || call.op === "remove") && crash !== undefined) {
      if (call.index > crash.at) return "fail";
      if (call.index === crash.at) return crash.action;
    }
    return this.fault?.(call);
  }

  async get(path: string): Promise<PluginStorageData> {
    const p = normalise(path);
    const call: StorageCall = { op: "get", path: p, index: this.#reads++ };
    const action = this.#check(call);
    if (action !== undefined) throw new InjectedStorageFault(call);
    const file = this.#files.get(p);
    if (file === undefined) throw new Error(`open ${p}: no such file or directory`);
    const text = file.text;
    return { text: async () => text };
  }

  async put(path: string, content: string): Promise<void> {
    const p = normalise(path);
    const text = String(content);
    const call: StorageCall = { op: "put", path: p, index: this.#mutations++, bytes: text.length };
    const action = this.#check(call);
    if (action === "fail") {
      this.puts.push({ path: p, bytes: text.length, applied: false });
      throw new InjectedStorageFault(call);
    }
    if (p === "" || this.#dirs.has(p)) throw new Error(`failed to write file: ${p} is a directory`);
    for (let d = parentOf(p); ; d = parentOf(d)) {
      if (this.#files.has(d)) throw new Error(`failed to make directory: ${d} is a file`);
      this.#dirs.add(d);
      if (d === "") break;
    }
    this.#files.set(p, { text, updated: this.#clock++ });
    this.puts.push({ path: p, bytes: text.length, applied: true });
    if (action === "fail-after") throw new InjectedStorageFault(call);
  }

  async remove(path: string): Promise<void> {
    const p = normalise(path);
    const call: StorageCall = { op: "remove", path: p, index: this.#mutations++ };
    const action = this.#check(call);
    if (action === "fail") throw new InjectedStorageFault(call);
    if (p === "") throw new Error("cannot remove storage root");
    this.#files.delete(p);
    const prefix = `${p}/`;
    for (const f of [...this.#files.keys()]) if (f.startsWith(prefix)) this.#files.delete(f);
    this.#dirs.delete(p);
    for (const d of [...this.#dirs]) if (d.startsWith(prefix)) this.#dirs.delete(d);
    if (action === "fail-after") throw new InjectedStorageFault(call);
  }

  async list(path: string): Promise<PluginStorageEntry[]> {
    const p = normalise(path);
    const call: StorageCall = { op: "list", path: p, index: this.#lists++ };
    const action = this.#check(call);
    if (action !== undefined) throw new InjectedStorageFault(call);
    if (!this.#dirs.has(p)) {
      throw new Error(`failed to read directory: open ${p}: no such file or directory`);
    }
    const out: PluginStorageEntry[] = [];
    for (const d of this.#dirs) {
      if (d !== "" && d !== p && parentOf(d) === p) {
        out.push({
          name: d.slice(d.lastIndexOf("/") + 1),
          isDir: true,
          isSymlink: false,
          updated: 0,
        });
      }
    }
    for (const [f, file] of this.#files) {
      if (parentOf(f) === p) {
        out.push({
          name: f.slice(f.lastIndexOf("/") + 1),
          isDir: false,
          isSymlink: false,
          updated: file.updated,
        });
      }
    }
    // os.ReadDir returns entries sorted by name.
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
