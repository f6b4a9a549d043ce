//! Finding the FMU's `resources/` folder, where the model file lives.
//!
//! `fmuResourceLocation` is an RFC 3986 URI (FMI 2.0 §2.1.5), but masters differ (notes §3,
//! pitfalls 11 and 19): `file:///abs/resources`, `file:/abs/resources`,
//! `file://localhost/abs`, percent-escapes, `file:///C:/…` on Windows, a plain path, the
//! FMU's root instead of `resources/`, an empty string or NULL. So the candidates are tried
//! in order — the given location, its `resources/` child, then `../../resources` beside the
//! binary itself (`binaries/<platform>/<id>.so`) — and the first that holds the model file
//! is used; the caller logs which one.

use crate::model::{CompiledModel, file as model_file};
use std::ffi::CStr;
use std::path::{Path, PathBuf};

/// Decodes a `file:` URI (or a plain path) into a path. `None` for other schemes, a remote
/// host, invalid percent-escapes or (on Windows) a path that is not UTF-8.
pub fn path_from_uri(uri: &str) -> Option<PathBuf> {
    let rest = match uri.get(..5) {
        Some(scheme) if scheme.eq_ignore_ascii_case("file:") => &uri[5..],
        // A plain path; "C:\…" has a one-letter "scheme" and is a path too.
        _ if !has_scheme(uri) => return Some(PathBuf::from(uri)),
        _ => return None,
    };
    let path = if let Some(after) = rest.strip_prefix("//") {
        // Authority: empty or localhost; anything else is a remote host (a UNC share on
        // Windows, `file://server/share/…`).
        let (host, path) = after.split_at(after.find('/').unwrap_or(after.len()));
        if host.is_empty() || host.eq_ignore_ascii_case("localhost") {
            path
        } else if cfg!(windows) {
            return decode_path(&format!("//{after}"));
        } else {
            return None;
        }
    } else {
        rest
    };
    // "/C:/dir" → "C:/dir" on Windows (file:///C:/dir and file:/C:/dir).
    let path = match path.as_bytes() {
        [b'/', d, b':', ..] if cfg!(windows) && d.is_ascii_alphabetic() => &path[1..],
        _ => path,
    };
    decode_path(path)
}

/// RFC 3986 scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`) of two or more
/// characters, so that a Windows drive letter is not taken for one.
fn has_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(i) if i >= 2 => {
            let mut chars = s[..i].chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }
        _ => false,
    }
}

fn decode_path(s: &str) -> Option<PathBuf> {
    let bytes = percent_decode(s)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(bytes).ok().map(PathBuf::from)
    }
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The folders to look in for `file_name`, in order, each with how it was found.
pub fn candidates(resource_location: Option<&CStr>) -> Vec<(PathBuf, &'static str)> {
    candidates_from(
        resource_location,
        path_from_uri,
        [
            "fmuResourceLocation",
            "the FMU root given as fmuResourceLocation",
        ],
    )
}

/// The folders to look in for an FMI 3.0 `resourcePath`: a plain file path (with a
/// trailing separator), taken as it is; a `file:` URI from an importer that confused the
/// two versions is decoded as well.
pub fn candidates_for_path(resource_path: Option<&CStr>) -> Vec<(PathBuf, &'static str)> {
    let to_dir = |path: &str| match path.get(..5) {
        Some(s) if s.eq_ignore_ascii_case("file:") => path_from_uri(path),
        _ => Some(PathBuf::from(path)),
    };
    candidates_from(
        resource_path,
        to_dir,
        ["resourcePath", "the FMU root given as resourcePath"],
    )
}

/// The given folder and its `resources/` child (each named by `how`), then the one beside
/// the binary.
fn candidates_from(
    given: Option<&CStr>,
    to_dir: impl Fn(&str) -> Option<PathBuf>,
    how: [&'static str; 2],
) -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    if let Some(text) = given.and_then(|c| c.to_str().ok())
        && !text.is_empty()
        && let Some(dir) = to_dir(text)
    {
        let child = dir.join("resources");
        out.push((dir, how[0]));
        out.push((child, how[1]));
    }
    out.extend(beside_the_binary());
    out
}

/// `../../resources` beside the binary (`binaries/<platform>/<id>.so`).
fn beside_the_binary() -> Vec<(PathBuf, &'static str)> {
    let mut out = Vec::new();
    if let Some(lib) = this_library_path()
        && let Some(platform_dir) = lib.parent()
        && let Some(binaries) = platform_dir.parent()
        && let Some(root) = binaries.parent()
    {
        out.push((
            root.join("resources"),
            "the binary's location (../../resources)",
        ));
    }
    out
}

/// Finds `file_name` among the [`candidates`]: its path and how it was found, or a message
/// listing every place that was tried.
pub fn locate(
    resource_location: Option<&CStr>,
    file_name: &str,
) -> Result<(PathBuf, &'static str), String> {
    find_in(
        candidates(resource_location),
        resource_location,
        "fmuResourceLocation",
        file_name,
    )
}

/// [`locate`] for an FMI 3.0 `resourcePath` ([`candidates_for_path`]).
pub fn locate_path(
    resource_path: Option<&CStr>,
    file_name: &str,
) -> Result<(PathBuf, &'static str), String> {
    find_in(
        candidates_for_path(resource_path),
        resource_path,
        "resourcePath",
        file_name,
    )
}

