//! wrk's Lua scripts (`-s/--script`), run unchanged in a vendored Lua 5.4 (mlua).
//!
//! wrk's phases are kept: the script runs once in a *setup* state, where `setup(thread)` is
//! called for each thread and, at the end, `done(summary, latency, requests)`; then each load
//! thread runs it in a state of its own and calls `init(args)`, then `request()` and
//! `response(status, headers, body)` per request when they are defined.
//!
//! A script that defines neither `request` nor `response` (one that only sets `wrk.method`,
//! `wrk.body`, `wrk.headers`, as wrk's `post.lua`) is evaluated once: its request is read back
//! into the method, path, headers and body of the [`LoadSpec`], which the engine then encodes
//! once as for `-m/-H/-b`, so it costs nothing per request. Otherwise each `request()` returns a
//! request as text, which is read back into its parts (so that HTTP/1.1 and HTTP/2 alike send
//! it) and encoded for the wire; the time spent in Lua is measured per thread.
//!
//! What restbench cannot do as wrk does is refused with one sentence, never ignored:
//! `delay()` (restbench paces with `-R`), `wrk.lookup` and `wrk.connect` (it connects to the
//! URL's address), and several requests returned by one `request()` (`--pipeline` pipelines).
//!
//! Modules: `wire.rs` (a request's text read back into its parts, a response's head and body
//! into what `response()` is given), `values.rs` (the values `thread:get/set` carry between
//! states, and wrk's statistics objects for `done()`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mlua::{Function, Lua, Table, UserData, UserDataMethods, Value};

use crate::outcome::LoadOutcome;
use crate::{HttpVersion, LoadError, LoadSpec};

mod values;
mod wire;

pub use values::Transfer;
pub(crate) use wire::{RequestParts, parse_response};

/// The largest script file read.
const MAX_SCRIPT: u64 = 4 * 1024 * 1024;

/// wrk's API as Lua: the `wrk` table with `wrk.format` (as wrk's `src/wrk.lua` defines it, the
/// `Host` header from the URL), and the calls restbench refuses.
const PRELUDE: &str = r#"
wrk = { scheme = "http", host = "localhost", port = nil, method = "GET", path = "/",
        headers = {}, body = nil, thread = nil }
