//! A minimal FMI 2.0 Co-Simulation master: unzip the FMU, load its
//! `binaries/linux64/<modelIdentifier>.so` (`win64/….dll` on Windows; [`super::dylib`]),
//! resolve the `fmi2*` functions with their standard C signatures (`fmi2FunctionTypes.h`)
//! and drive an instance.
//!
//! Written against the standard, not against fmu-runtime's Rust types, so that it checks
//! the ABI the way a third-party master does.

use super::dylib::Handle;
use super::xml::{self, ModelDescription};
use crate::host::fmu_xml;
use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::fs;
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

pub type Fmi2Component = *mut c_void;
pub type Fmi2Status = c_int;
pub const FMI2_OK: Fmi2Status = 0;
pub const FMI2_WARNING: Fmi2Status = 1;
pub const FMI2_DISCARD: Fmi2Status = 2;
const FMI2_CO_SIMULATION: c_int = 1;
const FMI2_TRUE: c_int = 1;
const FMI2_FALSE: c_int = 0;

pub fn status_name(s: Fmi2Status) -> &'static str {
    match s {
        0 => "fmi2OK",
        1 => "fmi2Warning",
        2 => "fmi2Discard",
        3 => "fmi2Error",
        4 => "fmi2Fatal",
        5 => "fmi2Pending",
        _ => "invalid status",
    }
}

/// `fmi2CallbackLogger` (printf-style, variadic).
type Logger =
    unsafe extern "C" fn(*mut c_void, *const c_char, Fmi2Status, *const c_char, *const c_char, ...);

/// `fmi2CallbackFunctions`.
#[repr(C)]
pub struct CallbackFunctions {
    logger: Option<Logger>,
    allocate_memory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    free_memory: Option<unsafe extern "C" fn(*mut c_void)>,
    step_finished: Option<unsafe extern "C" fn(*mut c_void, Fmi2Status)>,
    component_environment: *mut c_void,
}

/// What the logger collects: messages of status Warning or worse (at most 100).
#[derive(Default)]
pub struct LogSink {
    pub messages: Mutex<Vec<String>>,
}

/// The logger. Rust cannot define a C-variadic function on stable, so this is a
/// non-variadic function with one extra pointer argument, called through the variadic
/// pointer type: on the x86-64 System V and AArch64 Linux ABIs the first variadic pointer
/// argument travels in the same register as a sixth fixed one. fmu-runtime always calls
/// the logger with the format `"%s"` and the message as that argument; any other format is
/// reported verbatim without reading the argument.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
unsafe extern "C" fn collect_log(
    env: *mut c_void,
    _instance: *const c_char,
    status: Fmi2Status,
    category: *const c_char,
    format: *const c_char,
    arg0: *const c_char,
) {
    if env.is_null() || status < FMI2_WARNING {
        return;
    }
    // SAFETY: env is the LogSink we registered; strings are NUL-terminated (FMI).
    let sink = unsafe { &*(env as *const LogSink) };
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: see above.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    let fmt = text(format);
    let message = if fmt == "%s" { text(arg0) } else { fmt };
    if let Ok(mut m) = sink.messages.lock()
        && m.len() < 100
    {
        m.push(format!(
            "[{}] {}: {message}",
            status_name(status),
            text(category)
        ));
    }
}

fn logger() -> Option<Logger> {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    {
        type Fixed = unsafe extern "C" fn(
            *mut c_void,
            *const c_char,
            Fmi2Status,
            *const c_char,
            *const c_char,
            *const c_char,
        );
        let f: Fixed = collect_log;
        // SAFETY: same calling convention for these arguments (see collect_log).
        Some(unsafe { std::mem::transmute::<Fixed, Logger>(f) })
    }
    #[cfg(not(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )))]
    {
        None
    }
}

unsafe extern "C" fn allocate(n: usize, size: usize) -> *mut c_void {
    // SAFETY: calloc is sound for any arguments.
    unsafe { libc::calloc(n, size) }
}

unsafe extern "C" fn free(p: *mut c_void) {
    // SAFETY: p came from allocate (calloc) or is NULL.
    unsafe { libc::free(p) }
}

// The `fmi2*` function types of `fmi2FunctionTypes.h` (fmi2Boolean and enums are C ints).
pub type GetVersionFn = unsafe extern "C" fn() -> *const c_char;
pub type InstantiateFn = unsafe extern "C" fn(
    *const c_char,
    c_int,
    *const c_char,
    *const c_char,
    *const CallbackFunctions,
    c_int,
    c_int,
) -> Fmi2Component;
pub type FreeInstanceFn = unsafe extern "C" fn(Fmi2Component);
pub type SetupExperimentFn =
    unsafe extern "C" fn(Fmi2Component, c_int, f64, f64, c_int, f64) -> Fmi2Status;
