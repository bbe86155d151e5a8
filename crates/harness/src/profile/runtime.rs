//! What each language's runtime needs to be profiled by its own symbols, and which symbols are
//! its runtime: the table the CPU split is classified by.
//!
//! Native code (Rust, Go, Haskell, C) is named by its symbol tables. JIT runtimes are asked to
//! write a perf map (`/tmp/perf-PID.map`, which `perf script` reads) in the profiling slice's
//! server only: the JVM keeps frame pointers (`-XX:+PreserveFramePointer`, so perf can walk
//! compiled Java frames) and writes its map on `jcmd PID Compiler.perfmap` (JDK 17); Node writes
//! its map as it compiles (`--perf-basic-prof-only-functions`); .NET with
//! `DOTNET_PerfMapEnabled=1`. CPython 3.11 is profiled as it is: its frames are the
//! interpreter's C functions (`_PyEval_EvalFrameDefault`), and only 3.12's `-X perf` would name
//! the Python functions.

/// What one language needs in its profiling slice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeProfile {
    /// Environment added to the subject's, for the profiling server only (appended to a value
    /// the subject sets itself).
    pub env: Vec<(&'static str, &'static str)>,
    /// The JVM writes its perf map only when asked with `jcmd PID Compiler.perfmap`.
    pub jvm_perfmap: bool,
    /// perf's `--call-graph`: `fp` where the code keeps frame pointers (Go, and the JIT
    /// runtimes, whose compiled frames DWARF cannot unwind), `dwarf` for native code built
    /// without them (Rust's and GHC's release builds, Debian's CPython), unwound from the
    /// binaries' own unwind tables.
    pub call_graph: &'static str,
    /// Said in the profile's notes: what this runtime's profile cannot name.
    pub note: Option<&'static str>,
    /// Leaf symbols (prefixes) that are the runtime's, beyond the annotations.
    pub runtime_prefixes: &'static [&'static str],
    /// Leaf symbols containing one of these are the runtime's.
    pub runtime_contains: &'static [&'static str],
}

impl RuntimeProfile {
    /// Whether the profiling slice needs a server started for it (flags at start).
    pub fn needs_restart(&self) -> bool {
        !self.env.is_empty()
    }
}

/// The profile settings of a subject's `language` (its subject.toml's).
pub fn for_language(language: &str) -> RuntimeProfile {
    let none = RuntimeProfile {
        env: Vec::new(),
        jvm_perfmap: false,
        call_graph: "fp",
        note: None,
        runtime_prefixes: &[],
        runtime_contains: &[],
    };
    match language {
        "java" | "kotlin" | "scala" => RuntimeProfile {
            env: vec![("JAVA_TOOL_OPTIONS", "-XX:+PreserveFramePointer")],
            jvm_perfmap: true,
            runtime_prefixes: JVM_RUNTIME,
            // HotSpot's own C++ (GC, compilers, safepoints) is named Class::method.
            runtime_contains: &["::"],
            ..none
        },
        "node" | "javascript" | "typescript" => RuntimeProfile {
            env: vec![("NODE_OPTIONS", "--perf-basic-prof-only-functions")],
            runtime_prefixes: NODE_RUNTIME,
            runtime_contains: &["v8::internal"],
            ..none
        },
        "csharp" | "fsharp" => RuntimeProfile {
            env: vec![("DOTNET_PerfMapEnabled", "1")],
            runtime_prefixes: DOTNET_RUNTIME,
            runtime_contains: &["::gc_heap", "ThreadNative"],
            ..none
        },
        "python" => RuntimeProfile {
            call_graph: "dwarf,16384",
            note: Some(
                "CPython 3.11 shows its interpreter's C frames, not Python functions; \
                 3.12's `-X perf` would name them",
            ),
            runtime_prefixes: CPYTHON_RUNTIME,
            ..none
        },
        "go" => RuntimeProfile {
            runtime_prefixes: GO_RUNTIME,
            ..none
        },
        "haskell" => RuntimeProfile {
            call_graph: "dwarf,16384",
            runtime_prefixes: GHC_RUNTIME,
            ..none
        },
        "rust" => RuntimeProfile {
            call_graph: "dwarf,16384",
            // The async runtime and its poller, as a green-thread scheduler is elsewhere.
            runtime_prefixes: RUST_RUNTIME,
            ..none
        },
        // C, C++ and the unknown: unwind tables are there whether frame pointers are or not.
        _ => RuntimeProfile {
            call_graph: "dwarf,16384",
            ..none
        },
    }
}

const JVM_RUNTIME: &[&str] = &[
    "Interpreter",
    "StubRoutines",
    "vtable stub",
    "itable stub",
    "RuntimeStub",
    "I2C/C2I",
    "[libjvm",
    "JVM_",
    "jni_",
    "Unsafe_",
];