function wrk.format(method, path, headers, body)
   local method  = method  or wrk.method
   local path    = path    or wrk.path
   local headers = headers or wrk.headers
   local body    = body    or wrk.body
   local s       = {}
   if not headers["Host"] then
      headers["Host"] = wrk.headers["Host"]
   end
   headers["Content-Length"] = body and string.len(body)
   s[1] = string.format("%s %s HTTP/1.1", method, path)
   for name, value in pairs(headers) do
      s[#s+1] = string.format("%s: %s", name, value)
   end
   s[#s+1] = ""
   s[#s+1] = body or ""
   return table.concat(s, "\r\n")
end
function wrk.lookup()
   error("wrk.lookup is not supported: restbench connects to the URL's address (or --unix-socket)", 0)
end
function wrk.connect()
   error("wrk.connect is not supported: restbench connects to the URL's address (or --unix-socket)", 0)
end
"#;

/// After `init(args)`: the `Host` header as wrk's `wrk.init` sets it, and `wrk.request()`
/// returning the request the table describes (formatted once, as wrk does).
const AFTER_INIT: &str = r#"
local req = wrk.format()
wrk.request = function() return req end
"#;

/// The script as every load thread needs it: its text, its arguments, and what `setup` gave each
/// thread. Shared by the threads; each makes its own Lua state of it.
pub struct ScriptPlan {
    name: String,
    source: String,
    /// `init`'s table: the URL at 0, then the arguments after `--`.
    args: Vec<String>,
    url: Url,
    /// Per thread: the globals `setup` set (`thread:set`), then, once the thread ended, the
    /// globals it left (`thread:get` in `done`).
    slots: Arc<Slots>,
    /// `request()` is defined: each request is asked of the script.
    pub makes_requests: bool,
    /// `response()` is defined: each answer's head and body go to the script.
    pub reads_responses: bool,
}

impl std::fmt::Debug for ScriptPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptPlan")
            .field("name", &self.name)
            .field("makes_requests", &self.makes_requests)
            .field("reads_responses", &self.reads_responses)
            .finish_non_exhaustive()
    }
}

/// The URL's parts as wrk's table holds them.
#[derive(Debug, Clone)]
struct Url {
    scheme: String,
    host: String,
    port: String,
    path: String,
    host_header: String,
}

type Slots = Mutex<Vec<BTreeMap<String, Transfer>>>;

/// A script loaded for one run: its setup state (where `done` runs at the end) and, when it must
/// run per request, the plan the threads share.
pub struct Script {
    name: String,
    setup: Lua,
    slots: Arc<Slots>,
    /// `None` when the script was evaluated once into the spec's request.
    plan: Option<Arc<ScriptPlan>>,
}

/// A failure of the script, as one line naming the script.
fn script_error(name: &str, e: impl std::fmt::Display) -> LoadError {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("").trim().to_string();
    LoadError::Script(format!("script {name}: {first}"))
}

impl Script {
    /// Reads the script at `path`, runs its setup phase for `spec`'s threads and decides how it
    /// runs: evaluated once into `spec` (method, path, headers, body), or per request (then
    /// `spec.script` is set). `args` are the arguments after `--`.
    pub fn load(path: &Path, args: &[String], spec: &mut LoadSpec) -> Result<Self, LoadError> {
        let name = path.display().to_string();
        let source = read_script(path, &name)?;
        let url = Url {
            scheme: if spec.target.tls { "https" } else { "http" }.into(),
            host: spec.target.host.clone(),
            port: spec.target.port.to_string(),
            path: spec.target.path.clone(),
            host_header: spec.target.host_header.clone(),
        };
        let threads = spec.effective_threads() as usize;
        let slots: Arc<Slots> = Arc::new(Mutex::new(vec![BTreeMap::new(); threads]));
        let mut init_args = vec![spec.target.url.clone()];
        init_args.extend(args.iter().cloned());

        let err = |e: mlua::Error| script_error(&name, e);
        let setup = new_state(&url).map_err(err)?;
        setup
            .load(source.as_str())
            .set_name(format!("@{name}"))
            .exec()
            .map_err(err)?;
        if let Ok(f) = setup.globals().get::<Function>("setup") {
            for index in 0..threads {
                let handle = ThreadHandle {
                    index,
                    slots: slots.clone(),
                };
                f.call::<()>(handle).map_err(err)?;
            }
        }

        // A probe thread: what the script does per thread, found before any load.
        let probe = ThreadScript::start_state(&name, &source, &url, &init_args, &slots, 0, true)?;
        let globals = probe.globals();
        let defined = |f: &str| matches!(globals.get::<Value>(f), Ok(Value::Function(_)));
        if defined("delay") {
            return Err(LoadError::Script(format!(
                "script {name}: delay() is not supported: restbench paces requests with -R/--rate \
                 (open loop); remove delay() or give a rate"
            )));
        }
        let makes_requests = defined("request");
        let reads_responses = defined("response");
        if reads_responses && spec.http_version == HttpVersion::Http2 {
            return Err(LoadError::Script(format!(
                "script {name}: response() reads HTTP/1.1 answers; drop --http2 or response()"
            )));
        }
        let first: mlua::String = if makes_requests {
            globals
                .get::<Function>("request")
                .and_then(|f| f.call(()))
                .map_err(err)?
        } else {
            wrk_request(&probe).map_err(err)?
        };
        let parts = RequestParts::parse(&first.as_bytes(), &url.host_header)
            .map_err(|e| script_error(&name, e))?;
        let plan = if makes_requests || reads_responses {
            Some(Arc::new(ScriptPlan {
                name: name.clone(),
                source,
                args: init_args,
                url,
                slots: slots.clone(),
                makes_requests,
                reads_responses,
            }))
        } else {
            None
        };
        // The request every thread sends (or the first one's shape): checked as -m/-H/-b are.
        parts.apply(spec);
        spec.script = plan.clone();
        Ok(Self {
            name,
            setup,
            slots,
            plan,
        })
    }

    /// True when the script runs per request (`request()` or `response()` defined).
    pub fn per_request(&self) -> bool {
        self.plan.is_some()
    }

    /// The script's file, as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Calls `done(summary, latency, requests)` in the setup state, if the script defines it,
    /// with wrk's objects made of `outcome`.
    pub fn done(&self, outcome: &LoadOutcome) -> Result<(), LoadError> {
        let err = |e: mlua::Error| script_error(&self.name, e);
        let Ok(done) = self.setup.globals().get::<Function>("done") else {
            return Ok(());
        };
        let lua = &self.setup;
        let summary = lua.create_table().map_err(err)?;
        let e = &outcome.errors;
        let errors = lua.create_table().map_err(err)?;
        let set = |t: &Table, k: &str, v: u64| t.set(k, v);
        set(&errors, "connect", e.connect).map_err(err)?;
        set(&errors, "read", e.read + e.parse + e.reset).map_err(err)?;
        set(&errors, "write", e.write).map_err(err)?;
        set(&errors, "status", e.status).map_err(err)?;
        set(&errors, "timeout", e.timeout).map_err(err)?;
        set(&summary, "duration", outcome.duration.as_micros() as u64).map_err(err)?;
        set(&summary, "requests", outcome.answered).map_err(err)?;
        set(&summary, "bytes", outcome.bytes).map_err(err)?;
        summary.set("errors", errors).map_err(err)?;
        let latency = values::Stats::from_histogram(&outcome.latency);
        let requests = values::Stats::from_samples(&outcome.thread_rates);
        done.call::<()>((summary, latency, requests)).map_err(err)
    }

    /// The globals each thread left, for tests (`thread:get` reads the same).
    pub fn thread_globals(&self, index: usize) -> BTreeMap<String, Transfer> {
        self.slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(index)
            .cloned()
            .unwrap_or_default()
    }
}

fn read_script(path: &Path, name: &str) -> Result<String, LoadError> {
    use std::io::Read;
    let cannot =
        |e: std::io::Error| LoadError::Script(format!("cannot read the script {name}: {e}"));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut text = String::new();
    file.take(MAX_SCRIPT + 1)
        .read_to_string(&mut text)
        .map_err(cannot)?;
    if text.len() as u64 > MAX_SCRIPT {
        return Err(LoadError::Script(format!(
            "the script {name} is larger than 4 MiB"
        )));
    }
    Ok(text)
}

/// A fresh state with Lua's standard libraries and wrk's table for `url`.
fn new_state(url: &Url) -> mlua::Result<Lua> {
    let lua = Lua::new();
    lua.load(PRELUDE).set_name("=wrk").exec()?;
    let wrk: Table = lua.globals().get("wrk")?;
    wrk.set("scheme", url.scheme.as_str())?;
    wrk.set("host", url.host.as_str())?;
    wrk.set("port", url.port.as_str())?;
    wrk.set("path", url.path.as_str())?;
    Ok(lua)
}

fn wrk_request(lua: &Lua) -> mlua::Result<mlua::String> {
    let wrk: Table = lua.globals().get("wrk")?;
    wrk.get::<Function>("request")?.call(())
}

/// `setup(thread)`'s argument: `thread:set(name, value)` before the thread starts, and
/// `thread:get(name)` of what it left (read in `done`).
struct ThreadHandle {
    index: usize,
    slots: Arc<Slots>,
}

impl UserData for ThreadHandle {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("set", |_, this, (name, value): (String, Value)| {
            let value = Transfer::from_lua(&value)?;
            let mut slots = this.slots.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(slot) = slots.get_mut(this.index) {
                slot.insert(name, value);
            }
            Ok(())
        });
        methods.add_method("get", |lua, this, name: String| {
            let slots = this.slots.lock().unwrap_or_else(|p| p.into_inner());
            match slots.get(this.index).and_then(|s| s.get(&name)) {
                Some(v) => v.to_lua(lua),
                None => Ok(Value::Nil),
            }
        });
        methods.add_method("stop", |_, _, ()| -> mlua::Result<()> {
            Err(mlua::Error::runtime(
                "thread:stop() can only be called while the thread runs (wrk.thread:stop())",
            ))
        });
    }
}