pub type ComponentFn = unsafe extern "C" fn(Fmi2Component) -> Fmi2Status;
pub type DoStepFn = unsafe extern "C" fn(Fmi2Component, f64, f64, c_int) -> Fmi2Status;
pub type SetRealFn =
    unsafe extern "C" fn(Fmi2Component, *const c_uint, usize, *const f64) -> Fmi2Status;
pub type GetRealFn =
    unsafe extern "C" fn(Fmi2Component, *const c_uint, usize, *mut f64) -> Fmi2Status;
pub type SetIntegerFn =
    unsafe extern "C" fn(Fmi2Component, *const c_uint, usize, *const c_int) -> Fmi2Status;
pub type GetIntegerFn =
    unsafe extern "C" fn(Fmi2Component, *const c_uint, usize, *mut c_int) -> Fmi2Status;

macro_rules! functions {
    ($($f:ident: $t:ty),* $(,)?) => {
        /// The resolved `fmi2*` functions of one shared library.
        #[allow(non_snake_case)]
        pub struct Functions {
            $(pub $f: $t,)*
        }

        impl Functions {
            fn resolve(sym: impl Fn(&str) -> Result<*mut c_void, String>) -> Result<Functions, String> {
                Ok(Functions { $(
                    // SAFETY: the FMI 2.0 standard fixes the signature of every fmi2* symbol;
                    // the field types declare exactly those.
                    $f: unsafe { std::mem::transmute::<*mut c_void, $t>(sym(stringify!($f))?) },
                )* })
            }
        }
    };
}

functions! {
    fmi2GetVersion: GetVersionFn,
    fmi2GetTypesPlatform: GetVersionFn,
    fmi2Instantiate: InstantiateFn,
    fmi2FreeInstance: FreeInstanceFn,
    fmi2SetupExperiment: SetupExperimentFn,
    fmi2EnterInitializationMode: ComponentFn,
    fmi2ExitInitializationMode: ComponentFn,
    fmi2Terminate: ComponentFn,
    fmi2DoStep: DoStepFn,
    fmi2SetReal: SetRealFn,
    fmi2GetReal: GetRealFn,
    fmi2SetInteger: SetIntegerFn,
    fmi2GetInteger: GetIntegerFn,
    fmi2SetBoolean: SetIntegerFn,
}

/// An FMU's shared library (unloaded on drop) and its `fmi2*` functions.
pub struct Library {
    _handle: Handle,
    pub functions: Functions,
}

// SAFETY: the handle is only unloaded on drop, and the functions are plain `extern "C"`
// entry points. Whether two instances may step on two threads at once is the FMU's
// property (FMI 2.0 §2.1.5 leaves it to the FMU): a hydromech FMU keeps no global mutable
// state, and `hydromech sweep` runs a foreign FMU on one thread.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

/// This host's FMI 2.0 platform folder and library suffix: the FMU binary it can load.
pub const PLATFORM: Option<(&str, &str)> = if cfg!(all(target_arch = "x86_64", target_os = "linux"))
{
    Some(("linux64", "so"))
} else if cfg!(all(target_arch = "x86_64", windows)) {
    Some(("win64", "dll"))
} else {
    None
};

impl Library {
    /// Loads the library with every symbol bound up front and nothing leaked into a global
    /// namespace ([`Handle::open`]) and resolves the `fmi2*` functions.
    pub fn open(path: &Path) -> Result<Library, String> {
        let handle = Handle::open(path)?;
        let sym = |name: &str| {
            handle
                .symbol(name)
                .map_err(|e| format!("{}: {e}", path.display()))
        };
        let functions = Functions::resolve(sym)?;
        Ok(Library {
            _handle: handle,
            functions,
        })
    }

    /// `fmi2GetVersion()`, `fmi2GetTypesPlatform()`.
    pub fn version(&self) -> (String, String) {
        // SAFETY: both return static C strings (FMI 2.0).
        unsafe {
            (
                CStr::from_ptr((self.functions.fmi2GetVersion)())
                    .to_string_lossy()
                    .into_owned(),
                CStr::from_ptr((self.functions.fmi2GetTypesPlatform)())
                    .to_string_lossy()
                    .into_owned(),
            )
        }
    }
}

/// An unpacked FMU: its temporary directory (removed on drop), description and library.
pub struct Fmu {
    pub path: PathBuf,
    pub dir: PathBuf,
    pub description: ModelDescription,
    /// Unloaded by `Drop for Fmu` before it removes the directory: Windows cannot delete
    /// a loaded DLL.
    pub library: ManuallyDrop<Library>,
}

static UNPACKED: AtomicU64 = AtomicU64::new(0);

