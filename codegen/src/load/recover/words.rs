//! The words of recovery: key paths, table names and lists of values, for
//! the messages of `messages.rs`.

use std::fmt::Write as _;

/// One step of a key path: `params[1].dtype`.
#[derive(Clone)]
pub(super) enum Seg {
    Key(String),
    Index(usize),
}

pub(super) fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
    }
    s
}

/// `the top-level table` or `` `params[1]` ``.
pub(super) fn table_name(path: &[Seg]) -> String {
    if path.is_empty() {
        "the top-level table".to_owned()
    } else {
        format!("`{}`", path_text(path))
    }
}

/// The key a value sits under (the last named step of its path).
pub(super) fn key_name(path: &[Seg]) -> String {
    path.iter()
        .rev()
        .find_map(|s| match s {
            Seg::Key(k) => Some(k.clone()),
            Seg::Index(_) => None,
        })
        .unwrap_or_default()
}

/// Most values a message lists.
const MAX_LISTED: usize = 16;

pub(super) fn ticked(items: &[String]) -> String {
    let mut parts: Vec<String> = items
        .iter()
        .take(MAX_LISTED)
        .map(|i| format!("`{i}`"))
        .collect();
    if items.len() > MAX_LISTED {
        parts.push(format!("and {} more", items.len() - MAX_LISTED));
    }
    parts.join(", ")
}