/// `wrk.thread` inside a running thread: `stop()` ends that thread's load.
struct RunningThread {
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl UserData for RunningThread {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("stop", |_, this, ()| {
            this.stop.store(true, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        });
    }
}

/// One load thread's script: its own Lua state, `request` and `response`, and what they cost.
pub(crate) struct ThreadScript {
    plan: Arc<ScriptPlan>,
    index: usize,
    lua: Lua,
    request: Option<Function>,
    response: Option<Function>,
    /// `wrk.thread:stop()` was called.
    pub stop: Arc<std::sync::atomic::AtomicBool>,
    /// Calls of `request()` and `response()`, and the time spent in them.
    pub calls: u64,
    pub spent: Duration,
}

impl ThreadScript {
    /// A state for thread `index`: the script run, `setup`'s values set, `init(args)` called.
    fn start_state(
        name: &str,
        source: &str,
        url: &Url,
        args: &[String],
        slots: &Slots,
        index: usize,
        quiet: bool,
    ) -> Result<Lua, LoadError> {
        let err = |e: mlua::Error| script_error(name, e);
        let lua = new_state(url).map_err(err)?;
        if quiet {
            // The probe runs the script once more than wrk would: what it prints is not shown.
            lua.load("print = function() end; io.write = function() end")
                .exec()
                .map_err(err)?;
        }
        lua.load(source)
            .set_name(format!("@{name}"))
            .exec()
            .map_err(err)?;
        let wrk: Table = lua.globals().get("wrk").map_err(err)?;
        let headers: Table = wrk.get("headers").map_err(err)?;
        if matches!(headers.get::<Value>("Host"), Ok(Value::Nil)) {
            headers.set("Host", url.host_header.as_str()).map_err(err)?;
        }
        {
            let slots = slots.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(slot) = slots.get(index) {
                for (k, v) in slot {
                    let value = v.to_lua(&lua).map_err(err)?;
                    lua.globals().set(k.as_str(), value).map_err(err)?;
                }
            }
        }
        if let Ok(init) = lua.globals().get::<Function>("init") {
            let table = lua.create_table().map_err(err)?;
            for (i, a) in args.iter().enumerate() {
                table.raw_set(i, a.as_str()).map_err(err)?;
            }
            init.call::<()>(table).map_err(err)?;
        }
        lua.load(AFTER_INIT).set_name("=wrk").exec().map_err(err)?;
        Ok(lua)
    }

