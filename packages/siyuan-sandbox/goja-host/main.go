// Command goja-host runs one kernel plugin's kernel.js in goja, the engine SiYuan 3.7.0–3.7.3 runs
// kernel plugins in, at the exact versions those releases pin (go.mod). It is the `goja` engine of
// the sandbox's plugin host (src/plugin-host/goja-engine.ts): the Node sandbox starts one process
// per plugin start and talks to it over stdin/stdout in frames; everything that is not the
// JavaScript engine (storage, siyuan.client, routes, RPC, logs) stays in Node.
//
// The runtime is set up as SiYuan's plugin sandbox sets it up (read from kernel/plugin/sandbox.go
// and plugin.go at tag v3.7.3, not copied): a goja_nodejs event loop with console, JSON field-name
// mapping, a fresh require registry (core modules only: buffer, console, url, util) whose console
// prints through the kernel log, the url and buffer modules as globals, then `siyuan` and finally
// kernel.js run as a classic script named `<name>/kernel.js` inside the loop's Run, which (as in
// SiYuan) returns only once no timer started at the top level is pending. The `siyuan` object is
// built by the sandbox's realm source (src/plugin-host/prelude.ts), the same source the `vm` engine
// runs, over the bridge below.
//
// Frames, both ways: u32 LE header length, u32 LE body length, the JSON header, the body (binary
// parts back to back; the header's `nbytes` gives their lengths).
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/buffer"
	"github.com/dop251/goja_nodejs/console"
	"github.com/dop251/goja_nodejs/eventloop"
	"github.com/dop251/goja_nodejs/require"
	"github.com/dop251/goja_nodejs/url"
)

// frame is one message in either direction. Fields are used per `T`:
//
//	Node → host: load {Name, Source, Prelude, Plugin, ClockMs}; invoke {ID, Fn, Args, NBytes};
//	             reply {ID, OK, Value, Error, NBytes}; clock {ClockMs}; stop {}.
//	host → Node: loaded {Error}; result {ID, OK, Value, Error, NBytes}; call {ID, Op, Value, NBytes};
//	             callSync (as call, answered before the loop goes on); note {Op, Value};
//	             log {Level, Text}; stopped {}.
type frame struct {
	T       string          `json:"t"`
	ID      int64           `json:"id,omitempty"`
	Fn      string          `json:"fn,omitempty"`
	Op      string          `json:"op,omitempty"`
	Args    []string        `json:"args,omitempty"`
	OK      bool            `json:"ok,omitempty"`
	Value   string          `json:"value,omitempty"`
	Error   string          `json:"error,omitempty"`
	Level   string          `json:"level,omitempty"`
	Text    string          `json:"text,omitempty"`
	Name    string          `json:"name,omitempty"`
	Source  string          `json:"source,omitempty"`
	Prelude string          `json:"prelude,omitempty"`
	Plugin  json.RawMessage `json:"plugin,omitempty"`
	ClockMs *float64        `json:"clockMs,omitempty"`
	NBytes  []int           `json:"nbytes,omitempty"`
	parts   [][]byte
}

// maxFrame bounds one frame (the staging limits are 32 MiB; base64 and JSON add to that).
const maxFrame = 256 << 20

type host struct {
	out     *bufio.Writer
	outMu   sync.Mutex
	loop    *eventloop.EventLoop
	name    string
	clockMs atomic.Int64 // offset added to Date.now (stepClock)

	nextID  atomic.Int64
	pending sync.Map // id → func(frame)

	// set on the loop once the prelude ran
	internals *goja.Object
	stringify goja.Callable
	parse     goja.Callable
	jsonObj   goja.Value
}

