//! msctp-input: the one way `msctp` and the lab read a file a user names
//! (a scenario, an experiment and the scenario it points to, a
//! conformance script, an ns-3 results file): a regular file, read up to
//! a size limit, as UTF-8 text.
//!
//! Anything else fails at once with a clear error instead of running the
//! host out of memory (`/dev/zero`) or blocking forever (a FIFO nobody
//! writes): the file is opened without blocking (`O_NONBLOCK`, which
//! regular files ignore), checked on the open descriptor (so a path
//! swapped after a check cannot slip through), and read through a limit.
//!
//! The limit is [`DEFAULT_MAX_FILE_SIZE`] (16 MiB; the largest file the
//! repository ships is a few kB) unless the environment variable
//! [`MAX_FILE_SIZE_ENV`] gives another number of bytes. The errors are
//! `io::Error`s (kinds `InvalidInput` and `FileTooLarge`), so every
//! caller keeps its own error type and prefixes the path as before.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Largest file read, in bytes, unless [`MAX_FILE_SIZE_ENV`] says
/// otherwise.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 16 << 20;

/// The environment variable that overrides [`DEFAULT_MAX_FILE_SIZE`]
/// (a number of bytes, at least 1).
pub const MAX_FILE_SIZE_ENV: &str = "MSCTP_MAX_FILE_SIZE";

/// The limit in force: [`MAX_FILE_SIZE_ENV`] if set, else
/// [`DEFAULT_MAX_FILE_SIZE`]. A value that is not a positive number of
/// bytes is an error (not silently the default).
pub fn max_file_size() -> io::Result<u64> {
    match std::env::var(MAX_FILE_SIZE_ENV) {
        Err(std::env::VarError::NotPresent) => Ok(DEFAULT_MAX_FILE_SIZE),
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{MAX_FILE_SIZE_ENV}={v:?}: give a number of bytes, at least 1"),
            )),
        },
        Err(e) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{MAX_FILE_SIZE_ENV}: {e}"),
        )),
    }
}

/// Reads `path` as UTF-8 text with the limit in force ([`max_file_size`]).
pub fn read_text(path: &Path) -> io::Result<String> {
    read_text_limited(path, max_file_size()?)
}

/// Reads `path` as UTF-8 text: a regular file of at most `limit` bytes.
pub fn read_text_limited(path: &Path, limit: u64) -> io::Result<String> {
    let file = open_regular(path)?;
    let mut buf = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "larger than {limit} bytes, the limit for an input file \
                 (set {MAX_FILE_SIZE_ENV}=BYTES to raise it)"
            ),
        ));
    }
    String::from_utf8(buf).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// Opens `path` without blocking and checks, on the open file, that it
/// is a regular file.
fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let t = file.metadata()?.file_type();
    if t.is_file() {
        return Ok(file);
    }
    let what = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{what}, not a regular file: give a file"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.toml");
        std::fs::write(&p, "name = \"x\"\n").unwrap();
        assert_eq!(read_text_limited(&p, 11).unwrap(), "name = \"x\"\n");
        let e = read_text_limited(&p, 10).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains(MAX_FILE_SIZE_ENV), "{e}");
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        let e = read_text_limited(&p, 10).unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }

    #[test]
    fn devices_fifos_and_directories_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for (p, what) in [
            (Path::new("/dev/zero"), "a character device"),
            (fifo.as_path(), "a FIFO"),
            (dir.path(), "a directory"),
        ] {
            let e = read_text_limited(p, 1 << 20).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{p:?}");
            assert!(e.to_string().starts_with(what), "{e}");
        }
    }
}
