//! What the published JSON Schema of a family file (`generated/schema/
//! family.schema.json`, derived from the loader's own types) says about a
//! place in the document: the keys a table accepts, the members of a
//! vocabulary and their meaning. A new key, operation kind or vocabulary
//! member reaches completion and hover through the schema, unchanged here.

use serde_json::Value;

pub struct Schema {
    root: Value,
}

/// A key or value the schema offers, with its description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub doc: Option<String>,
    /// Keys: the value is a table or an array of tables.
    pub table: bool,
}

impl Schema {
    pub fn family() -> Self {
        Schema {
            root: kfam_codegen::emit::schema::family_schema(),
        }
    }

    /// The schema of a family file of a catalog with `targets`: its own
    /// platforms, backends, runtimes and modes are the values offered.
    pub fn family_of(targets: &kfam_codegen::ir::Targets) -> Self {
        Schema {
            root: kfam_codegen::emit::schema::family_schema_for(targets),
        }
    }

    fn resolve<'a>(&'a self, v: &'a Value) -> &'a Value {
        let mut v = v;
        for _ in 0..8 {
            let Some(name) = v
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            else {
                break;
            };
            match self.root.get("$defs").and_then(|d| d.get(name)) {
                Some(target) => v = target,
                None => break,
            }
        }
        v
    }

    /// `v` and every alternative it allows (`anyOf`, `oneOf`, `allOf`,
    /// array items), resolved.
    fn expand<'a>(&'a self, v: &'a Value, out: &mut Vec<&'a Value>) {
        let v = self.resolve(v);
        if out.iter().any(|seen| std::ptr::eq(*seen, v)) {
            return;
        }
        out.push(v);
        for key in ["anyOf", "oneOf", "allOf"] {
            for sub in v.get(key).and_then(Value::as_array).into_iter().flatten() {
                self.expand(sub, out);
            }
        }
        if let Some(items) = v.get("items") {
            self.expand(items, out);
        }
    }

    /// The schemas a table at `path` may follow.
    fn tables(&self, path: &[String]) -> Vec<&Value> {
        let mut current = Vec::new();
        self.expand(&self.root, &mut current);
        for key in path {
            let mut next = Vec::new();
            for v in &current {
                if let Some(p) = v.get("properties").and_then(|p| p.get(key)) {
                    self.expand(p, &mut next);
                }
            }
            current = next;
        }
        current
    }

    /// The keys a table at `path` accepts.
    pub fn keys(&self, path: &[String]) -> Vec<Entry> {
        let mut out: Vec<Entry> = Vec::new();
        for v in self.tables(path) {
            let Some(props) = v.get("properties").and_then(Value::as_object) else {
                continue;
            };
            for (name, p) in props {
                if out.iter().any(|e| e.name == *name) {
                    continue;
                }
                let mut alts = Vec::new();
                self.expand(p, &mut alts);
                let table = alts.iter().any(|a| {
                    a.get("type").and_then(Value::as_str) == Some("object")
                        || a.get("properties").is_some()
                });
                out.push(Entry {
                    name: name.clone(),
                    doc: describe(p).or_else(|| alts.iter().find_map(|a| describe(a))),
                    table,
                });
            }
        }
        out
    }

    /// The description of `key` in the table at `path`.
    pub fn key_doc(&self, path: &[String], key: &str) -> Option<String> {
        self.keys(path)
            .into_iter()
            .find(|e| e.name == key)
            .and_then(|e| e.doc)
    }

    /// The vocabulary members the value of `key` in the table at `path` may
    /// take (empty when it is not a vocabulary), with their meaning.
    pub fn values(&self, path: &[String], key: &str) -> Vec<Entry> {
        let mut out: Vec<Entry> = Vec::new();
        for v in self.tables(path) {
            let Some(p) = v.get("properties").and_then(|p| p.get(key)) else {
                continue;
            };
            let mut alts = Vec::new();
            self.expand(p, &mut alts);
            for a in alts {
                if let Some(c) = a.get("const").and_then(Value::as_str) {
                    if !out.iter().any(|e| e.name == c) {
                        out.push(Entry {
                            name: c.to_owned(),
                            doc: describe(a),
                            table: false,
                        });
                    }
                }
            }
        }
        out
    }
}

fn describe(v: &Value) -> Option<String> {
    v.get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn keys_follow_tables_arrays_and_kinds() {
        let s = Schema::family();
        let names =
            |p: &[&str]| -> Vec<String> { s.keys(&path(p)).into_iter().map(|e| e.name).collect() };
        assert!(names(&[]).contains(&"revision".to_owned()));
        assert!(names(&["params"]).contains(&"dtype".to_owned()));
        assert!(names(&["operation"]).contains(&"matmul".to_owned()));
        assert!(names(&["operation", "matmul"]).contains(&"accumulate".to_owned()));
        assert!(names(&["profiles", "bindings"]).contains(&"slot".to_owned()));
        assert!(names(&["receipts", "evidence"]).contains(&"hardware".to_owned()));
    }

    #[test]
    fn vocabulary_values_carry_their_meaning() {
        let s = Schema::family();
        let dtypes = s.values(&path(&["params"]), "dtype");
        let bf16 = dtypes.iter().find(|e| e.name == "bf16").expect("bf16");
        assert!(
            bf16.doc.as_deref().unwrap_or("").contains("code 6"),
            "{bf16:?}"
        );
        assert!(s
            .values(&path(&["profiles"]), "platform")
            .iter()
            .any(|e| e.name == "a2a3"));
        assert!(s.values(&path(&["params"]), "name").is_empty());
    }
}
