//! Logging through the master's `fmi2CallbackLogger` (or, for an instance made by
//! `fmi3InstantiateCoSimulation`, its `fmi3LogMessageCallback`).
//!
//! * The FMI 2.0 logger is a printf-style variadic C function. We never pass a message as the
//!   format: the format is always `"%s"` and the message its argument, so a `%` in a
//!   variable name or error text cannot read random stack memory (pitfall 10).
//! * `#` is FMI's escape character (`#r12#` names a variable), so a literal `#` is sent as
//!   `##`.
//! * Which messages are sent (our choice, as in the Reference-FMUs): a message whose status
//!   is not `fmi2OK` (warning, discard, error, fatal) is **always** sent when a logger is
//!   present, whatever `loggingOn` and `fmi2SetDebugLogging` say. It explains a non-OK
//!   return value, which masters (FMPy, Simulink, ...) print; the standard calls the
//!   switchable output "debug logging". Messages with status `fmi2OK` (events, call traces)
//!   are sent only if their category is enabled.
//! * The category names are declared once, in [`LOG_CATEGORIES`]; the model compiler writes
//!   the same list into `<LogCategories>` of `modelDescription.xml`.

use crate::fmi2::types::{fmi2CallbackLogger, fmi2ComponentEnvironment, fmi2Status};
use crate::fmi3::types::{fmi3LogMessageCallback, fmi3Status};
use std::ffi::{CStr, CString};

/// One entry of `<LogCategories>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogCategory {
    pub name: &'static str,
    /// The same name as a C string, passed to the logger as `category`.
    pub c_name: &'static CStr,
    pub description: &'static str,
}

/// Index of a category in [`LOG_CATEGORIES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(usize)]
pub enum Category {
    Events = 0,
    StatusWarning = 1,
    StatusDiscard = 2,
    StatusError = 3,
    StatusFatal = 4,
    All = 5,
}

/// The log categories of every hydromech FMU, in `modelDescription.xml` order.
pub const LOG_CATEGORIES: [LogCategory; 6] = [
    LogCategory {
        name: "logEvents",
        c_name: c"logEvents",
        description: "Mode changes of the FMU (initialization, termination, reset, FMU state restored)",
    },
    LogCategory {
        name: "logStatusWarning",
        c_name: c"logStatusWarning",
        description: "Messages of calls that return fmi2Warning",
    },
    LogCategory {
        name: "logStatusDiscard",
        c_name: c"logStatusDiscard",
        description: "Messages of calls that return fmi2Discard (e.g. a failed communication step)",
    },
    LogCategory {
        name: "logStatusError",
        c_name: c"logStatusError",
        description: "Messages of calls that return fmi2Error",
    },
    LogCategory {
        name: "logStatusFatal",
        c_name: c"logStatusFatal",
        description: "Messages of calls that return fmi2Fatal",
    },
    LogCategory {
        name: "logAll",
        c_name: c"logAll",
        description: "Trace of every FMI function call and its arguments",
    },
];

const N: usize = LOG_CATEGORIES.len();

impl Category {
    pub fn info(self) -> &'static LogCategory {
        &LOG_CATEGORIES[self as usize]
    }

    /// The category of a message with a given non-OK status.
    pub fn of_status(status: fmi2Status) -> Category {
        match status {
            fmi2Status::fmi2Warning => Category::StatusWarning,
            fmi2Status::fmi2Discard => Category::StatusDiscard,
            fmi2Status::fmi2Error => Category::StatusError,
            fmi2Status::fmi2Fatal => Category::StatusFatal,
            fmi2Status::fmi2OK | fmi2Status::fmi2Pending => Category::Events,
        }
    }

    fn from_name(name: &[u8]) -> Option<usize> {
        LOG_CATEGORIES
            .iter()
            .position(|c| c.name.as_bytes() == name)
    }
}

/// Where messages go: the callback of the FMI version the instance was made with.
#[derive(Clone, Copy, Debug)]
enum Sink {
    Fmi2(fmi2CallbackLogger),
    Fmi3(fmi3LogMessageCallback),
}

/// The copied logger callback plus the per-category switches of one instance.
#[derive(Debug)]
pub struct Logger {
    sink: Sink,
    environment: fmi2ComponentEnvironment,
    instance_name: CString,
    enabled: [bool; N],
}

impl Logger {
    /// `logging_on` is the `loggingOn` argument of `fmi2Instantiate`: all categories on or off.
    pub fn new(
        callback: fmi2CallbackLogger,
        environment: fmi2ComponentEnvironment,
        instance_name: &CStr,
        logging_on: bool,
    ) -> Logger {
        Logger {
            sink: Sink::Fmi2(callback),
            environment,
            instance_name: instance_name.to_owned(),
            enabled: [logging_on; N],
        }
    }

