//! A shared library and its symbols: `dlopen` on POSIX (from the `libc` crate, already a
//! dependency), `LoadLibraryExW` on Windows (four kernel32 functions, declared here). Two
//! platforms and four calls each do not need a wrapper crate.

use std::ffi::{CString, c_void};
use std::path::Path;
use std::ptr::NonNull;

/// A loaded library, unloaded on drop.
pub struct Handle(NonNull<c_void>);

impl Handle {
    /// Loads `path` with every symbol bound up front (no lazy binding inside a timed loop)
    /// and nothing leaked into a global namespace (several FMUs export the same names).
    pub fn open(path: &Path) -> Result<Handle, String> {
        NonNull::new(sys::open(path)?)
            .map(Handle)
            .ok_or_else(|| format!("{}: {}", path.display(), sys::last_error()))
    }

    /// The address of the exported `name`.
    pub fn symbol(&self, name: &str) -> Result<*mut c_void, String> {
        let c_name = CString::new(name).map_err(|_| format!("symbol {name:?} has a NUL byte"))?;
        let p = sys::symbol(self.0.as_ptr(), &c_name);
        if p.is_null() {
            Err(format!("symbol {name} not found: {}", sys::last_error()))
        } else {
            Ok(p)
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        sys::close(self.0.as_ptr());
    }
}

#[cfg(unix)]
mod sys {
    use std::ffi::{CStr, CString, c_void};
    use std::path::Path;

    pub fn open(path: &Path) -> Result<*mut c_void, String> {
        let c_path = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| format!("{} contains a NUL byte", path.display()))?;
        // SAFETY: valid C string; loading runs the library's initialisers (Rust cdylib).
        Ok(unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) })
    }

    pub fn symbol(handle: *mut c_void, name: &CStr) -> *mut c_void {
        // SAFETY: handle is live; name is a C string.
        unsafe { libc::dlsym(handle, name.as_ptr()) }
    }

    pub fn close(handle: *mut c_void) {
        // SAFETY: handle from dlopen, closed once (Handle's drop).
        unsafe { libc::dlclose(handle) };
    }

    pub fn last_error() -> String {
        // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next call.
        let e = unsafe { libc::dlerror() };
        if e.is_null() {
            "unknown dl error".into()
        } else {
            // SAFETY: see above.
            unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
        }
    }
}

#[cfg(windows)]
mod sys {
    use std::ffi::{CStr, c_char, c_void};
    use std::os::windows::ffi::OsStrExt;
    use std::path::Path;

    /// The DLL's own folder is searched for its dependencies (FMI 2.0 §2.1.3 lets an FMU
    /// carry them beside its DLL).
    const LOAD_WITH_ALTERED_SEARCH_PATH: u32 = 0x8;

    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn LoadLibraryExW(name: *const u16, file: *mut c_void, flags: u32) -> *mut c_void;
        fn GetProcAddress(module: *mut c_void, name: *const c_char) -> *mut c_void;
        fn FreeLibrary(module: *mut c_void) -> i32;
        fn GetLastError() -> u32;
    }

    pub fn open(path: &Path) -> Result<*mut c_void, String> {
        let wide: Vec<u16> = path.as_os_str().encode_wide().chain(Some(0)).collect();
        if wide[..wide.len() - 1].contains(&0) {
            return Err(format!("{} contains a NUL character", path.display()));
        }
        // SAFETY: NUL-terminated UTF-16 path; the flags are a documented constant.
        Ok(unsafe {
            LoadLibraryExW(
                wide.as_ptr(),
                std::ptr::null_mut(),
                LOAD_WITH_ALTERED_SEARCH_PATH,
            )
        })
    }

    pub fn symbol(handle: *mut c_void, name: &CStr) -> *mut c_void {
        // SAFETY: handle is a live module; name is a C string.
        unsafe { GetProcAddress(handle, name.as_ptr()) }
    }

    pub fn close(handle: *mut c_void) {
        // SAFETY: handle from LoadLibraryExW, freed once (Handle's drop).
        unsafe { FreeLibrary(handle) };
    }

    pub fn last_error() -> String {
        // SAFETY: reads the calling thread's last-error code.
        format!("Windows error {}", unsafe { GetLastError() })
    }
}
