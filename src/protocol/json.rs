//! An ordered JSON tree: the form every envelope takes between a handler and the writer.
//!
//! serde_json's `Value` sorts object keys (we do not enable `preserve_order`), so
//! command output is converted from its derived `Serialize` struct into this tree,
//! which keeps members in declaration order. The redaction mask walks this tree and
//! the envelope writer serializes it.

use serde::ser::{self, Serialize};
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    /// A number's text as a file wrote it (`1e999999`, 2^64, 100,001 digits):
    /// printed byte for byte, never rounded through a float. Valid JSON
    /// number syntax is the producer's duty (`text::json_doc` parsed it).
    Number(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn obj() -> Json {
        Json::Obj(Vec::new())
    }

    /// Appends a member to an object (no-op on other variants).
    pub fn push(&mut self, key: &str, value: Json) {
        if let Json::Obj(members) = self {
            members.push((key.to_string(), value));
        }
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Obj(members) => members.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Json> {
        match self {
            Json::Obj(members) => {
                let pos = members.iter().position(|(k, _)| k == key)?;
                Some(members.remove(pos).1)
            }
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// Converts any `Serialize` value into the ordered tree.
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Json {
        // Our serializer has no failure modes except custom errors from user impls,
        // which derived structs never raise; fall back to null rather than panic.
        value.serialize(TreeSerializer).unwrap_or(Json::Null)
    }

    /// Parses JSON text into the ordered tree (member order kept). Numbers serde
    /// cannot hold (`1e999999`, a 100,000-digit integer) are valid JSON that our
    /// answers print as written, so such text is read again by the span parser,
    /// which keeps every number's text.
    pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
        match serde_json::from_str::<Json>(text) {
            Ok(json) => Ok(json),
            Err(e) => match crate::text::json_doc::parse(text) {
                Ok(node) => Ok(node.to_json(text)),
                Err(_) => Err(e),
            },
        }
    }

    pub fn to_string_compact(&self) -> String {
        let mut w = Writer::default();
        w.write(self);
        w.into_string()
    }
}

/// The compact JSON writer: the same bytes serde_json prints for the tree, written
/// directly.
#[derive(Default)]
pub struct Writer {
    pub out: Vec<u8>,
}

impl Writer {
    pub fn into_string(self) -> String {
        // Every piece written is valid UTF-8 (serde_json's string escaper, digits,
        // punctuation).
        String::from_utf8(self.out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    fn string(&mut self, s: &str) {
        // Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut self.out, s);
    }

    pub fn write(&mut self, value: &Json) {
        match value {
            Json::Null
            | Json::Bool(_)
            | Json::Int(_)
            | Json::UInt(_)
            | Json::Float(_)
            | Json::Number(_) => write_scalar(&mut self.out, value),
            Json::Str(s) => self.string(s),
            Json::Arr(items) => list(self, b"[]", items, |w, item| w.write(item)),
            Json::Obj(members) => list(self, b"{}", members, |w, (k, v)| {
                w.string(k);
                w.out.push(b':');
                w.write(v);
            }),
        }
    }
}

impl Buf for Writer {
    fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }
}

/// A writer of JSON text into a byte buffer, whose arrays and objects `list`
/// writes.
pub trait Buf {
    fn buf(&mut self) -> &mut Vec<u8>;
}

/// Writes a JSON array or object (`brackets`: `b"[]"` or `b"{}"`): each item by
/// `each`, a comma between two.
pub fn list<W: Buf, T>(
    w: &mut W,
    brackets: &[u8; 2],
    items: impl IntoIterator<Item = T>,
    mut each: impl FnMut(&mut W, T),
) {
    w.buf().push(brackets[0]);
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            w.buf().push(b',');
        }
        each(w, item);
    }
    w.buf().push(brackets[1]);
}

/// The text of a number, boolean or null (non-finite floats print as null, as
/// serde_json prints them); strings and containers print nothing here.
pub fn write_scalar(out: &mut Vec<u8>, value: &Json) {
    use std::io::Write;
    match value {
        Json::Null => out.extend_from_slice(b"null"),
        Json::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Json::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Json::UInt(n) => {
            let _ = write!(out, "{n}");
        }
        Json::Float(x) => {
            if x.is_finite() {
                let _ = serde_json::to_writer(&mut *out, x);
            } else {
                out.extend_from_slice(b"null");
            }
        }
        Json::Number(t) => out.extend_from_slice(t.as_bytes()),
        Json::Str(_) | Json::Arr(_) | Json::Obj(_) => {}
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::Str(s.to_string())
    }
}
impl From<String> for Json {
    fn from(s: String) -> Json {
        Json::Str(s)
    }
}
impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}
impl From<u64> for Json {
    fn from(n: u64) -> Json {
        Json::UInt(n)
    }
}
impl From<usize> for Json {
    fn from(n: usize) -> Json {
        Json::UInt(n as u64)
    }
}
impl From<i64> for Json {
    fn from(n: i64) -> Json {
        Json::Int(n)
    }
}

