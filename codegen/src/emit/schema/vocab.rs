//! Pieces every schema of the module shares: a vocabulary as a schema, and
//! a definition by name.

use serde_json::{json, Map, Value};

/// The members of one vocabulary: spelling, numeric code, description.
pub type Members = Vec<(String, i32, String)>;

/// A closed vocabulary: `enum` lists every spelling (validators report it
/// plainly, editors complete it); `oneOf` repeats each with its description
/// and numeric code for hover text.
pub(super) fn vocab_schema(description: Option<&str>, members: &Members) -> Value {
    let mut m = Map::new();
    if let Some(d) = description {
        m.insert("description".into(), json!(d));
    }
    m.insert("type".into(), json!("string"));
    m.insert(
        "enum".into(),
        members.iter().map(|(s, _, _)| json!(s)).collect(),
    );
    m.insert(
        "oneOf".into(),
        members
            .iter()
            .map(|(s, code, d)| json!({"const": s, "description": format!("{d} (code {code})")}))
            .collect(),
    );
    Value::Object(m)
}

pub(super) fn def_mut<'a>(root: &'a mut Value, name: &str) -> &'a mut Value {
    root.get_mut("$defs")
        .and_then(|d| d.get_mut(name))
        .unwrap_or_else(|| panic!("schema has no `$defs/{name}`"))
}
