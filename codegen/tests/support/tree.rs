//! Directory trees for the tests that copy a manifest (or a fixture) into a
//! temporary directory before editing it.

use std::fs;
use std::path::Path;

/// `from` and everything below it, copied to `to` (created).
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}