const NODE_RUNTIME: &[&str] = &[
    "Builtin:",
    "Builtins_",
    "BytecodeHandler:",
    "Stub:",
    "v8::",
    "v8_",
    "node::",
    "uv_",
    "uv__",
    "[node]",
    "Heap_",
];

const DOTNET_RUNTIME: &[&str] = &[
    "[libcoreclr",
    "[libclrjit",
    "WKS::",
    "SVR::",
    "JIT_",
    "coreclr_",
];

const CPYTHON_RUNTIME: &[&str] = &[
    "_Py",
    "Py",
    "[python",
    "[libpython",
    "dict_",
    "list_",
    "tuple",
    "unicode_",
    "long_",
    "float_",
    "frame_",
    "gc_",
    "lookdict",
    "method_",
    "type_",
    "object_",
    "slot_",
    "func_",
    "cfunction_",
    "insertdict",
    "visit_",
    "subtype_",
    "builtin_",
    "meth_",
    "bytes_",
    "set_",
    "call_",
    "vectorcall",
    "deduce_unreachable",
    "_copy_characters",
    "new_dict",
    "free_keys_object",
    "unicodekeys_",
];

const GO_RUNTIME: &[&str] = &["runtime.", "runtime·", "gcBgMarkWorker", "aeshashbody"];

const GHC_RUNTIME: &[&str] = &[
    "stg_",
    "rts_",
    "scavenge",
    "evacuate",
    "GarbageCollect",
    "gc_",
    "alloc_",
    "allocate",
    "schedule",
    "yieldCapability",
    "[libHSrts",
];

const RUST_RUNTIME: &[&str] = &["tokio::runtime", "<tokio::runtime", "mio::", "<mio::"];

/// libc's system call wrappers, whole names (a prefix would take `readable…` too).
pub const LIBC_NAMES: &[&str] = &[
    "read",
    "write",
    "readv",
    "writev",
    "recv",
    "send",
    "recvfrom",
    "sendto",
    "recvmsg",
    "sendmsg",
    "close",
    "accept4",
    "epoll_ctl",
    "ioctl",
    "poll",
    "futex",
];

/// Leaf symbols of libc, the dynamic loader and allocators, in every language.
pub const LIBC_PREFIXES: &[&str] = &[
    "[libc.so",
    "[libc-",
    "[ld-linux",
    "[libpthread",
    "[libm.so",
    "[libjemalloc",
    "[libmimalloc",
    "[libtcmalloc",
    "malloc",
    "free",
    "calloc",
    "realloc",
    "cfree",
    "_int_malloc",
    "_int_free",
    "_int_realloc",
    "__libc_",
    "__GI_",
    "__memcpy",
    "__memmove",
    "__memset",
    "__memcmp",
    "__memchr",
    "__strlen",
    "__strchr",
    "__strcmp",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
    "memchr",
    "strlen",
    "pthread_",
    "__pthread",
    "__lll_",
    "__futex",
    "je_",
    "_rjem_",
    "mi_",
    "_mi_",
    "tcache_",
    "__rust_alloc",
    "__rust_dealloc",
    "__rust_realloc",
    "__rdl_",
    "epoll_wait",
    "__send",
    "__recv",
    "__write",
    "__read",
    "__writev",
    "syscall",
    "__syscall",
    "__sched_yield",
    "clock_gettime",
    "__clock_gettime",
    "__vdso_",
    "[vdso]",
];

/// Kernel frames anywhere in a kernel stack that make it the network stack's (the socket
/// syscalls, TCP/IP, the loopback device and the softirqs that carry it, epoll).
pub const KERNEL_NETWORK_PREFIXES: &[&str] = &[
    "tcp_",
    "__tcp",
    "tcp",
    "ip_",
    "__ip",
    "ipv4_",
    "ip6_",
    "inet_",
    "__inet",
    "inet6_",
    "sock_",
    "__sock",
    "sk_",
    "__sk",
    "skb_",
    "__skb",
    "kfree_skb",
    "consume_skb",
    "__sys_sendto",
    "__sys_recvfrom",
    "__sys_sendmsg",
    "__sys_recvmsg",
    "__sys_accept",
    "__x64_sys_sendto",
    "__x64_sys_recvfrom",
    "__x64_sys_sendmsg",
    "__x64_sys_recvmsg",
    "__x64_sys_accept",
    "__x64_sys_epoll",
    "__x64_sys_shutdown",
    "do_epoll",
    "ep_",
    "__ep_",
    "epoll_",
    "net_rx",
    "netif_",
    "__netif",
    "napi_",
    "__napi",
    "loopback_xmit",
    "dev_hard_start_xmit",
    "__dev_queue_xmit",
    "dev_queue_xmit",
    "validate_xmit",
    "process_backlog",
    "lock_sock",
    "release_sock",
    "security_socket",
    "unix_stream",
    "nf_",
    "neigh_",
    "raw_local_deliver",
];