impl Fmu {
    /// Unzips `fmu` into a fresh temporary directory and loads its binary for this host
    /// ([`PLATFORM`]; elsewhere an error that says why).
    pub fn load(fmu: &Path) -> Result<Fmu, String> {
        let dir = std::env::temp_dir().join(format!(
            "hydromech-bench-{}-{}",
            std::process::id(),
            UNPACKED.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        let result = Self::load_into(fmu, &dir);
        if result.is_err() {
            let _ = fs::remove_dir_all(&dir);
        }
        result
    }

    fn load_into(fmu: &Path, dir: &Path) -> Result<Fmu, String> {
        let mut zip = fmu_xml::open_fmu(fmu)?;
        zip.extract(dir).map_err(|e| {
            format!(
                "{}: cannot unpack into {}: {e}",
                fmu.display(),
                dir.display()
            )
        })?;
        let text = fmu_xml::model_description_text(&mut zip, fmu)?;
        let description = xml::parse(&text).map_err(|e| format!("{}: {e}", fmu.display()))?;
        // This master is FMI 2.0, whose platform folders are linux64, win64 and darwin64:
        // on any other host (an AArch64 wheel) say so rather than load a foreign binary.
        let Some((platform, suffix)) = PLATFORM else {
            return Err(format!(
                "{}: running FMUs here needs a {} binary, and FMI 2.0 FMUs (which hydromech's \
                 runner takes) carry x86-64 Linux and Windows binaries only; run on x86-64 \
                 Linux or Windows, or import the FMI 3.0 FMU (its aarch64-linux binary) in \
                 another tool",
                fmu.display(),
                std::env::consts::ARCH
            ));
        };
        let binary = dir
            .join("binaries")
            .join(platform)
            .join(format!("{}.{suffix}", description.model_identifier));
        let library = Library::open(&binary)?;
        Ok(Fmu {
            path: fmu.to_path_buf(),
            dir: dir.to_path_buf(),
            description,
            library: ManuallyDrop::new(library),
        })
    }

    /// `fmi2Instantiate` (Co-Simulation, logging off) with the GUID of the description.
    pub fn instantiate(&self, name: &str) -> Result<Instance<'_>, String> {
        self.instantiate_at(name, None)
    }

    /// [`Fmu::instantiate`] with another resources folder (a sweep's variant of the
    /// description, compiled into a model file of the same GUID and interface).
    pub fn instantiate_at(
        &self,
        name: &str,
        resources: Option<&Path>,
    ) -> Result<Instance<'_>, String> {
        let sink = Box::new(LogSink::default());
        let callbacks = Box::new(CallbackFunctions {
            logger: logger(),
            allocate_memory: Some(allocate),
            free_memory: Some(free),
            step_finished: None,
            component_environment: &*sink as *const LogSink as *mut c_void,
        });
        let c_name = CString::new(name).map_err(|_| "instance name has a NUL byte")?;
        let guid =
            CString::new(self.description.guid.as_str()).map_err(|_| "GUID has a NUL byte")?;
        let location = match resources {
            Some(r) => format!("file://{}", r.display()),
            None => format!("file://{}/resources", self.dir.display()),
        };
        let location = CString::new(location).map_err(|_| "path has a NUL byte")?;
        // SAFETY: FMI 2.0 calling conventions: C strings, callbacks outlive the instance.
        let c = unsafe {
            (self.library.functions.fmi2Instantiate)(
                c_name.as_ptr(),
                FMI2_CO_SIMULATION,
                guid.as_ptr(),
                location.as_ptr(),
                &*callbacks,
                FMI2_FALSE,
                FMI2_FALSE,
            )
        };
        if c.is_null() {
            return Err(format!("fmi2Instantiate returned NULL{}", log_tail(&sink)));
        }
        Ok(Instance {
            fmu: self,
            c,
            sink,
            _callbacks: callbacks,
        })
    }
}

impl Drop for Fmu {
    fn drop(&mut self) {
        // SAFETY: dropped once, here; every instance borrows the Fmu and is gone.
        unsafe { ManuallyDrop::drop(&mut self.library) };
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn log_tail(sink: &LogSink) -> String {
    match sink.messages.lock() {
        Ok(m) if !m.is_empty() => format!(": {}", m.join("; ")),
        _ => String::new(),
    }
}

/// A live FMU instance (freed on drop).
pub struct Instance<'a> {
    fmu: &'a Fmu,
    pub c: Fmi2Component,
    sink: Box<LogSink>,
    _callbacks: Box<CallbackFunctions>,
}

impl<'a> Instance<'a> {
    pub fn functions(&self) -> &'a Functions {
        &self.fmu.library.functions
    }

