//! Folding and the CPU split on recorded `perf script` output, one per runtime: kernel frames
//! (`_[k]`), JIT frames named from a perf map (`_[j]`, Java and Node), and frames perf could not
//! name, which stay `[unknown]` and are counted, never dropped. The fixtures are 30 samples each
//! of `restbench profile SUBJECT --workload plaintext --keep-script`, paths shortened.

use restbench_harness::profile::fold::{Part, classify, fold, part_of};
use restbench_harness::profile::perf::sample_count;
use restbench_harness::profile::runtime::for_language;
use restbench_testkit::turn;

fn fixture(lang: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/perf/{lang}.perf-script",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The sum of the folded counts (perf's periods), and each stack's frames.
fn stacks(folded: &str) -> (u64, Vec<Vec<String>>) {
    let mut total = 0;
    let mut all = Vec::new();
    for line in folded.lines() {
        let (stack, count) = line.rsplit_once(' ').expect("`stack count`");
        total += count.parse::<u64>().expect("a count");
        all.push(stack.split(';').map(String::from).collect());
    }
    (total, all)
}

/// Every sample of `script` is in the folded stacks, with its period.
fn assert_nothing_dropped(script: &str, folded: &str) {
    let periods: u64 = script
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with(char::is_whitespace))
        .map(|header| {
            let before_event = header
                .rsplit_once(" cpu-clock")
                .expect("a cpu-clock sample")
                .0;
            before_event
                .trim()
                .rsplit(' ')
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(stacks(folded).0, periods, "every sample's period is folded");
    assert_eq!(sample_count(script), 30);
}

#[test]
fn each_runtimes_recording_folds_into_its_own_named_frames() {
    let _turn = turn::take(module_path!());
    let named = [
        ("rust", "hyper::proto::h1"),
        ("go", "github.com/valyala/fasthttp"),
        ("node", "JS:"),
        ("java", "sun.nio.ch."),
        ("python", "_PyEval_EvalFrameDefault"),
    ];
    for (lang, own_name) in named {
        let script = fixture(lang);
        let folded = fold(&script).unwrap();
        assert_nothing_dropped(&script, &folded);
        let (_, all) = stacks(&folded);
        let frames: Vec<&String> = all.iter().flatten().collect();
        assert!(
            frames.iter().any(|f| f.contains(own_name)),
            "{lang}: a frame named {own_name}"
        );
        assert!(
            frames.iter().any(|f| f.ends_with("_[k]")),
            "{lang}: kernel frames are marked _[k]"
        );
        let split = classify(&folded, &for_language(lang)).split;
        let total: f64 = split.parts().iter().map(|(_, s)| s).sum();
        assert!((total - 1.0).abs() < 1e-9, "{lang}: the split sums to 1");
        assert!(split.kernel_network > 0.0, "{lang}: the TCP path is seen");
    }
}

#[test]
fn jit_frames_come_named_from_the_perf_map() {
    let _turn = turn::take(module_path!());
    for (lang, jitted) in [("java", "sun.nio.ch.IOUtil.write"), ("node", "JS:*")] {
        let folded = fold(&fixture(lang)).unwrap();
        let (_, all) = stacks(&folded);
        assert!(
            all.iter()
                .flatten()
                .any(|f| f.contains(jitted) && f.ends_with("_[j]")),
            "{lang}: {jitted} is a JIT frame (_[j]) named from /tmp/perf-PID.map"
        );
    }
    // HotSpot's compilers are the JVM's runtime, not the server's code.
    let java = classify(&fold(&fixture("java")).unwrap(), &for_language("java"));
    assert!(java.split.runtime > 0.0);
    assert!(
        java.top_symbols
            .iter()
            .any(|s| s.part == "runtime" && s.symbol.contains("::"))
    );
}

#[test]
fn unnamed_frames_stay_unknown_and_are_counted() {
    let _turn = turn::take(module_path!());
    for lang in ["rust", "node", "python"] {
        let folded = fold(&fixture(lang)).unwrap();
        assert!(
            folded.contains("[unknown]"),
            "{lang}: perf's [unknown] frames are kept"
        );
    }
    let script = "server 7 1.000000:    2004008 cpu-clock: \n\
                  \t    7f0000001234 [unknown] ([unknown])\n\
                  \t    55550000abcd main (/srv/server)\n\n\
                  server 7 1.002000:    2004008 cpu-clock: \n\
                  \t    55550000abce busy_loop (/srv/server)\n\
                  \t    55550000abcd main (/srv/server)\n\n";
    let folded = fold(script).unwrap();
    assert!(folded.contains("server;main;[unknown] 2004008"), "{folded}");
    let classified = classify(&folded, &for_language("c"));
    assert_eq!(classified.split.unknown, 0.5);
    assert_eq!(classified.split.own, 0.5);
    assert!(
        classified
            .top_symbols
            .iter()
            .any(|s| s.symbol == "[unknown]" && s.part == "unknown")
    );
}

#[test]
fn the_split_follows_the_frame_on_cpu() {
    let _turn = turn::take(module_path!());
    let rust = for_language("rust");
    let part = |stack: &str| part_of(&stack.split(';').collect::<Vec<_>>(), &rust);
    assert_eq!(
        part("s;main;__libc_write;entry_SYSCALL_64_[k];sock_sendmsg_[k];_raw_spin_unlock_[k]"),
        Part::KernelNetwork,
        "a lock taken inside the socket path is the network stack's"
    );
    assert_eq!(
        part("s;main;entry_SYSCALL_64_[k];__x64_sys_futex_[k]"),
        Part::KernelOther
    );
    assert_eq!(part("s;main;hyper::parse"), Part::Own);
    assert_eq!(part("s;main;tokio::runtime::park"), Part::Runtime);
    assert_eq!(part("s;main;malloc"), Part::Libc);
    assert_eq!(part("s;main;__memmove_avx_unaligned_erms"), Part::Libc);
    assert_eq!(part("s;main;[unknown]"), Part::Unknown);
    let go = for_language("go");
    assert_eq!(
        part_of(&["s", "main.serve", "runtime.mallocgc"], &go),
        Part::Runtime
    );
    let node = for_language("node");
    assert_eq!(
        part_of(&["node", "JS:*handler /srv/server.js:3:1_[j]"], &node),
        Part::Own
    );
    assert_eq!(
        part_of(&["node", "Builtins_CallFunction"], &node),
        Part::Runtime
    );
}

#[test]
fn flagged_runtimes_restart_for_the_slice_and_native_ones_do_not() {
    let _turn = turn::take(module_path!());
    let java = for_language("java");
    assert!(java.needs_restart() && java.jvm_perfmap);
    assert!(
        java.env
            .contains(&("JAVA_TOOL_OPTIONS", "-XX:+PreserveFramePointer"))
    );
    let node = for_language("node");
    assert!(
        node.env
            .contains(&("NODE_OPTIONS", "--perf-basic-prof-only-functions"))
    );
    for native in ["rust", "go", "haskell", "python"] {
        assert!(!for_language(native).needs_restart(), "{native}");
    }
    assert!(for_language("python").note.unwrap().contains("-X perf"));
}