func readFrame(r io.Reader) (*frame, error) {
	var lens [8]byte
	if _, err := io.ReadFull(r, lens[:]); err != nil {
		return nil, err
	}
	hl := binary.LittleEndian.Uint32(lens[0:4])
	bl := binary.LittleEndian.Uint32(lens[4:8])
	if hl > maxFrame || bl > maxFrame {
		return nil, fmt.Errorf("frame too large: %d + %d bytes", hl, bl)
	}
	buf := make([]byte, int(hl)+int(bl))
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	f := &frame{}
	if err := json.Unmarshal(buf[:hl], f); err != nil {
		return nil, fmt.Errorf("bad frame header: %w", err)
	}
	body := buf[hl:]
	for _, n := range f.NBytes {
		if n < 0 || n > len(body) {
			return nil, errors.New("bad frame body lengths")
		}
		f.parts = append(f.parts, body[:n])
		body = body[n:]
	}
	return f, nil
}

func (h *host) send(f *frame) {
	f.NBytes = nil
	for _, p := range f.parts {
		f.NBytes = append(f.NBytes, len(p))
	}
	head, err := json.Marshal(f)
	if err != nil {
		panic(err)
	}
	total := 0
	for _, p := range f.parts {
		total += len(p)
	}
	var lens [8]byte
	binary.LittleEndian.PutUint32(lens[0:4], uint32(len(head)))
	binary.LittleEndian.PutUint32(lens[4:8], uint32(total))
	h.outMu.Lock()
	defer h.outMu.Unlock()
	h.out.Write(lens[:])
	h.out.Write(head)
	for _, p := range f.parts {
		h.out.Write(p)
	}
	if err := h.out.Flush(); err != nil {
		// Node went away: nothing left to serve.
		os.Exit(0)
	}
}

// printer is the console module's printer: each line of a console call goes to the kernel log
// as `[plugin:<name>] <line>`, at INFO for log/info/debug, WARN and ERROR, as SiYuan prints it.
type printer struct{ h *host }

func (p printer) print(level, s string) {
	for _, row := range strings.Split(s, "\n") {
		p.h.send(&frame{T: "log", Level: level, Text: fmt.Sprintf("[plugin:%s] %s", p.h.name, row)})
	}
}
func (p printer) Log(s string)   { p.print("info", s) }
func (p printer) Warn(s string)  { p.print("warn", s) }
func (p printer) Error(s string) { p.print("error", s) }

// bytesOf reads a string, ArrayBuffer, Buffer or other typed array given by the realm.
func bytesOf(rt *goja.Runtime, v goja.Value) ([]byte, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	switch x := v.Export().(type) {
	case string:
		return []byte(x), nil
	case goja.ArrayBuffer:
		return append([]byte(nil), x.Bytes()...), nil
	case []byte:
		return append([]byte(nil), x...), nil
	}
	var b []byte
	if err := rt.ExportTo(v, &b); err != nil {
		return nil, fmt.Errorf("unsupported bytes value: %T", v.Export())
	}
	return b, nil
}

func (h *host) jsonString(v goja.Value) string {
	s, err := h.stringify(h.jsonObj, v)
	if err != nil {
		panic(err)
	}
	if goja.IsUndefined(s) {
		return "null"
	}
	return s.String()
}

func (h *host) jsonValue(rt *goja.Runtime, s string) goja.Value {
	v, err := h.parse(h.jsonObj, rt.ToValue(s))
	if err != nil {
		panic(err)
	}
	return v
}

// await calls back with a value's settled result: a promise's (once it settles) or the value.
func await(rt *goja.Runtime, v goja.Value, done func(ok bool, v goja.Value)) {
	if p, isPromise := v.Export().(*goja.Promise); isPromise {
		then, _ := goja.AssertFunction(v.ToObject(rt).Get("then"))
		settled := func(goja.FunctionCall) goja.Value {
			done(p.State() == goja.PromiseStateFulfilled, p.Result())
			return goja.Undefined()
		}
		_, err := then(v, rt.ToValue(settled), rt.ToValue(settled))
		if err != nil {
			done(false, rt.ToValue(err.Error()))
		}
		return
	}
	done(true, v)
}

// errorText is what a thrown value says: an Error's message, else the value as a string.
func errorText(rt *goja.Runtime, v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	if o, ok := v.(*goja.Object); ok {
		if m := o.Get("message"); m != nil && !goja.IsUndefined(m) {
			return m.String()
		}
	}
	return v.String()
}