/// The newtype name that carries a [`Json::Number`] through serde.
const RAW_NUMBER: &str = "$aitools::RawNumber";

impl Serialize for Json {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Int(n) => s.serialize_i64(*n),
            Json::UInt(n) => s.serialize_u64(*n),
            Json::Float(f) => {
                if f.is_finite() {
                    s.serialize_f64(*f)
                } else {
                    s.serialize_unit()
                }
            }
            // serde has no raw number: a marked newtype, which the tree
            // serializer turns back into the number (other serializers see text).
            Json::Number(t) => s.serialize_newtype_struct(RAW_NUMBER, t),
            Json::Str(v) => s.serialize_str(v),
            Json::Arr(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Obj(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Json;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_none<E>(self) -> Result<Json, E> {
                Ok(Json::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
                Ok(Json::Bool(b))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
                Ok(Json::Int(n))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
                Ok(Json::UInt(n))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
                Ok(Json::Float(n))
            }
            fn visit_str<E>(self, v: &str) -> Result<Json, E> {
                Ok(Json::Str(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<Json, E> {
                Ok(Json::Str(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = a.next_element()? {
                    items.push(item);
                }
                Ok(Json::Arr(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
                let mut members = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, Json>()? {
                    members.push((k, v));
                }
                Ok(Json::Obj(members))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Debug)]
pub struct TreeError(String);
impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for TreeError {}
impl ser::Error for TreeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        TreeError(msg.to_string())
    }
}

struct TreeSerializer;

pub struct SeqBuilder(Vec<Json>);
pub struct MapBuilder(Vec<(String, Json)>, Option<String>);
pub struct VariantSeq(String, Vec<Json>);
pub struct VariantMap(String, Vec<(String, Json)>);

impl ser::Serializer for TreeSerializer {
    type Ok = Json;
    type Error = TreeError;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = VariantSeq;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = VariantMap;

    fn serialize_bool(self, v: bool) -> Result<Json, TreeError> {
        Ok(Json::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Json, TreeError> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Json, TreeError> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Json, TreeError> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Json, TreeError> {
        Ok(Json::Int(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Json, TreeError> {
        Ok(Json::UInt(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Json, TreeError> {
        Ok(Json::UInt(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Json, TreeError> {
        Ok(Json::UInt(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Json, TreeError> {
        Ok(Json::UInt(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Json, TreeError> {
        Ok(Json::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Json, TreeError> {
        Ok(Json::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Json, TreeError> {
        Ok(Json::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Json, TreeError> {
        Ok(Json::Str(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Json, TreeError> {
        Ok(Json::Arr(
            v.iter().map(|b| Json::UInt((*b).into())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Json, TreeError> {
        Ok(Json::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Json, TreeError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Json, TreeError> {
        Ok(Json::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Json, TreeError> {
        Ok(Json::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Json, TreeError> {
        Ok(Json::Str(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<Json, TreeError> {
        match v.serialize(self)? {
            Json::Str(t) if name == RAW_NUMBER => Ok(Json::Number(t)),
            other => Ok(other),
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Json, TreeError> {
        Ok(Json::Obj(vec![(
            variant.to_string(),
            v.serialize(TreeSerializer)?,
        )]))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder, TreeError> {
        Ok(SeqBuilder(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder, TreeError> {
        Ok(SeqBuilder(Vec::with_capacity(len)))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqBuilder, TreeError> {
        Ok(SeqBuilder(Vec::with_capacity(len)))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<VariantSeq, TreeError> {
        Ok(VariantSeq(variant.to_string(), Vec::new()))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapBuilder, TreeError> {
        Ok(MapBuilder(Vec::new(), None))
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<MapBuilder, TreeError> {
        Ok(MapBuilder(Vec::with_capacity(len), None))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<VariantMap, TreeError> {
        Ok(VariantMap(variant.to_string(), Vec::new()))
    }
}

impl ser::SerializeSeq for SeqBuilder {
    type Ok = Json;
    type Error = TreeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), TreeError> {
        self.0.push(v.serialize(TreeSerializer)?);
        Ok(())
    }
    fn end(self) -> Result<Json, TreeError> {
        Ok(Json::Arr(self.0))
    }
}
impl ser::SerializeTuple for SeqBuilder {
    type Ok = Json;
    type Error = TreeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), TreeError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Json, TreeError> {
        ser::SerializeSeq::end(self)
    }
}
impl ser::SerializeTupleStruct for SeqBuilder {
    type Ok = Json;
    type Error = TreeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), TreeError> {
        ser::SerializeSeq::serialize_element(self, v)
    }
    fn end(self) -> Result<Json, TreeError> {
        ser::SerializeSeq::end(self)
    }
}
impl ser::SerializeTupleVariant for VariantSeq {
    type Ok = Json;
    type Error = TreeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), TreeError> {
        self.1.push(v.serialize(TreeSerializer)?);
        Ok(())
    }
    fn end(self) -> Result<Json, TreeError> {
        Ok(Json::Obj(vec![(self.0, Json::Arr(self.1))]))
    }
}
impl ser::SerializeMap for MapBuilder {
    type Ok = Json;
    type Error = TreeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), TreeError> {
        let key = match k.serialize(TreeSerializer)? {
            Json::Str(s) => s,
            other => other.to_string_compact(),
        };
        self.1 = Some(key);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), TreeError> {
        let key = self.1.take().unwrap_or_default();
        self.0.push((key, v.serialize(TreeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Json, TreeError> {
        Ok(Json::Obj(self.0))
    }
}
impl ser::SerializeStruct for MapBuilder {
    type Ok = Json;
    type Error = TreeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), TreeError> {
        self.0.push((key.to_string(), v.serialize(TreeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Json, TreeError> {
        Ok(Json::Obj(self.0))
    }
}
impl ser::SerializeStructVariant for VariantMap {
    type Ok = Json;
    type Error = TreeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), TreeError> {
        self.1.push((key.to_string(), v.serialize(TreeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Json, TreeError> {
        Ok(Json::Obj(vec![(self.0, Json::Obj(self.1))]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn writer_prints_what_serde_json_prints() {
        let tree = Json::parse(
            r#"{"a":[1,-2,3.5,1e300,0.1,null,true,false,"q\"\\\n\t\u0001é😀"],"b":{"":{}},"c":[],"d":18446744073709551615}"#,
        )
        .unwrap();
        let mut t = tree.clone();
        t.push("nan", Json::Float(f64::NAN));
        assert_eq!(t.to_string_compact(), serde_json::to_string(&t).unwrap());
    }
    use serde::Serialize;
    #[derive(Serialize)]
    struct S {
        zeta: u32,
        alpha: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        gone: Option<u8>,
        list: Vec<&'static str>,
    }
    #[test]
    fn keeps_declaration_order() {
        let j = Json::from_serialize(&S {
            zeta: 1,
            alpha: None,
            gone: None,
            list: vec!["a"],
        });
        assert_eq!(
            j.to_string_compact(),
            r#"{"zeta":1,"alpha":null,"list":["a"]}"#
        );
    }
    #[test]
    fn parse_keeps_order() {
        let j = Json::parse(r#"{"b":1,"a":[true,null,"x"]}"#).unwrap();
        assert_eq!(j.to_string_compact(), r#"{"b":1,"a":[true,null,"x"]}"#);
    }
}