fn find_in(
    list: Vec<(PathBuf, &'static str)>,
    resource_location: Option<&CStr>,
    argument: &str,
    file_name: &str,
) -> Result<(PathBuf, &'static str), String> {
    for (dir, how) in &list {
        let path = dir.join(file_name);
        if path.is_file() {
            return Ok((path, how));
        }
    }
    let given = match resource_location {
        None => "NULL".to_string(),
        Some(c) => format!("\"{}\"", c.to_string_lossy()),
    };
    let tried: Vec<String> = list
        .iter()
        .map(|(d, _)| d.join(file_name).display().to_string())
        .collect();
    Err(format!(
        "the model file {file_name} was not found ({argument} {given}; tried: {}); extract the whole FMU, resources/ included",
        if tried.is_empty() {
            "nothing".into()
        } else {
            tried.join(", ")
        }
    ))
}

/// Reads and checks the model file at `path` (found through `how`, named in the error)
/// for the GUID / instantiation token `token`: size, format version, checksum, GUID.
pub fn read_model(path: &Path, how: &str, token: &str) -> Result<CompiledModel, String> {
    // A model file is kilobytes; anything this large is not one (and is not read).
    const MAX_MODEL_FILE: u64 = 256 << 20;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_MODEL_FILE {
        return Err(format!(
            "{} is {size} bytes, more than any hydromech model file ({MAX_MODEL_FILE})",
            path.display()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    model_file::decode(&bytes, token).map_err(|e| format!("{} ({how}): {e}", path.display()))
}

/// Path of the shared library this code is in (the FMU binary).
#[cfg(unix)]
fn this_library_path() -> Option<PathBuf> {
    let mut info = libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    let here = this_library_path as *const libc::c_void;
    // SAFETY: dladdr only reads the loader's tables; `info` is a valid out-pointer.
    if unsafe { libc::dladdr(here, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    use std::os::unix::ffi::OsStrExt;
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(name.to_bytes()));
    Some(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()))
}

/// Path of the DLL this code is in (the FMU binary): the module that contains this
/// function's address, then its file name.
#[cfg(windows)]
fn this_library_path() -> Option<PathBuf> {
    use std::os::windows::ffi::OsStringExt;
    type Hmodule = *mut std::ffi::c_void;
    const FROM_ADDRESS: u32 = 0x4; // GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS
    const UNCHANGED_REFCOUNT: u32 = 0x2; // GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetModuleHandleExW(flags: u32, name: *const u16, module: *mut Hmodule) -> i32;
        fn GetModuleFileNameW(module: Hmodule, file_name: *mut u16, size: u32) -> u32;
    }
    let mut module: Hmodule = std::ptr::null_mut();
    let here = this_library_path as *const u16;
    // SAFETY: with FROM_ADDRESS the name argument is an address inside a module; `module`
    // is a valid out-pointer; UNCHANGED_REFCOUNT means nothing has to be released.
    if unsafe { GetModuleHandleExW(FROM_ADDRESS | UNCHANGED_REFCOUNT, here, &mut module) } == 0 {
        return None;
    }
    let mut buf = vec![0u16; 32_768];
    // SAFETY: `buf` holds `buf.len()` UTF-16 units.
    let n = unsafe { GetModuleFileNameW(module, buf.as_mut_ptr(), buf.len() as u32) } as usize;
    (n > 0 && n < buf.len()).then(|| PathBuf::from(std::ffi::OsString::from_wide(&buf[..n])))
}

#[cfg(not(any(unix, windows)))]
fn this_library_path() -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_of_every_form_masters_send() {
        let p = |s: &str| path_from_uri(s).map(|p| p.to_string_lossy().into_owned());
        assert_eq!(
            p("file:///tmp/a/resources").as_deref(),
            Some("/tmp/a/resources")
        );
        assert_eq!(
            p("file:/tmp/a/resources").as_deref(),
            Some("/tmp/a/resources")
        );
        assert_eq!(p("FILE://localhost/tmp/a").as_deref(), Some("/tmp/a"));
        assert_eq!(
            p("file:///tmp/with%20space/%7Bguid%7D").as_deref(),
            Some("/tmp/with space/{guid}")
        );
        assert_eq!(p("/plain/path").as_deref(), Some("/plain/path"));
        assert_eq!(p("relative/dir").as_deref(), Some("relative/dir"));
        assert_eq!(p("http://example.org/resources"), None);
        assert_eq!(p("file:///bad%2"), None);
        assert_eq!(p("file:///bad%zz"), None);
        if cfg!(windows) {
            assert_eq!(
                p("file:///C:/x/resources").as_deref(),
                Some("C:/x/resources")
            );
            assert_eq!(p("file:/C:/x").as_deref(), Some("C:/x"));
            assert_eq!(p("C:\\x\\resources").as_deref(), Some("C:\\x\\resources"));
        } else {
            assert_eq!(p("file://server/share"), None);
        }
    }

    #[test]
    fn the_given_folder_comes_first_then_its_resources_child() {
        let c = candidates(Some(c"file:///opt/fmu"));
        assert_eq!(c[0].0, PathBuf::from("/opt/fmu"));
        assert_eq!(c[1].0, PathBuf::from("/opt/fmu/resources"));
        assert!(candidates(Some(c"")).len() <= 1);
        assert!(candidates(None).len() <= 1);
    }

    #[test]
    fn a_missing_file_names_every_place_tried() {
        let e = locate(Some(c"file:///nonexistent/dir"), "m.bin").unwrap_err();
        assert!(e.contains("/nonexistent/dir/m.bin"), "{e}");
        assert!(e.contains("/nonexistent/dir/resources/m.bin"), "{e}");
        assert!(
            e.contains("fmuResourceLocation \"file:///nonexistent/dir\""),
            "{e}"
        );
    }
}