// bridge is what the realm source gets as its `bridge` argument in goja.
func (h *host) bridge(rt *goja.Runtime, plugin json.RawMessage) *goja.Object {
	b := rt.NewObject()
	b.Set("engine", "goja")
	b.Set("plugin", h.jsonValue(rt, string(plugin)))
	b.Set("now", func() int64 { return time.Now().UnixMilli() + h.clockMs.Load() })
	b.Set("log", func(level, text string, fromLogger bool) {
		if fromLogger {
			text = fmt.Sprintf("[plugin:%s] %s", h.name, text)
		}
		h.send(&frame{T: "log", Level: level, Text: text})
	})
	b.Set("note", func(op, argsJSON string) {
		h.send(&frame{T: "note", Op: op, Value: argsJSON})
	})
	// callSync blocks the loop until Node answers (siyuan.secrets.resolve is synchronous).
	b.Set("callSync", func(op, argsJSON string) string {
		id := h.nextID.Add(1)
		ch := make(chan *frame, 1)
		h.pending.Store(id, func(f *frame) { ch <- f })
		h.send(&frame{T: "callSync", ID: id, Op: op, Value: argsJSON})
		f := <-ch
		if !f.OK {
			panic(rt.NewGoError(errors.New(f.Error)))
		}
		return f.Value
	})
	// call returns a promise of {value (JSON text), bytes} settled on the loop when Node answers.
	b.Set("call", func(op, argsJSON string, data goja.Value) goja.Value {
		promise, resolve, reject := rt.NewPromise()
		body, err := bytesOf(rt, data)
		if err != nil {
			reject(rt.NewGoError(err))
			return rt.ToValue(promise)
		}
		id := h.nextID.Add(1)
		h.pending.Store(id, func(f *frame) {
			h.loop.RunOnLoop(func(rt *goja.Runtime) {
				if !f.OK {
					reject(rt.NewGoError(errors.New(f.Error)))
					return
				}
				res := rt.NewObject()
				res.Set("value", f.Value)
				if len(f.parts) > 0 {
					res.Set("bytes", rt.NewArrayBuffer(f.parts[0]))
				} else {
					res.Set("bytes", goja.Null())
				}
				resolve(res)
			})
		})
		out := &frame{T: "call", ID: id, Op: op, Value: argsJSON}
		if data != nil && !goja.IsUndefined(data) && !goja.IsNull(data) {
			out.parts = [][]byte{body}
		}
		h.send(out)
		return rt.ToValue(promise)
	})
	// Bytes from the host arrive as ArrayBuffers; the realm turns them into what it hands out.
	b.Set("bytesText", func(ab goja.ArrayBuffer) string { return string(ab.Bytes()) })
	b.Set("bytesBuffer", func(ab goja.ArrayBuffer) goja.Value {
		return buffer.WrapBytes(rt, append([]byte(nil), ab.Bytes()...))
	})
	b.Set("bytesArrayBuffer", func(ab goja.ArrayBuffer) goja.Value {
		return rt.ToValue(rt.NewArrayBuffer(append([]byte(nil), ab.Bytes()...)))
	})
	b.Set("setTimeout", rt.Get("setTimeout"))
	return b
}

