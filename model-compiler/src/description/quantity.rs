//! Scalar values of the description: a number (SI) or a string with a unit.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use std::fmt;
use toml::Spanned;

/// A quantity as written: `0.08` (SI) or `"80 mm"`. Converted and checked against the
/// dimension the field expects during lowering ([`crate::units`]).
#[derive(Clone, Debug, PartialEq)]
pub enum QValue {
    Number(f64),
    Text(String),
}

impl<'de> Deserialize<'de> for QValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(QValueVisitor)
    }
}

struct QValueVisitor;

impl<'de> Visitor<'de> for QValueVisitor {
    type Value = QValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number (SI units) or a string with a unit such as \"200 bar\"")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<QValue, E> {
        Ok(QValue::Number(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<QValue, E> {
        Ok(QValue::Number(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<QValue, E> {
        Ok(QValue::Number(v as f64))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<QValue, E> {
        Ok(QValue::Text(v.to_string()))
    }
}

/// A quantity with its position in the file.
pub type Quantity = Spanned<QValue>;
/// A 3-vector of quantities (`[0, 0, 1]`, `["80 mm", 0, 0]`).
pub type Vec3 = Spanned<[Quantity; 3]>;
/// A name or a reference to a name, with its position for error messages.
pub type Name = Spanned<String>;
/// A piecewise-linear table `[[x, y], ...]`.
pub type Table = Spanned<Vec<Spanned<[Quantity; 2]>>>;

/// The oil bulk modulus: a constant (`"1500 MPa"`) or the pressure-dependent law of
/// seed 002 eq 3 (`{ a = 6.53e-10, b = -1.19e-18 }`).
#[derive(Clone, Debug)]
pub enum BulkModulusDesc {
    Constant(QValue),
    Law(BulkModulusLaw),
}

/// β(p) = (1 + a p + b p²)/(a + 2 b p), `a` in 1/Pa and `b` in 1/Pa².
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkModulusLaw {
    pub a: Quantity,
    pub b: Quantity,
}

impl<'de> Deserialize<'de> for BulkModulusDesc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BulkModulusDesc;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a bulk modulus (\"1500 MPa\") or a table { a = ..., b = ... }")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(BulkModulusDesc::Constant(QValue::Number(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(BulkModulusDesc::Constant(QValue::Number(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(BulkModulusDesc::Constant(QValue::Number(v as f64)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(BulkModulusDesc::Constant(QValue::Text(v.to_string())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                BulkModulusLaw::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(BulkModulusDesc::Law)
            }
        }
        d.deserialize_any(V)
    }
}

/// A table value with its position when the TOML parser knows it.
///
/// Like [`toml::Spanned`], but it also accepts tables that have no span (tables made of
/// dotted keys such as `edges.PA.area = ...`), for which `span` is `None` and errors point
/// at a neighbouring value instead.
#[derive(Clone, Debug)]
pub struct Located<T> {
    pub span: Option<std::ops::Range<usize>>,
    pub value: T,
}

impl<T> Located<T> {
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The span, or `fallback` when the parser gave none.
    pub fn span_or(&self, fallback: std::ops::Range<usize>) -> std::ops::Range<usize> {
        self.span.clone().unwrap_or(fallback)
    }
}

// The private protocol of `toml::Spanned` (serde_spanned): a struct with these names is
// answered with a map of start, end and value when the value has a span.
const SPANNED_NAME: &str = "$__serde_spanned_private_Spanned";
const SPANNED_START: &str = "$__serde_spanned_private_start";
const SPANNED_END: &str = "$__serde_spanned_private_end";
const SPANNED_VALUE: &str = "$__serde_spanned_private_value";

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_struct(
            SPANNED_NAME,
            &[SPANNED_START, SPANNED_END, SPANNED_VALUE],
            LocatedVisitor(std::marker::PhantomData),
        )
    }
}

struct LocatedVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for LocatedVisitor<T> {
    type Value = Located<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let first: Option<String> = map.next_key()?;
        if first.as_deref() == Some(SPANNED_START) {
            let start: usize = map.next_value()?;
            let _: Option<String> = map.next_key()?;
            let end: usize = map.next_value()?;
            let _: Option<String> = map.next_key()?;
            let value: T = map.next_value()?;
            return Ok(Located {
                span: Some(start..end),
                value,
            });
        }
        let value = T::deserialize(de::value::MapAccessDeserializer::new(Prefixed {
            first,
            inner: map,
        }))?;
        Ok(Located { span: None, value })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        let value = T::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(Located { span: None, value })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        let value = T::deserialize(de::value::StrDeserializer::<E>::new(v))?;
        Ok(Located { span: None, value })
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        let value = T::deserialize(de::value::F64Deserializer::<E>::new(v))?;
        Ok(Located { span: None, value })
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        let value = T::deserialize(de::value::I64Deserializer::<E>::new(v))?;
        Ok(Located { span: None, value })
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        let value = T::deserialize(de::value::BoolDeserializer::<E>::new(v))?;
        Ok(Located { span: None, value })
    }
}

/// A map whose first key has already been read.
struct Prefixed<A> {
    first: Option<String>,
    inner: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Prefixed<A> {
    type Error = A::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.first.take() {
            Some(k) => seed
                .deserialize(de::value::StringDeserializer::<A::Error>::new(k))
                .map(Some),
            None => self.inner.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}
