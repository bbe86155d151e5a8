//! The `static` workload's tree on disk: written once per cache from [`StaticFile`]'s bytes,
//! every file's mtime set to the tree's fixed date, and checked byte for byte before each server
//! start, so that a damaged or half-written tree is written again rather than served.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime};

use restbench_model::{STATIC_MTIME_EPOCH, StaticFile};

use crate::HarnessError;

/// Distinguishes the scratch folders of two writers in one process.
static SCRATCH: AtomicU32 = AtomicU32::new(0);

/// The tree under `cache`, written or repaired first when it is not whole: the folder a
/// subject gets as `STATIC_DIR`.
pub fn ensure(cache: &Path) -> Result<PathBuf, HarnessError> {
    let dir = cache.join(StaticFile::tree_folder());
    if is_whole(&dir) {
        return Ok(dir);
    }
    let scratch = cache.join(format!(
        ".{}.{}-{}",
        StaticFile::tree_folder(),
        std::process::id(),
        SCRATCH.fetch_add(1, Ordering::Relaxed)
    ));
    let io = |what: &str, e| HarnessError::io(format!("cannot write the static tree ({what})"), e);
    fs::create_dir_all(&scratch).map_err(|e| io(&scratch.display().to_string(), e))?;
    let written = write_files(&scratch);
    if let Err(e) = written {
        let _ = fs::remove_dir_all(&scratch);
        return Err(e);
    }
    // A damaged tree is removed, then replaced in one rename; a writer that lost the race to
    // another finds a whole tree in place and drops its own.
    if dir.exists() && !is_whole(&dir) {
        let _ = fs::remove_dir_all(&dir);
    }
    if fs::rename(&scratch, &dir).is_err() {
        let _ = fs::remove_dir_all(&scratch);
    }
    if is_whole(&dir) {
        Ok(dir)
    } else {
        Err(HarnessError::io(
            format!("cannot write the static tree at {}", dir.display()),
            std::io::Error::other("its files do not read back as written"),
        ))
    }
}

fn write_files(dir: &Path) -> Result<(), HarnessError> {
    let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(STATIC_MTIME_EPOCH as u64);
    for file in StaticFile::ALL {
        let path = dir.join(file.name);
        let io = |e| HarnessError::io(format!("cannot write {}", path.display()), e);
        fs::write(&path, file.contents()).map_err(io)?;
        fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(mtime))
            .map_err(io)?;
    }
    Ok(())
}

/// Every file there with its bytes and its mtime.
fn is_whole(dir: &Path) -> bool {
    let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(STATIC_MTIME_EPOCH as u64);
    StaticFile::ALL.iter().all(|file| {
        let path = dir.join(file.name);
        fs::metadata(&path)
            .is_ok_and(|m| m.len() == file.bytes as u64 && m.modified().ok() == Some(mtime))
            && fs::read(&path).is_ok_and(|bytes| bytes == file.contents())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_is_written_once_and_a_damaged_one_is_written_again() {
        let cache = tempfile::tempdir().unwrap();
        let dir = ensure(cache.path()).unwrap();
        assert_eq!(dir, cache.path().join("static-tree-v1"));
        for file in StaticFile::ALL {
            assert_eq!(fs::read(dir.join(file.name)).unwrap(), file.contents());
        }
        let modified = fs::metadata(dir.join("index.html"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(
            modified
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_secs() as i64,
            STATIC_MTIME_EPOCH
        );
        // One byte changed (same size, same mtime reset) is found and repaired.
        let app = dir.join("app.js");
        let mut bytes = fs::read(&app).unwrap();
        bytes[100] ^= 1;
        fs::write(&app, &bytes).unwrap();
        assert_eq!(ensure(cache.path()).unwrap(), dir);
        assert_eq!(
            fs::read(&app).unwrap(),
            StaticFile::named("app.js").unwrap().contents()
        );
        fs::remove_file(dir.join("archive.bin")).unwrap();
        ensure(cache.path()).unwrap();
        assert!(is_whole(&dir));
        // No scratch folder is left behind.
        let names: Vec<_> = fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["static-tree-v1"]);
    }
}
