//! The shell and `PATH` restbench runs every command through.

use std::path::{Path, PathBuf};

/// `text` as one `/bin/sh` word: single-quoted, each `'` written as `'\''`. Inside single quotes
/// the shell expands nothing (`$`, backquotes, `\`, spaces and newlines are literal).
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The executable `tool` would run as: itself when it names a path, else the first executable
/// of that name on `PATH`.
pub fn find_on_path(tool: &str) -> Option<PathBuf> {
    if tool.contains('/') {
        let p = PathBuf::from(tool);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| is_executable(p))
}

/// A regular file with an execute bit.
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_survive_the_shell() {
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert!(find_on_path("sh").is_some());
        assert_eq!(find_on_path("/no/such/tool"), None);
    }
}
