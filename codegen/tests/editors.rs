//! Input as editors write it: a manifest checked out with CRLF line endings
//! and byte-order marks checks and digests exactly as with LF.

use crate::support::root;
use std::fs;
use std::path::Path;

/// Copy the shipped manifest into `to`, rewriting every text with `f`.
fn copy_manifest(to: &Path, f: &dyn Fn(&str) -> String) {
    let from = root().join("manifest");
    fs::create_dir_all(to.join("families")).expect("families/");
    for rel in ["abi.toml", "approved.lock", "retired.toml"] {
        let text = fs::read_to_string(from.join(rel)).expect("manifest file");
        fs::write(to.join(rel), f(&text)).expect("write");
    }
    for e in fs::read_dir(from.join("families")).expect("families") {
        let p = e.expect("entry").path();
        let text = fs::read_to_string(&p).expect("family");
        fs::write(
            to.join("families").join(p.file_name().expect("name")),
            f(&text),
        )
        .expect("write");
    }
}

/// The resolved manifest as JSON, with the directory it was read from
/// written as `$DIR`.
fn resolved(dir: &Path) -> String {
    let (ir, report) = kfam_codegen::check_dir(dir);
    let ir = ir.unwrap_or_else(|| {
        panic!(
            "{}",
            report.render_human(&annotate_snippets::Renderer::plain())
        )
    });
    let json = kfam_codegen::emit::schema::families_json(&ir);
    json.replace(&dir.to_string_lossy().replace('\\', "/"), "$DIR")
}

#[test]
fn crlf_and_bom_check_and_digest_as_lf() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let lf = tmp.path().join("lf");
    let crlf = tmp.path().join("crlf");
    copy_manifest(&lf, &|t| t.to_owned());
    copy_manifest(&crlf, &|t| format!("\u{FEFF}{}", t.replace('\n', "\r\n")));
    // The shipped manifest has multi-line summaries: the case that failed.
    assert!(fs::read_to_string(crlf.join("families/add_bf16_1024.toml"))
        .expect("family")
        .contains("\"\"\"\r\n"));
    let a = resolved(&lf);
    assert!(a.contains("\"identity\""), "{a}");
    assert_eq!(a, resolved(&crlf));
}

#[test]
fn not_utf8_points_at_the_first_bad_byte() {
    let tmp = tempfile::tempdir().expect("temp dir");
    copy_manifest(tmp.path(), &|t| t.to_owned());
    let path = tmp.path().join("families/add_bf16_1024.toml");
    let mut bytes = fs::read(&path).expect("family");
    let at = bytes.windows(5).position(|w| w == b"AMD X").expect("AMD");
    bytes[at + 3] = 0xA0; // a Latin-1 no-break space
    fs::write(&path, bytes).expect("write");
    let (_, report) = kfam_codegen::check_dir(tmp.path());
    let d = &report.diagnostics[0];
    assert_eq!(d.code.as_str(), "KF0001");
    let (_, line, column) = d.position(&report.sources);
    assert_eq!((line, column), (5, 65), "{}", d.message);
    assert!(
        d.message.contains("byte 0xA0 at line 5, column 65"),
        "{}",
        d.message
    );
}
