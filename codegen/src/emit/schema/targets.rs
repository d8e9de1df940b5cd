//! The catalog's platforms, backends, runtimes and execution modes in the
//! schemas: each a vocabulary whose members `abi.toml` declares, and the
//! rules of each platform (KF0606) that JSON Schema can state.

use serde_json::{json, Value};

use super::vocab::{def_mut, vocab_schema, Members};
use crate::compiled_meta::capability_rules;
use crate::ir::{Target, Targets};
use crate::vocab::{Vocabulary, BACKEND, EXECUTION_MODE, PLATFORM, RUNTIME};

fn ticks(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A member's description: its doc, without the closing period, and then
/// what the catalog says of it.
fn describe(doc: &str, more: &str) -> String {
    format!("{}{more}", doc.trim_end_matches('.'))
}

/// The platforms that offer a backend or runtime (`pick`).
fn offered_on(
    targets: &Targets,
    name: &str,
    pick: fn(&crate::ir::Platform) -> &[String],
) -> String {
    let on: Vec<&str> = targets
        .platforms
        .iter()
        .filter(|p| pick(p).iter().any(|n| n == name))
        .map(|p| p.target.name.as_str())
        .collect();
    if on.is_empty() {
        "; on no platform".to_owned()
    } else {
        format!("; on {}", ticks(&on))
    }
}

/// Each declared vocabulary with its members' descriptions, by schemars
/// definition name.
fn vocabularies(targets: &Targets) -> Vec<(&'static Vocabulary, Members)> {
    let mut sorted: Vec<&crate::ir::Platform> = targets.platforms.iter().collect();
    sorted.sort_by_key(|p| p.target.code);
    let platforms = sorted
        .iter()
        .map(|p| {
            let names = |l: &[String]| ticks(&l.iter().map(String::as_str).collect::<Vec<_>>());
            let nz = if p.layouts.contains(&crate::vocab::Layout::Nz) {
                "; accepts NZ"
            } else {
                ""
            };
            let more = format!(
                "; backends {}; runtimes {}{nz}",
                names(&p.backends),
                names(&p.runtimes)
            );
            (
                p.target.name.clone(),
                p.target.code,
                describe(&p.target.doc, &more),
            )
        })
        .collect();
    let members = |list: &[Target], more: &dyn Fn(&Target) -> String| -> Members {
        let mut v: Vec<&Target> = list.iter().collect();
        v.sort_by_key(|t| t.code);
        v.iter()
            .map(|t| (t.name.clone(), t.code, describe(&t.doc, &more(t))))
            .collect()
    };
    vec![
        (&PLATFORM, platforms),
        (
            &BACKEND,
            members(&targets.backends, &|t| {
                offered_on(targets, &t.name, |p| &p.backends)
            }),
        ),
        (
            &RUNTIME,
            members(&targets.runtimes, &|t| {
                offered_on(targets, &t.name, |p| &p.runtimes)
            }),
        ),
        (
            &EXECUTION_MODE,
            members(&targets.execution_modes, &|_| String::new()),
        ),
    ]
}

/// The field of each declared vocabulary, as records name it.
fn field(v: &Vocabulary) -> &'static str {
    match v.name {
        "Platform" => "platform",
        "Backend" => "backend",
        "Runtime" => "runtime",
        _ => "execution_mode",
    }
}

/// Define the vocabularies in `root` and point the `fields` of each of
/// `records` at them (keeping each field's own description).
fn declare(root: &mut Value, targets: &Targets, records: &[&str]) {
    for (vocab, members) in vocabularies(targets) {
        root["$defs"][vocab.name] = vocab_schema(Some(vocab.doc), &members);
        for record in records {
            let props = &mut def_mut(root, record)["properties"];
            if let Some(p) = props.get_mut(field(vocab)) {
                let description = p.get("description").cloned();
                let mut r = json!({ "$ref": format!("#/$defs/{}", vocab.name) });
                if let Some(d) = description {
                    r["description"] = d;
                }
                *p = r;
            }
        }
    }
}

/// The family schema's profiles: the catalog's vocabularies, and each
/// platform's backends and runtimes (KF0606).
pub(super) fn profile_rules(root: &mut Value, targets: &Targets) {
    declare(root, targets, &["Profile"]);
    let rules: Vec<Value> = targets
        .platforms
        .iter()
        .map(|p| {
            json!({
                "if": { "properties": { "platform": { "const": p.target.name } }, "required": ["platform"] },
                "then": { "properties": {
                    "backend": { "enum": p.backends },
                    "runtime": { "enum": p.runtimes },
                } },
            })
        })
        .collect();
    let profile = def_mut(root, "Profile");
    profile["$comment"] = json!("each platform has its own backends and runtimes (KF0606)");
    profile["allOf"] = Value::Array(rules);
}

/// The `compiled_meta.json` schema: the catalog's vocabularies, and the one
/// capability carrying the requested execution mode.
pub(super) fn meta_rules(root: &mut Value, targets: &Targets) {
    declare(
        root,
        targets,
        &["CompiledMetaV3", "CompiledMetaLegacy", "Capability"],
    );
    let mut modes: Vec<&Target> = targets.execution_modes.iter().collect();
    modes.sort_by_key(|t| t.code);
    let names: Vec<&str> = modes.iter().map(|t| t.name.as_str()).collect();
    let v3 = def_mut(root, "CompiledMetaV3");
    if let Some(all) = v3.get_mut("allOf").and_then(Value::as_array_mut) {
        all.extend(capability_rules("execution_mode", &names));
    }
}
