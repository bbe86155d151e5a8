//! The `static` workload's tree: six files from 1 KiB to 1 MiB whose bytes are a function of
//! their name, so that the harness can write the tree anywhere, the verifier can check every
//! byte a server sends, and two machines serve the same files without shipping any.
//!
//! The load draws the files in a fixed seeded mix ([`StaticFile::mix`]): small files often, the
//! 1 MiB one rarely, as a page load does (HttpArena's static profile rotates 20 files of 3 KB to
//! 300 KB).

/// The tree's version, part of the folder it is written to: a change to any file's bytes must
/// change it, so that no cached tree of an older version is served.
pub const STATIC_TREE_VERSION: u32 = 1;

/// Every file's modification time, 2026-01-01T00:00:00Z (seconds since the epoch): fixed, so that
/// `Last-Modified` and `If-Modified-Since` are the same on every machine.
pub const STATIC_MTIME_EPOCH: i64 = 1_767_225_600;

/// One file of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaticFile {
    pub name: &'static str,
    pub bytes: usize,
    /// The `Content-Type`s a server may answer with (the first is the usual one); a charset
    /// parameter after any of them is fine.
    pub content_types: &'static [&'static str],
    /// How often the load asks for it, against the other files' weights.
    pub weight: u32,
    text: bool,
}

/// The tree, smallest first.
pub const STATIC_FILES: [StaticFile; 6] = [
    StaticFile {
        name: "index.html",
        bytes: 1024,
        content_types: &["text/html"],
        weight: 8,
        text: true,
    },
    StaticFile {
        name: "readme.txt",
        bytes: 4 * 1024,
        content_types: &["text/plain"],
        weight: 4,
        text: true,
    },
    StaticFile {
        name: "style.css",
        bytes: 16 * 1024,
        content_types: &["text/css"],
        weight: 6,
        text: true,
    },
    StaticFile {
        name: "app.js",
        bytes: 64 * 1024,
        content_types: &[
            "text/javascript",
            "application/javascript",
            "application/x-javascript",
        ],
        weight: 6,
        text: true,
    },
    StaticFile {
        name: "data.json",
        bytes: 256 * 1024,
        content_types: &["application/json"],
        weight: 3,
        text: true,
    },
    StaticFile {
        name: "archive.bin",
        bytes: 1024 * 1024,
        content_types: &["application/octet-stream"],
        weight: 1,
        text: false,
    },
];

/// The seed of the mix's order.
const MIX_SEED: u64 = 0x5eed_57a7_1c00_0001;

/// Words the text files are made of: text that compresses as text does.
const WORDS: [&str; 16] = [
    "static",
    "files",
    "served",
    "from",
    "disk",
    "by",
    "the",
    "framework",
    "handler",
    "with",
    "etag",
    "and",
    "last",
    "modified",
    "bytes",
    "restbench",
];

impl StaticFile {
    /// The whole tree, smallest first.
    pub const ALL: [StaticFile; 6] = STATIC_FILES;

    /// The URL path the contract serves it at.
    pub fn path(&self) -> String {
        format!("/static/{}", self.name)
    }

    /// Its folder's name under a cache: the version is part of it.
    pub fn tree_folder() -> String {
        format!("static-tree-v{STATIC_TREE_VERSION}")
    }

    /// The file by name.
    pub fn named(name: &str) -> Option<StaticFile> {
        STATIC_FILES.into_iter().find(|f| f.name == name)
    }

    /// Its bytes: words on lines of at most 80 characters for a text file, pseudo-random bytes
    /// (incompressible, as an image or an archive is) for a binary one; exactly `bytes` long.
    pub fn contents(&self) -> Vec<u8> {
        let mut rng = SplitMix(fnv1a(self.name.as_bytes()));
        let mut out = Vec::with_capacity(self.bytes + 16);
        if self.text {
            let mut line = 0usize;
            while out.len() < self.bytes {
                let word = WORDS[(rng.next() % WORDS.len() as u64) as usize].as_bytes();
                if line + word.len() + 1 > 80 {
                    out.push(b'\n');
                    line = 0;
                } else if line > 0 {
                    out.push(b' ');
                    line += 1;
                }
                out.extend_from_slice(word);
                line += word.len();
            }
            out.truncate(self.bytes);
            if let Some(last) = out.last_mut() {
                *last = b'\n';
            }
        } else {
            out = pseudo_random_bytes(rng.next(), self.bytes);
        }
        out
    }

