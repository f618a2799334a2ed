//! Whether a value holds a float that is not finite. JSON has no such number, and serde_json
//! writes it as `null`, which a tool's `outputSchema` does not allow: such a result must fail
//! instead (see `output.rs`). Only values whose JSON holds a `null` are checked again.

use std::fmt;

use serde::Serialize;
use serde::ser::{self, Serializer};

/// The first float in `value` that is not finite, if any.
pub(crate) fn non_finite<T: Serialize + ?Sized>(value: &T) -> Option<f64> {
    match value.serialize(Finder) {
        Err(Found::Float(f)) => Some(f),
        _ => None,
    }
}

/// What [`Finder`] stops at.
#[derive(Debug)]
enum Found {
    Float(f64),
    /// The value's own `Serialize` failed: not this check's concern.
    Other,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Float(x) => write!(f, "{x} is not a JSON number"),
            Found::Other => f.write_str("the value could not be serialized"),
        }
    }
}

impl std::error::Error for Found {}

impl ser::Error for Found {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Found::Other
    }
}

/// A serializer that only looks at floats.
#[derive(Clone, Copy)]
struct Finder;

type Res = Result<(), Found>;

fn float(f: f64) -> Res {
    if f.is_finite() {
        Ok(())
    } else {
        Err(Found::Float(f))
    }
}

/// Scalars other than floats: nothing to find.
macro_rules! nothing {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Res { Ok(()) })*
    };
}

impl Serializer for Finder {
    type Ok = ();
    type Error = Found;
    type SerializeSeq = Finder;
    type SerializeTuple = Finder;
    type SerializeTupleStruct = Finder;
    type SerializeTupleVariant = Finder;
    type SerializeMap = Finder;
    type SerializeStruct = Finder;
    type SerializeStructVariant = Finder;

    nothing!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str),
    );

    fn serialize_f32(self, v: f32) -> Res {
        float(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Res {
        float(v)
    }
    fn serialize_none(self) -> Res {
        Ok(())
    }
    fn serialize_unit(self) -> Res {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Res {
        value.serialize(self)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Res {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Res {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Res {
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Finder, Found> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Finder, Found> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Finder, Found> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Finder, Found> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Finder, Found> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Finder, Found> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Finder, Found> {
        Ok(self)
    }
}

/// Compound types: each element, field or value is looked at in turn.
macro_rules! elements {
    ($($trait:ident :: $method:ident ($($name:ident),*)),* $(,)?) => {
        $(impl ser::$trait for Finder {
            type Ok = ();
            type Error = Found;
            fn $method<T: Serialize + ?Sized>(&mut self, $($name: &'static str,)* value: &T) -> Res {
                $(let _ = $name;)*
                value.serialize(Finder)
            }
            fn end(self) -> Res {
                Ok(())
            }
        })*
    };
}

elements!(
    SerializeSeq::serialize_element(),
    SerializeTuple::serialize_element(),
    SerializeTupleStruct::serialize_field(),
    SerializeTupleVariant::serialize_field(),
    SerializeStruct::serialize_field(key),
    SerializeStructVariant::serialize_field(key),
);

impl ser::SerializeMap for Finder {
    type Ok = ();
    type Error = Found;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Res {
        key.serialize(Finder)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Res {
        value.serialize(Finder)
    }
    fn end(self) -> Res {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::non_finite;

    #[test]
    fn floats_that_are_not_finite_are_found_anywhere() {
        assert_eq!(non_finite(&1.5), None);
        assert_eq!(non_finite(&(1e308 * 10.0)), Some(f64::INFINITY));
        assert!(non_finite(&vec![Some(1.0), None, Some(f64::NAN)]).is_some_and(f64::is_nan));
        let mut map = BTreeMap::new();
        map.insert("a", (1u8, -f32::INFINITY));
        assert_eq!(non_finite(&map), Some(f64::NEG_INFINITY));
        assert_eq!(non_finite(&("text", [1.0f32, 2.0], ())), None);
    }
}
