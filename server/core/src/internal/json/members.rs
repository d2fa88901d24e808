//! A top-level JSON object read by serde as its members in document order, each value read by the caller's
//! [`Member`] type: what the profile readers need to write a document back with only some members changed.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;

/// One member's value, read by its key.
pub(crate) trait Member<'de>: Sized {
    /// What the object is, for serde's error ("a .cpuprofile object").
    const EXPECTING: &'static str;

    /// The value of member `key`, read from `map` (which stands on it).
    fn read<A: MapAccess<'de>>(key: &str, map: &mut A) -> Result<Self, A::Error>;
}

/// The members of a top-level object, in document order.
pub(crate) struct Members<'a, T>(pub(crate) Vec<(Cow<'a, str>, T)>);

impl<'de, T: Member<'de>> Deserialize<'de> for Members<'de, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Member<'de>> Visitor<'de> for V<T> {
            type Value = Members<'de, T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(T::EXPECTING)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let value = T::read(&key, &mut map)?;
                    out.push((key, value));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}
