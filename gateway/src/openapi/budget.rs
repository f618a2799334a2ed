//! How much a document may grow as it is read and its `$ref`s are inlined: everything made
//! is counted as the length of its JSON text (estimated: a number as 8 bytes) as it is
//! made, so that a document that would expand past the budget stops before it takes the
//! memory. YAML's aliases (`*name`) copy what they name just as `$ref`s do.

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// How much a document may grow past its own length, in each of its two expansions (YAML
/// aliases as it is read, `$ref`s as they are inlined): 32 MiB. A schema referred to from
/// many places is copied into each, so a small document can expand past any memory (a
/// bomb); a real API's stays well below this.
pub(crate) const MAX_EXPANDED_BYTES: usize = 32 << 20;

/// What may still be made, in bytes of JSON text, and what makes it (for the error).
pub(crate) struct Budget {
    left: usize,
    by: &'static str,
    exhausted: bool,
}

impl Budget {
    /// [`MAX_EXPANDED_BYTES`] past a document of `length` bytes; `by`: what expands it
    /// ("its `$ref`s").
    pub(crate) fn past(length: usize, by: &'static str) -> Budget {
        Budget {
            left: MAX_EXPANDED_BYTES.saturating_add(length),
            by,
            exhausted: false,
        }
    }

    /// Takes `bytes` from what is left; an error once nothing is.
    pub(crate) fn spend(&mut self, bytes: usize) -> Result<(), String> {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => {
                self.left = 0;
                self.exhausted = true;
                Err(self.error())
            }
        }
    }

    /// Whether a spending failed: the error to give is [`error`](Budget::error), whatever
    /// the deserializer made of it.
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// What is wrong once the budget is spent.
    pub(crate) fn error(&self) -> String {
        format!(
            "{} expand it by more than {} MiB, the most the gateway inlines (what is referred to from many places is copied into each): refer to large schemas from fewer places",
            self.by,
            MAX_EXPANDED_BYTES >> 20
        )
    }

    /// What a scalar costs.
    pub(crate) fn scalar(value: &Value) -> usize {
        match value {
            Value::String(text) => text.len() + 2,
            Value::Number(_) => 8,
            _ => 5,
        }
    }
}

/// A [`Value`] read from a deserializer (JSON's, YAML's), each value paid for as it is made.
pub(crate) struct Read<'b>(pub(crate) &'b mut Budget);

impl Read<'_> {
    fn made<E: Error>(&mut self, value: Value) -> Result<Value, E> {
        self.0.spend(Budget::scalar(&value)).map_err(E::custom)?;
        Ok(value)
    }
}

impl<'de> DeserializeSeed<'de> for Read<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Read<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: Error>(mut self, v: bool) -> Result<Value, E> {
        self.made(Value::Bool(v))
    }

    fn visit_i64<E: Error>(mut self, v: i64) -> Result<Value, E> {
        self.made(Value::from(v))
    }

    fn visit_u64<E: Error>(mut self, v: u64) -> Result<Value, E> {
        self.made(Value::from(v))
    }

    fn visit_f64<E: Error>(mut self, v: f64) -> Result<Value, E> {
        // As serde_json's own: a number JSON cannot hold (`.inf`) is `null`.
        self.made(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: Error>(mut self, v: &str) -> Result<Value, E> {
        self.made(Value::String(v.to_owned()))
    }

    fn visit_string<E: Error>(mut self, v: String) -> Result<Value, E> {
        self.made(Value::String(v))
    }

    fn visit_unit<E: Error>(mut self) -> Result<Value, E> {
        self.made(Value::Null)
    }

    fn visit_none<E: Error>(mut self) -> Result<Value, E> {
        self.made(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        self.0.spend(2).map_err(A::Error::custom)?;
        while let Some(item) = seq.next_element_seed(Read(&mut *self.0))? {
            self.0.spend(1).map_err(A::Error::custom)?;
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        self.0.spend(2).map_err(A::Error::custom)?;
        while let Some(key) = map.next_key::<String>()? {
            // `"key":` and a comma.
            self.0.spend(key.len() + 4).map_err(A::Error::custom)?;
            let value = map.next_value_seed(Read(&mut *self.0))?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_read_as_serde_json_reads_it_within_its_budget() {
        let yaml = "a: [1, -2, 2.5, true, null, ~, x]\n200: {b: 'c'}\n";
        let mut budget = Budget::past(0, "its YAML aliases");
        let read = Read(&mut budget)
            .deserialize(serde_norway::Deserializer::from_str(yaml))
            .unwrap();
        let plain: Value = serde_norway::from_str(yaml).unwrap();
        assert_eq!(read, plain);
        let mut small = Budget {
            left: 10,
            by: "its YAML aliases",
            exhausted: false,
        };
        let err = Read(&mut small)
            .deserialize(serde_norway::Deserializer::from_str(yaml))
            .unwrap_err();
        assert!(
            err.to_string().contains("its YAML aliases expand it"),
            "{err}"
        );
        assert!(small.exhausted() && !budget.exhausted());
    }
}