    /// Thread `index`'s script, in the thread that runs it (a Lua state stays on its thread).
    pub fn start(plan: Arc<ScriptPlan>, index: usize) -> Result<Self, LoadError> {
        let lua = Self::start_state(
            &plan.name,
            &plan.source,
            &plan.url,
            &plan.args,
            &plan.slots,
            index,
            false,
        )?;
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let err = |e: mlua::Error| script_error(&plan.name, e);
        let wrk: Table = lua.globals().get("wrk").map_err(err)?;
        wrk.set("thread", RunningThread { stop: stop.clone() })
            .map_err(err)?;
        let get = |f: &str| lua.globals().get::<Function>(f).ok();
        let request = get("request").filter(|_| plan.makes_requests);
        let response = get("response").filter(|_| plan.reads_responses);
        Ok(Self {
            index,
            request,
            response,
            lua,
            stop,
            plan,
            calls: 0,
            spent: Duration::ZERO,
        })
    }

    pub fn makes_requests(&self) -> bool {
        self.request.is_some()
    }

    pub fn reads_responses(&self) -> bool {
        self.response.is_some()
    }

    /// The next request, read back into its parts. `None` when the script does not make
    /// requests (the pre-encoded one is sent).
    pub fn next_request(&mut self) -> Option<Result<RequestParts, String>> {
        let f = self.request.as_ref()?;
        let started = Instant::now();
        let text = f.call::<mlua::String>(());
        let parts = match text {
            Ok(text) => RequestParts::parse(&text.as_bytes(), &self.plan.url.host_header),
            Err(e) => Err(first_line(&e)),
        };
        self.calls += 1;
        self.spent += started.elapsed();
        Some(parts.map_err(|e| format!("script {}: request(): {e}", self.plan.name)))
    }

    /// Hands one answer (its whole bytes as read) to `response(status, headers, body)`.
    pub fn response(&mut self, status: u16, raw: &[u8]) -> Result<(), String> {
        let Some(f) = self.response.as_ref() else {
            return Ok(());
        };
        let started = Instant::now();
        let result = (|| {
            let (headers, body) = parse_response(raw);
            let table = self.lua.create_table()?;
            for (name, value) in headers {
                table.set(
                    self.lua.create_string(name)?,
                    self.lua.create_string(value)?,
                )?;
            }
            f.call::<()>((status, table, self.lua.create_string(&body)?))
        })();
        self.calls += 1;
        self.spent += started.elapsed();
        result.map_err(|e| format!("script {}: response(): {}", self.plan.name, first_line(&e)))
    }

    /// At the thread's end: its globals kept for `thread:get` in `done`.
    pub fn finish(&self) {
        let mut left = BTreeMap::new();
        for (k, v) in self.lua.globals().pairs::<Value, Value>().flatten() {
            let Value::String(k) = k else { continue };
            if let Ok(t) = Transfer::from_lua(&v)
                && t != Transfer::Nil
            {
                left.insert(k.to_string_lossy(), t);
            }
        }
        let mut slots = self.plan.slots.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = slots.get_mut(self.index) {
            slot.extend(left);
        }
    }
}

fn first_line(e: &mlua::Error) -> String {
    e.to_string()
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}