    /// The order the load asks for the files in, as indices into [`StaticFile::ALL`]: `len`
    /// draws from the weights by a fixed seed, so every run and every subject get the same
    /// sequence. Each connection starts at its own offset into it.
    pub fn mix(len: usize) -> Vec<usize> {
        let total: u64 = STATIC_FILES.iter().map(|f| u64::from(f.weight)).sum();
        let mut rng = SplitMix(MIX_SEED);
        (0..len)
            .map(|_| {
                let mut pick = rng.next() % total;
                STATIC_FILES
                    .iter()
                    .position(|f| {
                        let w = u64::from(f.weight);
                        if pick < w {
                            true
                        } else {
                            pick -= w;
                            false
                        }
                    })
                    .unwrap_or(0)
            })
            .collect()
    }

    /// The mean bytes of a file the mix asks for, by weight.
    pub fn mean_bytes() -> f64 {
        let total: u32 = STATIC_FILES.iter().map(|f| f.weight).sum();
        STATIC_FILES
            .iter()
            .map(|f| f.bytes as f64 * f64::from(f.weight))
            .sum::<f64>()
            / f64::from(total)
    }
}

/// `len` bytes drawn from `seed` (SplitMix64, little-endian): what `upload` sends, so that no
/// server can know its checksum before reading it.
pub fn pseudo_random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = SplitMix(seed);
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        out.extend_from_slice(&rng.next().to_le_bytes());
    }
    out.truncate(len);
    out
}

/// What `GET /download/{n}` answers: byte `i` is `i mod 256`.
pub fn download_bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 256) as u8).collect()
}

/// FNV-1a, 64 bits: a file's seed from its name.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64 (Steele, Lea and Flood): small, fast and the same everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_has_its_size_and_the_same_bytes_every_time() {
        for f in StaticFile::ALL {
            let a = f.contents();
            assert_eq!(a.len(), f.bytes, "{}", f.name);
            assert_eq!(a, f.contents(), "{}", f.name);
            assert_eq!(StaticFile::named(f.name), Some(f));
        }
        assert_eq!(StaticFile::named("missing.txt"), None);
        let html = StaticFile::named("index.html").unwrap().contents();
        assert!(html.is_ascii() && html.ends_with(b"\n"));
        assert!(html.split(|&b| b == b'\n').all(|l| l.len() <= 80));
        // Two files of one kind still differ: each is seeded by its name.
        assert_ne!(
            StaticFile::ALL[0].contents()[..512],
            StaticFile::ALL[1].contents()[..512]
        );
        assert_eq!(StaticFile::ALL[0].path(), "/static/index.html");
        assert_eq!(StaticFile::tree_folder(), "static-tree-v1");
    }

    #[test]
    fn the_mix_is_fixed_and_follows_the_weights() {
        let mix = StaticFile::mix(28_000);
        assert_eq!(mix, StaticFile::mix(28_000));
        let mut counts = [0usize; 6];
        for &i in &mix {
            counts[i] += 1;
        }
        for (f, n) in STATIC_FILES.iter().zip(counts) {
            let expected = 1000 * f.weight as usize;
            assert!(
                n.abs_diff(expected) < expected / 5 + 50,
                "{}: {n} vs {expected}",
                f.name
            );
        }
        let mean = StaticFile::mean_bytes();
        assert!((80_000.0..90_000.0).contains(&mean), "{mean}");
    }

    #[test]
    fn the_mtime_is_new_years_day_2026() {
        assert_eq!(
            crate::vocabulary::time::rfc3339(STATIC_MTIME_EPOCH),
            "2026-01-01T00:00:00Z"
        );
    }
}
