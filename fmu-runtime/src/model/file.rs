//! The model file of an FMU: `resources/hydromech-model.bin`.
//!
//! One generic runtime binary serves every model; it reads the compiled model from this file
//! at `fmi2Instantiate`. The file is a small fixed header around the postcard encoding of the
//! [`CompiledModel`], so that a wrong, truncated or corrupted file is named as such before
//! anything is decoded:
//!
//! | bytes | field |
//! |---|---|
//! | 16 | magic `HYDROMECH-MODEL\0` |
//! | 4 | container version ([`CONTAINER_VERSION`]), little-endian |
//! | 4 | model format version ([`MODEL_FORMAT_VERSION`]) |
//! | 4 | GUID length *g* |
//! | 8 | payload length *n* |
//! | 32 | SHA-256 of the payload |
//! | *g* | GUID (UTF-8, as in `modelDescription.xml`) |
//! | *n* | payload: `postcard(CompiledModel)` |

use super::{CompiledModel, MODEL_FORMAT_VERSION, ModelError};
use sha2::{Digest, Sha256};

/// Name of the model file inside the FMU's `resources/` folder.
pub const FILE_NAME: &str = "hydromech-model.bin";

/// First bytes of every model file.
pub const MAGIC: &[u8; 16] = b"HYDROMECH-MODEL\0";

/// Version of the header layout above.
pub const CONTAINER_VERSION: u32 = 1;

const HEADER_LEN: usize = 16 + 4 + 4 + 4 + 8 + 32;

/// The model file of `model` (header + payload).
pub fn encode(model: &CompiledModel) -> Vec<u8> {
    let payload = model.to_bytes();
    let guid = model.guid.as_bytes();
    let mut out = Vec::with_capacity(HEADER_LEN + guid.len() + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&CONTAINER_VERSION.to_le_bytes());
    out.extend_from_slice(&MODEL_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(guid.len() as u32).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&payload));
    out.extend_from_slice(guid);
    out.extend_from_slice(&payload);
    out
}

/// Reads a model file, checking in this order: magic, container and model format versions,
/// lengths, checksum, the GUID against `expected_guid` (the `fmuGUID` of `fmi2Instantiate`),
/// then decodes and validates the model and checks that it carries the same GUID.
pub fn decode(bytes: &[u8], expected_guid: &str) -> Result<CompiledModel, ModelError> {
    let err = |m: String| Err(ModelError(m));
    if bytes.len() < HEADER_LEN || &bytes[..16] != MAGIC {
        return err(format!(
            "{FILE_NAME} is not a hydromech model file ({} bytes without the header {:?})",
            bytes.len(),
            String::from_utf8_lossy(&MAGIC[..15])
        ));
    }
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]));
    let container = u32_at(16);
    let format = u32_at(20);
    let guid_len = u32_at(24) as usize;
    let payload_len = u64::from_le_bytes(bytes[28..36].try_into().unwrap_or([0; 8]));
    let checksum = &bytes[36..68];
    if container != CONTAINER_VERSION || format != MODEL_FORMAT_VERSION {
        return err(format!(
            "{FILE_NAME} has container version {container} and model format {format}; this runtime reads container {CONTAINER_VERSION}, format {MODEL_FORMAT_VERSION}: rebuild the FMU with one hydromech (its binary and model file come from different versions)"
        ));
    }
    let expected_len = (HEADER_LEN as u64)
        .saturating_add(guid_len as u64)
        .saturating_add(payload_len);
    if bytes.len() as u64 != expected_len {
        return err(format!(
            "{FILE_NAME} is {} bytes long but its header announces {expected_len} (truncated or padded file)",
            bytes.len()
        ));
    }
    let guid = &bytes[HEADER_LEN..HEADER_LEN + guid_len];
    let payload = &bytes[HEADER_LEN + guid_len..];
    if Sha256::digest(payload).as_slice() != checksum {
        return err(format!(
            "{FILE_NAME} is corrupted: the SHA-256 of its {} payload bytes differs from the one in its header",
            payload.len()
        ));
    }
    if guid != expected_guid.as_bytes() {
        return err(format!(
            "{FILE_NAME} belongs to the model with GUID \"{}\", not to \"{expected_guid}\" (modelDescription.xml and resources/ come from different builds)",
            String::from_utf8_lossy(guid)
        ));
    }
    let model = CompiledModel::from_bytes(payload)?;
    if model.guid.as_bytes() != guid {
        return err(format!(
            "{FILE_NAME}: the header's GUID \"{}\" differs from the model's \"{}\"",
            String::from_utf8_lossy(guid),
            model.guid
        ));
    }
    Ok(model)
}