    /// Turns a status into a result, with the logged messages on failure.
    pub fn check(&self, what: &str, s: Fmi2Status) -> Result<(), String> {
        if s == FMI2_OK || s == FMI2_WARNING {
            Ok(())
        } else {
            Err(format!(
                "{what}: {}{}",
                status_name(s),
                log_tail(&self.sink)
            ))
        }
    }

    /// `fmi2SetupExperiment` + `fmi2EnterInitializationMode` + `fmi2ExitInitializationMode`.
    pub fn initialize(&self, start: f64, stop: Option<f64>) -> Result<(), String> {
        let f = self.functions();
        // SAFETY: live instance (FMI calling conventions).
        unsafe {
            self.check(
                "fmi2SetupExperiment",
                (f.fmi2SetupExperiment)(
                    self.c,
                    FMI2_FALSE,
                    0.0,
                    start,
                    if stop.is_some() {
                        FMI2_TRUE
                    } else {
                        FMI2_FALSE
                    },
                    stop.unwrap_or(0.0),
                ),
            )?;
            self.check(
                "fmi2EnterInitializationMode",
                (f.fmi2EnterInitializationMode)(self.c),
            )?;
            self.check(
                "fmi2ExitInitializationMode",
                (f.fmi2ExitInitializationMode)(self.c),
            )
        }
    }

    /// `fmi2DoStep` (noSetFMUStatePriorToCurrentPoint = true, as a master that never rolls
    /// back).
    #[inline]
    pub fn do_step(&self, t: f64, h: f64) -> Fmi2Status {
        // SAFETY: live instance.
        unsafe { (self.functions().fmi2DoStep)(self.c, t, h, FMI2_TRUE) }
    }

    #[inline]
    pub fn set_real(&self, vr: &[u32], values: &[f64]) -> Fmi2Status {
        debug_assert_eq!(vr.len(), values.len());
        // SAFETY: both slices hold vr.len() elements.
        unsafe { (self.functions().fmi2SetReal)(self.c, vr.as_ptr(), vr.len(), values.as_ptr()) }
    }

    #[inline]
    pub fn get_real(&self, vr: &[u32], values: &mut [f64]) -> Fmi2Status {
        debug_assert_eq!(vr.len(), values.len());
        // SAFETY: both slices hold vr.len() elements.
        unsafe {
            (self.functions().fmi2GetReal)(self.c, vr.as_ptr(), vr.len(), values.as_mut_ptr())
        }
    }

    #[inline]
    pub fn get_integer(&self, vr: &[u32], values: &mut [c_int]) -> Fmi2Status {
        debug_assert_eq!(vr.len(), values.len());
        // SAFETY: both slices hold vr.len() elements.
        unsafe {
            (self.functions().fmi2GetInteger)(self.c, vr.as_ptr(), vr.len(), values.as_mut_ptr())
        }
    }

    pub fn set_boolean(&self, vr: &[u32], values: &[c_int]) -> Fmi2Status {
        // SAFETY: both slices hold vr.len() elements (fmi2Boolean is an int).
        unsafe { (self.functions().fmi2SetBoolean)(self.c, vr.as_ptr(), vr.len(), values.as_ptr()) }
    }

    pub fn set_integer(&self, vr: &[u32], values: &[c_int]) -> Fmi2Status {
        // SAFETY: both slices hold vr.len() elements.
        unsafe { (self.functions().fmi2SetInteger)(self.c, vr.as_ptr(), vr.len(), values.as_ptr()) }
    }

    /// Messages logged so far (Warning or worse).
    pub fn messages(&self) -> Vec<String> {
        self.sink
            .messages
            .lock()
            .map(|m| m.clone())
            .unwrap_or_default()
    }
}

impl Drop for Instance<'_> {
    fn drop(&mut self) {
        let f = self.functions();
        // SAFETY: live instance, freed once.
        unsafe {
            let _ = (f.fmi2Terminate)(self.c);
            (f.fmi2FreeInstance)(self.c);
        }
    }
}

/// Resident set size [bytes] from `/proc/self/statm` (None elsewhere).
pub fn rss_bytes() -> Option<u64> {
    #[cfg(unix)]
    {
        let s = fs::read_to_string("/proc/self/statm").ok()?;
        let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
        // SAFETY: sysconf is always safe to call.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        Some(pages * page.max(1) as u64)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Bytes in use on the malloc heap (glibc `mallinfo2().uordblks`). The FMU allocates with
/// Rust's system allocator, i.e. the same malloc, so the difference around
/// `fmi2Instantiate` + initialization is the instance's heap memory.
pub fn heap_bytes() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads allocator statistics.
        let m = unsafe { libc::mallinfo2() };
        Some(m.uordblks as u64)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        None
    }
}
