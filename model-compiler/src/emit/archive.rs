//! The `.fmu` archive (FMI 2.0 `2_3_fmu_distribution.adoc`, notes §1.5): deflate only,
//! no ZIP64, forward slashes, no leading `./`; written to a temporary file and renamed so
//! that a reader never sees a half-written FMU.

use crate::emit::runtime::RuntimeBinary;
use crate::emit::timestamp::Utc;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// One archive entry.
pub struct Entry {
    /// Path inside the archive (forward slashes).
    pub name: String,
    pub data: Vec<u8>,
    pub executable: bool,
}

/// The entries of an FMU in archive order: the XML, one runtime binary per platform folder
/// (FMI 2.0 `linux64`, FMI 3.0 `x86_64-linux`, ...) named after the model identifier, the model file the runtime reads at `fmi2Instantiate`, and
/// the documentation page.
pub fn fmu_entries(
    model_description: String,
    model_identifier: &str,
    binaries: &[(&str, &RuntimeBinary)],
    model_file: Vec<u8>,
    documentation: String,
) -> Vec<Entry> {
    let mut entries = vec![Entry {
        name: "modelDescription.xml".into(),
        data: model_description.into_bytes(),
        executable: false,
    }];
    for (folder, b) in binaries {
        entries.push(Entry {
            name: format!("binaries/{folder}/{model_identifier}.{}", b.extension),
            data: b.bytes.to_vec(),
            executable: true,
        });
    }
    entries.push(Entry {
        name: format!("resources/{}", fmu_runtime::model::file::FILE_NAME),
        data: model_file,
        executable: false,
    });
    entries.push(Entry {
        name: "documentation/index.html".into(),
        data: documentation.into_bytes(),
        executable: false,
    });
    entries
}

fn zip_time(t: Utc) -> DateTime {
    // The zip format cannot store dates before 1980.
    let year = t.year.clamp(1980, 2107) as u16;
    DateTime::from_date_and_time(
        year,
        t.month as u8,
        t.day as u8,
        t.hour as u8,
        t.minute as u8,
        t.second as u8,
    )
    .unwrap_or_default()
}

/// Writes `entries` to `path` atomically.
pub fn write_zip(path: &Path, entries: &[Entry], time: Utc) -> Result<(), String> {
    for e in entries {
        if e.name.starts_with('/') || e.name.starts_with('.') || e.name.contains('\\') {
            return Err(format!("invalid archive entry name '{}'", e.name));
        }
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model.fmu".into());
    let tmp: PathBuf = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| -> Result<(), String> {
        let file =
            File::create(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        let mut zip = ZipWriter::new(BufWriter::new(file));
        let base = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .large_file(false)
            .last_modified_time(zip_time(time));
        for e in entries {
            let options = base.unix_permissions(if e.executable { 0o755 } else { 0o644 });
            zip.start_file(e.name.as_str(), options)
                .map_err(|err| format!("cannot add {}: {err}", e.name))?;
            zip.write_all(&e.data)
                .map_err(|err| format!("cannot write {}: {err}", e.name))?;
        }
        let mut w = zip
            .finish()
            .map_err(|e| format!("cannot finish the archive: {e}"))?;
        w.flush()
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        let file = w
            .into_inner()
            .map_err(|e| format!("cannot write {}: {}", tmp.display(), e.error()))?;
        file.sync_all()
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        fs::rename(&tmp, path)
            .map_err(|e| format!("cannot move the FMU to {}: {e}", path.display()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn archive_is_deflated_without_zip64() {
        let dir = std::env::temp_dir().join(format!("hydromech-zip-{}", std::process::id()));
        let path = dir.join("x.fmu");
        static BYTES: [u8; 5000] = [7; 5000];
        let windows = RuntimeBinary {
            platform: "win64",
            extension: "dll",
            bytes: &BYTES,
        };
        let linux = RuntimeBinary {
            platform: "linux64",
            extension: "so",
            ..windows
        };
        let entries = fmu_entries(
            "<xml/>".into(),
            "x",
            &[("linux64", &linux), ("win64", &windows)],
            vec![1, 2, 3],
            "<html/>".into(),
        );
        write_zip(&path, &entries, Utc::from_unix(1_700_000_000)).unwrap();
        let mut z = zip::ZipArchive::new(File::open(&path).unwrap()).unwrap();
        let names: Vec<String> = z.file_names().map(str::to_string).collect();
        assert_eq!(
            names,
            [
                "modelDescription.xml",
                "binaries/linux64/x.so",
                "binaries/win64/x.dll",
                "resources/hydromech-model.bin",
                "documentation/index.html"
            ]
        );
        for (i, entry) in entries.iter().enumerate() {
            let mut f = z.by_index(i).unwrap();
            assert_eq!(f.compression(), CompressionMethod::Deflated);
            let mut data = Vec::new();
            f.read_to_end(&mut data).unwrap();
            assert_eq!(data, entry.data);
        }
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_names_are_refused() {
        let e = [Entry {
            name: "./a".into(),
            data: vec![],
            executable: false,
        }];
        assert!(write_zip(Path::new("/nonexistent/never.fmu"), &e, Utc::from_unix(0)).is_err());
    }
}