// load builds the runtime as SiYuan's InitRuntime does, then runs kernel.js in the loop's Run.
func (h *host) load(f *frame) {
	if f.ClockMs != nil {
		h.clockMs.Store(int64(*f.ClockMs))
	}
	var loadErr error
	h.loop.Run(func(rt *goja.Runtime) {
		defer func() {
			if r := recover(); r != nil {
				loadErr = fmt.Errorf("goja panic during event loop run: %v", r)
			}
		}()
		rt.SetFieldNameMapper(goja.TagFieldNameMapper("json", true))
		registry := require.NewRegistry()
		registry.Enable(rt)
		registry.RegisterNativeModule(console.ModuleName, console.RequireWithPrinter(printer{h}))
		url.Enable(rt)
		buffer.Enable(rt)
		console.Enable(rt)

		h.jsonObj = rt.Get("JSON")
		h.stringify, _ = goja.AssertFunction(h.jsonObj.ToObject(rt).Get("stringify"))
		h.parse, _ = goja.AssertFunction(h.jsonObj.ToObject(rt).Get("parse"))
		install, err := rt.RunScript("siyuan-sandbox/prelude.js", f.Prelude)
		if err != nil {
			loadErr = fmt.Errorf("prelude: %v", err)
			return
		}
		fn, _ := goja.AssertFunction(install)
		internals, err := fn(goja.Undefined(), h.bridge(rt, f.Plugin))
		if err != nil {
			loadErr = fmt.Errorf("prelude: %v", err)
			return
		}
		h.internals = internals.ToObject(rt)
		if _, err := rt.RunScript(h.name+"/kernel.js", f.Source); err != nil {
			loadErr = err
		}
	})
	h.loop.Start()
	out := &frame{T: "loaded"}
	if loadErr != nil {
		out.Error = loadErr.Error()
	}
	h.send(out)
}

// invoke calls internals[fn](...args, bytes) on the loop and answers with its settled result:
// `value` is the JSON of the result without its `raw` member, whose bytes are the body.
func (h *host) invoke(f *frame) {
	ok := h.loop.RunOnLoop(func(rt *goja.Runtime) {
		answer := func(ok bool, v goja.Value) {
			out := &frame{T: "result", ID: f.ID, OK: ok}
			if !ok {
				out.Error = errorText(rt, v)
				h.send(out)
				return
			}
			if o, isObj := v.(*goja.Object); isObj {
				if raw := o.Get("raw"); raw != nil && !goja.IsUndefined(raw) && !goja.IsNull(raw) {
					b, err := bytesOf(rt, raw)
					if err != nil {
						h.send(&frame{T: "result", ID: f.ID, Error: err.Error()})
						return
					}
					out.parts = [][]byte{b}
					o.Delete("raw")
				}
			}
			out.Value = h.jsonString(v)
			h.send(out)
		}
		defer func() {
			if r := recover(); r != nil {
				answer(false, rt.ToValue(fmt.Sprint(r)))
			}
		}()
		fn, isFn := goja.AssertFunction(h.internals.Get(f.Fn))
		if !isFn {
			answer(false, rt.ToValue("no internal function "+f.Fn))
			return
		}
		args := make([]goja.Value, 0, len(f.Args)+1)
		for _, a := range f.Args {
			args = append(args, rt.ToValue(a))
		}
		if len(f.parts) > 0 {
			list := make([]interface{}, len(f.parts))
			for i, p := range f.parts {
				list[i] = rt.NewArrayBuffer(p)
			}
			args = append(args, rt.ToValue(list))
		}
		v, err := fn(h.internals, args...)
		if err != nil {
			var ex *goja.Exception
			if errors.As(err, &ex) {
				answer(false, ex.Value())
			} else {
				answer(false, rt.ToValue(err.Error()))
			}
			return
		}
		await(rt, v, answer)
	})
	if !ok {
		h.send(&frame{T: "result", ID: f.ID, Error: "the plugin's event loop is terminated"})
	}
}

func main() {
	h := &host{out: bufio.NewWriterSize(os.Stdout, 1<<16)}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		f, err := readFrame(in)
		if err != nil {
			// stdin closed: the sandbox stopped the plugin or went away
			os.Exit(0)
		}
		switch f.T {
		case "load":
			h.name = f.Name
			h.loop = eventloop.NewEventLoop(eventloop.EnableConsole(true))
			// Run blocks while a timer started at the top level is pending, as in SiYuan;
			// replies keep flowing meanwhile.
			go h.load(f)
		case "invoke":
			h.invoke(f)
		case "reply":
			if cb, ok := h.pending.LoadAndDelete(f.ID); ok {
				cb.(func(*frame))(f)
			}
		case "clock":
			if f.ClockMs != nil {
				h.clockMs.Store(int64(*f.ClockMs))
			}
		case "stop":
			if h.loop != nil {
				h.loop.Stop()
			}
			h.send(&frame{T: "stopped"})
			os.Exit(0)
		}
	}
}
