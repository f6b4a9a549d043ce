//! A saved instance ([`Snapshot`]) and its serialized form: the bytes of
//! `fmi2SerializeFMUstate` / `fmi3SerializeFMUstate`, versioned, checksummed and checked
//! against the model on the way back in.

use crate::estimator::EstimatorState;
use crate::model::CompiledModel;
use crate::solver::{Layout, State};

/// A saved instance: state plus parameter values (inputs and tunables are part of what
/// determines the continuation, so they are saved too).
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub(crate) state: State,
    pub(crate) params: Vec<f64>,
    /// The inputs the state's rates belong to (those of the last step's end; NaN after a
    /// failed step): the next step's input change is counted from them.
    pub(crate) rates_params: Vec<f64>,
    pub(crate) initialized: bool,
    /// The estimator's covariance and sample clocks (an estimator FMU).
    pub(crate) estimator: Option<EstimatorState>,
}

const SNAPSHOT_MAGIC: &[u8; 8] = b"HMSTATE\0";
const SNAPSHOT_VERSION: u32 = 16;

impl Snapshot {
    /// Pointer-free little-endian encoding: magic, version, model GUID, sizes, then the
    /// f64 data. Restoring it in another process reproduces the continuation bit for bit.
    pub fn encode(&self, guid: &str, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(SNAPSHOT_MAGIC);
        out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        out.extend_from_slice(&(guid.len() as u32).to_le_bytes());
        out.extend_from_slice(guid.as_bytes());
        let s = &self.state;
        for n in [s.z.len(), s.w.len(), s.lambda.len(), self.params.len()] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        out.push(self.initialized as u8);
        out.push(s.tangent_sparse as u8);
        out.extend(s.tangent_near.iter().map(|&near| near as u8));
        out.extend_from_slice(&s.iterations.to_le_bytes());
        out.extend_from_slice(&s.steps.to_le_bytes());
        out.extend_from_slice(&s.rank.to_le_bytes());
        for v in &s.partition {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in s.tangent_pivots.iter().chain(&s.projection_pivots) {
            out.extend_from_slice(&(*v as u32).to_le_bytes());
        }
        let scalars = [
            s.time,
            s.work,
            s.power,
            s.base_work,
            s.base_power,
            s.energy0,
            s.parameter_work,
            s.mass_scale,
            s.tangent_step,
        ];
        let vectors: [&[f64]; 24] = [
            &scalars,
            &s.z,
            &s.zd,
            &s.zdd,
            &s.zdd_last,
            &s.zdd_last2,
            &s.w,
            &s.wd,
            &s.wd_last,
            &s.lambda,
            &self.params,
            &self.rates_params,
            &s.tangent,
            &s.tangent_raw,
            &s.tangent_scale,
            &s.projection,
            &s.projection_scale,
            &s.tangent_gain,
            &s.tangent_compliance,
            &s.port_work,
            &s.port_power,
            &s.charts,
            &s.coupling,
            &s.coupling_phi_z,
        ];
        for v in vectors {
            for x in v {
                out.extend_from_slice(&x.to_bits().to_le_bytes());
            }
        }
        // An estimator's covariance, sample clocks and innovations.
        match &self.estimator {
            None => out.push(0),
            Some(e) => {
                out.push(1);
                out.extend_from_slice(&(e.covariance.len() as u32).to_le_bytes());
                out.extend_from_slice(&(e.next_sample.len() as u32).to_le_bytes());
                out.extend_from_slice(&e.corrections.to_le_bytes());
                out.extend_from_slice(&e.rejected.to_le_bytes());
                let vectors: [&[f64]; 5] = [
                    &e.covariance,
                    &e.next_sample,
                    &[e.time],
                    &e.innovation,
                    &e.innovation_sigma,
                ];
                for x in vectors.into_iter().flatten() {
                    out.extend_from_slice(&x.to_bits().to_le_bytes());
                }
            }
        }
        let sum = checksum(out);
        out.extend_from_slice(&sum.to_le_bytes());
    }

    pub fn encoded_len(&self, guid: &str) -> usize {
        let s = &self.state;
        let floats = 9
            + 5 * s.z.len()
            + 3 * s.w.len()
            + s.lambda.len()
            + 2 * self.params.len()
            + s.tangent.len()
            + s.tangent_raw.len()
            + s.tangent_scale.len()
            + s.projection.len()
            + s.projection_scale.len()
            + s.tangent_gain.len()
            + s.tangent_compliance.len()
            + s.port_work.len()
            + s.port_power.len()
            + s.charts.len()
            + s.coupling.len()
            + s.coupling_phi_z.len();
        let words = s.partition.len() + s.tangent_pivots.len() + s.projection_pivots.len();
        let estimator = self.estimator.as_ref().map_or(1, |e| {
            1 + 4 + 4 + 8 + 8 + 8 * (e.covariance.len() + 3 * e.next_sample.len() + 1)
        });
        8 + 4
            + 4
            + guid.len()
            + 16
            + 2
            + s.tangent_near.len()
            + 4
            + 8
            + 4
            + 4 * words
            + 8 * floats
            + estimator
            + 8
    }

    /// Decodes and checks bytes produced by [`Snapshot::encode`] for `model`.
    pub fn decode(bytes: &[u8], model: &CompiledModel) -> Result<Snapshot, String> {
        let mut r = Reader { bytes, pos: 0 };
        if bytes.len() < 8 + 8 || &bytes[..8] != SNAPSHOT_MAGIC {
            return Err("the bytes are not a hydromech FMU state".into());
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        if checksum(body).to_le_bytes() != tail {
            return Err("the FMU state is corrupted (checksum mismatch)".into());
        }
        r.pos = 8;
        let version = r.u32()?;
        if version != SNAPSHOT_VERSION {
            return Err(format!(
                "FMU state format {version} is not supported (expects {SNAPSHOT_VERSION})"
            ));
        }
        let glen = r.u32()? as usize;
        let guid = r.take(glen)?;
        if guid != model.guid.as_bytes() {
            return Err("the FMU state belongs to another model (GUID mismatch)".into());
        }
        let layout = Layout::of(model);
        let (nz, nw, nc, np) = (
            r.u32()? as usize,
            r.u32()? as usize,
            r.u32()? as usize,
            r.u32()? as usize,
        );
        if (nz, nw, nc, np) != (layout.nz, layout.nw, layout.nc, model.params.len()) {
            return Err("the FMU state does not match this model's dimensions".into());
        }
        let initialized = match r.take(1)?[0] {
            0 => false,
            1 => true,
            _ => return Err("the FMU state is corrupted (flag)".into()),
        };
        let mut state = State::new(&layout);
        state.tangent_sparse = match r.take(1)?[0] {
            0 => false,
            1 => true,
            _ => return Err("the FMU state is corrupted (flag)".into()),
        };
        for near in state.tangent_near.iter_mut() {
            *near = match r.take(1)?[0] {
                0 => false,
                1 => true,
                _ => return Err("the FMU state is corrupted (near contact pair flag)".into()),
            };
        }
        state.iterations = r.u32()?;
        state.steps = r.u64()?;
        state.rank = r.u32()?;
        for v in state.partition.iter_mut() {
            *v = r.u32()?;
            if *v as usize >= nz.max(nc) {
                return Err("the FMU state is corrupted (partition)".into());
            }
        }
        if state.rank as usize > nz.min(nc) {
            return Err("the FMU state is corrupted (partition rank)".into());
        }
        let n = nz + nw;
        for (pivots, len) in [
            (&mut state.tangent_pivots, n),
            (&mut state.projection_pivots, nz),
        ] {
            for v in pivots.iter_mut() {
                *v = r.u32()? as usize;
                if *v >= len {
                    return Err("the FMU state is corrupted (pivot)".into());
                }
            }
        }
        state.time = r.f64()?;
        state.work = r.f64()?;
        state.power = r.f64()?;
        state.base_work = r.f64()?;
        state.base_power = r.f64()?;
        state.energy0 = r.f64()?;
        state.parameter_work = r.f64()?;
        state.mass_scale = r.f64()?;
        state.tangent_step = r.f64()?;
        for v in [
            &mut state.z,
            &mut state.zd,
            &mut state.zdd,
            &mut state.zdd_last,
            &mut state.zdd_last2,
            &mut state.w,
            &mut state.wd,
            &mut state.wd_last,
            &mut state.lambda,
        ] {
            r.fill(v)?;
        }
        let mut params = vec![0.0; np];
        r.fill(&mut params)?;
        // NaN marks an input the rates belong to no known value of (`solver::input_change`).
        let mut rates_params = vec![0.0; np];
        for v in rates_params.iter_mut() {
            *v = f64::from_bits(r.u64()?);
            if v.is_infinite() {
                return Err("the FMU state holds a non-finite number".into());
            }
        }
        for v in [
            &mut state.tangent,
            &mut state.tangent_raw,
            &mut state.tangent_scale,
            &mut state.projection,
            &mut state.projection_scale,
            &mut state.tangent_gain,
            &mut state.tangent_compliance,
            &mut state.port_work,
            &mut state.port_power,
            &mut state.charts,
            &mut state.coupling,
            &mut state.coupling_phi_z,
        ] {
            r.fill(v)?;
        }
        for turn in state.charts.chunks(4) {
            let norm = turn.iter().map(|v| v * v).sum::<f64>().sqrt();
            // (NaN fails the comparison too.)
            if (norm - 1.0).abs().partial_cmp(&1e-9) != Some(std::cmp::Ordering::Less) {
                return Err("the FMU state is corrupted (a joint chart is not a rotation)".into());
            }
        }
        let estimator = match r.take(1)?[0] {
            0 => None,
            1 => Some(decode_estimator(&mut r, model)?),
            _ => return Err("the FMU state is corrupted (estimator flag)".into()),
        };
        if r.pos != body.len() {
            return Err("the FMU state has trailing bytes".into());
        }
        // Which prefix the factors use is not stored; the whole buffers are (their tails
        // are zero when encoded).
        state.tangent_used = state.tangent.len();
        state.projection_used = state.projection.len();
        Ok(Snapshot {
            state,
            params,
            rates_params,
            initialized,
            estimator,
        })
    }
}

/// The estimator part of an encoded FMU state: sizes checked against the model's sensors
/// and against each other (the covariance is n × n), every number finite.
fn decode_estimator(r: &mut Reader, model: &CompiledModel) -> Result<EstimatorState, String> {
    let (nn, ns) = (r.u32()? as usize, r.u32()? as usize);
    let n = (nn as f64).sqrt().round() as usize;
    let sensors = model.estimator.as_ref().map_or(0, |e| e.sensors.len());
    if model.estimator.is_none() || n * n != nn || ns != sensors || n > 4096 {
        return Err("the FMU state's estimator does not match this model".into());
    }
    let corrections = r.u64()?;
    let rejected = r.u64()?;
    let mut e = EstimatorState {
        covariance: vec![0.0; nn],
        next_sample: vec![0.0; ns],
        time: 0.0,
        innovation: vec![0.0; ns],
        innovation_sigma: vec![0.0; ns],
        corrections,
        rejected,
    };
    r.fill(&mut e.covariance)?;
    if (0..n).any(|i| e.covariance[i * n + i] < 0.0) {
        return Err("the FMU state's estimator covariance has a negative variance".into());
    }
    r.fill(&mut e.next_sample)?;
    e.time = r.f64()?;
    r.fill(&mut e.innovation)?;
    r.fill(&mut e.innovation_sigma)?;
    Ok(e)
}

/// FNV-1a 64: detects truncation and bit flips in serialized states.
fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| "the FMU state is truncated".to_string())?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn f64(&mut self) -> Result<f64, String> {
        let x = f64::from_bits(self.u64()?);
        if x.is_finite() {
            Ok(x)
        } else {
            Err("the FMU state holds a non-finite number".into())
        }
    }
    fn fill(&mut self, v: &mut [f64]) -> Result<(), String> {
        for x in v {
            *x = self.f64()?;
        }
        Ok(())
    }
}