    /// The logger of an FMI 3.0 instance (`logMessage` of `fmi3InstantiateCoSimulation`).
    pub fn new_fmi3(
        callback: fmi3LogMessageCallback,
        environment: fmi2ComponentEnvironment,
        instance_name: &CStr,
        logging_on: bool,
    ) -> Logger {
        Logger {
            sink: Sink::Fmi3(callback),
            ..Logger::new(None, environment, instance_name, logging_on)
        }
    }

    pub fn instance_name(&self) -> &CStr {
        &self.instance_name
    }

    pub fn is_enabled(&self, category: Category) -> bool {
        self.enabled[category as usize]
    }

    /// Whether a message of this status and category would reach the master. Callers test
    /// this before formatting a trace, so disabled logging costs no allocation.
    pub fn would_log(&self, status: fmi2Status, category: Category) -> bool {
        let present = match self.sink {
            Sink::Fmi2(f) => f.is_some(),
            Sink::Fmi3(f) => f.is_some(),
        };
        present && (status != fmi2Status::fmi2OK || self.is_enabled(category))
    }

    pub fn enabled_flags(&self) -> [bool; N] {
        self.enabled
    }

    pub fn set_enabled_flags(&mut self, flags: [bool; N]) {
        self.enabled = flags;
    }

    /// `fmi2SetDebugLogging`: no names = every category; otherwise only the named ones.
    /// All names are checked before anything changes.
    pub fn set_debug_logging(&mut self, logging_on: bool, names: &[&CStr]) -> Result<(), String> {
        if names.is_empty() {
            self.enabled = [logging_on; N];
            return Ok(());
        }
        let mut flags = self.enabled;
        for name in names {
            match Category::from_name(name.to_bytes()) {
                Some(i) => flags[i] = logging_on,
                None => {
                    let known: Vec<&str> = LOG_CATEGORIES.iter().map(|c| c.name).collect();
                    return Err(format!(
                        "unknown log category \"{}\" (known: {})",
                        name.to_string_lossy(),
                        known.join(", ")
                    ));
                }
            }
        }
        self.enabled = flags;
        Ok(())
    }

    /// Sends `message` if [`Logger::would_log`] says so.
    pub fn log(&self, status: fmi2Status, category: Category, message: &str) {
        if !self.would_log(status, category) {
            return;
        }
        let text = escape(message);
        let category = category.info().c_name.as_ptr();
        match self.sink {
            // SAFETY: the master guarantees that the logger stays callable for the lifetime
            // of the instance; every pointer argument is a valid NUL-terminated string that
            // lives until the call returns; "%s" consumes exactly the one variadic
            // argument we pass.
            Sink::Fmi2(Some(callback)) => unsafe {
                callback(
                    self.environment,
                    self.instance_name.as_ptr(),
                    status,
                    category,
                    c"%s".as_ptr(),
                    text.as_ptr(),
                );
            },
            // SAFETY: as above; the FMI 3.0 logger takes the message as plain text.
            Sink::Fmi3(Some(callback)) => unsafe {
                callback(
                    self.environment,
                    fmi3Status::from(status),
                    category,
                    text.as_ptr(),
                );
            },
            Sink::Fmi2(None) | Sink::Fmi3(None) => {}
        }
    }
}

/// FMI message escaping: `#` → `##`. A NUL byte (impossible in our own texts, possible in
/// a malformed name we echo) would cut the C string, so it is shown as `\0`.
pub fn escape(message: &str) -> CString {
    let mut out = Vec::with_capacity(message.len() + 8);
    for &b in message.as_bytes() {
        match b {
            b'#' => out.extend_from_slice(b"##"),
            0 => out.extend_from_slice(b"\\0"),
            _ => out.push(b),
        }
    }
    CString::new(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_agree_and_are_unique() {
        for (i, c) in LOG_CATEGORIES.iter().enumerate() {
            assert_eq!(c.c_name.to_str().unwrap(), c.name);
            assert!(LOG_CATEGORIES[..i].iter().all(|d| d.name != c.name));
        }
        assert_eq!(Category::All.info().name, "logAll");
        assert_eq!(Category::StatusError.info().name, "logStatusError");
    }

    #[test]
    fn escaping() {
        assert_eq!(escape("a#b%s 100%").to_bytes(), b"a##b%s 100%");
        assert_eq!(escape("x\0y").to_bytes(), b"x\\0y");
    }

    #[test]
    fn debug_logging_switches() {
        let mut l = Logger::new(None, std::ptr::null_mut(), c"i", false);
        assert!(!l.is_enabled(Category::Events));
        l.set_debug_logging(true, &[c"logEvents"]).unwrap();
        assert!(l.is_enabled(Category::Events) && !l.is_enabled(Category::All));
        let before = l.enabled_flags();
        let e = l
            .set_debug_logging(true, &[c"logAll", c"nope"])
            .unwrap_err();
        assert!(e.contains("nope"), "{e}");
        assert_eq!(l.enabled_flags(), before, "a failed call changes nothing");
        l.set_debug_logging(false, &[]).unwrap();
        assert_eq!(l.enabled_flags(), [false; N]);
    }
}
