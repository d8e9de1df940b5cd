//! Refusals say why: a malformed `compiled_meta.json` names the key at
//! fault, and a document that is not approved names the first field that
//! differs, in the same words from Rust (`Refused`'s message), C
//! (`kfam_admit_message`) and Python (`AdmissionError`).

use std::ffi::{c_char, CString};

use crate::support::root;
use serde_json::{json, Value};

const EXAMPLE: &str = "generated/schema/examples/add_bf16_1024.xdna2_onboard.compiled_meta.json";

/// `(document, expected message)`: one mistake each.
fn cases() -> (String, Vec<(String, &'static str)>) {
    let text = std::fs::read_to_string(root().join(EXAMPLE)).expect("example");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let sha = doc["artifact"]["sha256"].as_str().expect("sha").to_owned();
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut d = doc.clone();
        f(&mut d);
        d.to_string()
    };
    // A key written twice, at the top and in each kind of nested object
    // (serde_json's `Value` cannot hold one, so the text is edited).
    let text = doc.to_string();
    let twice = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        text.replacen(from, to, 1)
    };
    let legacy = json!({"schema": 2, "params": doc["params"], "return_count": 1,
        "platform": "xdna2", "backend": "aie", "family": "add_bf16_1024"});
    let cases = vec![
        (
            edit(&|d| d["params"][1]["dtype"] = json!("bf61")),
            "malformed: `dtype` of `params` is not a known value",
        ),
        (
            edit(&|d| d["params"][0]["shape"] = json!("1024")),
            "malformed: `shape` of `params` has the wrong type",
        ),
        (
            edit(&|d| {
                d["params"][0].as_object_mut().unwrap().remove("layout");
            }),
            "malformed: `layout` of `params` is missing",
        ),
        (
            edit(&|d| d["params"][0]["stride"] = json!(1)),
            "malformed: `params` has an unknown key",
        ),
        (
            edit(&|d| {
                d.as_object_mut().unwrap().remove("platform");
            }),
            "malformed: `platform` is missing",
        ),
        (
            edit(&|d| d["schema"] = json!("3")),
            "malformed: `schema` has the wrong type",
        ),
        (
            edit(&|d| d["schema"] = json!(4)),
            "malformed: `schema` is not 1, 2 or 3",
        ),
        (
            edit(&|d| d["revision"] = json!(-1)),
            "malformed: `revision` is out of range",
        ),
        (
            edit(&|d| d["family"] = Value::Null),
            "malformed: `family` has the wrong type",
        ),
        (
            edit(&|d| d["$comment"] = json!("x".repeat(1025))),
            "malformed: `$comment` is too long",
        ),
        (
            edit(&|d| d["runtime"] = json!("xrt")),
            "malformed: `runtime` is not a known value",
        ),
        (
            edit(&|d| d["capabilities"][0]["execution_mode"] = json!("board")),
            "malformed: `execution_mode` of `capabilities` is not a known value",
        ),
        (
            edit(&|d| {
                d.as_object_mut().unwrap().remove("artifact");
            }),
            "malformed: `artifact` is missing",
        ),
        (
            legacy.to_string(),
            "malformed: `family` is a schema 3 key in a schema 1 or 2 document",
        ),
        (
            "{\"schema\": 3,".to_owned(),
            "malformed: the document is not strict JSON",
        ),
        (
            twice("{", "{\"schema\":3,"),
            "malformed: `schema` appears twice",
        ),
        (
            twice("{", "{\"$comment\":\"a\",\"$comment\":\"b\","),
            "malformed: `$comment` appears twice",
        ),
        (
            twice(
                "\"dtype\":\"bf16\"",
                "\"dtype\":\"bf16\",\"dtype\":\"bf16\"",
            ),
            "malformed: `dtype` of `lowered_params` appears twice",
        ),
        (
            twice("\"artifact\":{", "\"artifact\":{\"path\":\"a\","),
            "malformed: `path` of `artifact` appears twice",
        ),
        (
            twice(
                "\"capabilities\":[{",
                "\"capabilities\":[{\"contract\":\"kernel\",",
            ),
            "malformed: `contract` of `capabilities` appears twice",
        ),
        (
            twice("{", "{\"stride\":1,\"stride\":1,"),
            "malformed: the document has an unknown key",
        ),
        (
            edit(&|d| d["params"][0]["shape"] = json!([512])),
            "not_approved (`params` differs)",
        ),
        (
            edit(&|d| d["revision"] = json!(2)),
            "not_approved (`revision` differs)",
        ),
    ];
    (sha, cases)
}

fn rust(doc: &str, sha: &str) -> String {
    match kfam_catalog::CATALOG.admit(doc.as_bytes(), sha) {
        Ok(_) => "admitted".to_owned(),
        Err(r) => r.to_string(),
    }
}

/// A message accessor's status and message, with a buffer large enough and
/// `needed` checked against it.
fn c_message(f: impl FnOnce(*mut c_char, usize, *mut usize) -> i32) -> (i32, String) {
    let mut buf = vec![0 as c_char; 1024];
    let mut needed = usize::MAX;
    let status = f(buf.as_mut_ptr(), buf.len(), &mut needed);
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as u8)
        .collect();
    let text = String::from_utf8(bytes).expect("UTF-8 message");
    assert_eq!(needed, text.len(), "{text}");
    (status, text)
}

fn c(doc: &str, sha: &str) -> String {
    let sha = CString::new(sha).expect("sha");
    let mut buf = vec![0 as c_char; 256];
    let mut needed = 0usize;
    // SAFETY: valid pointers and lengths, as the header states.
    unsafe {
        kfam_catalog::c_abi::admit_message(
            doc.as_ptr().cast(),
            doc.len(),
            sha.as_ptr(),
            buf.as_mut_ptr(),
            buf.len(),
            &mut needed,
        );
    }
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| b as u8)
        .collect();
    let text = String::from_utf8(bytes).expect("UTF-8 message");
    assert_eq!(needed, text.len(), "{text}");
    text
}

/// `str(AdmissionError)` for each document, from one interpreter.
fn python(docs: &[String], sha: &str) -> Vec<String> {
    const SCRIPT: &str = r#"
import json, sys
import kfam
for line in sys.stdin:
    doc = json.loads(line)
    try:
        kfam.admit(doc.encode("utf-8"), sys.argv[1])
        print("admitted")
    except kfam.AdmissionError as e:
        print(str(e))
"#;
    let input: String = docs.iter().map(|d| format!("{}\n", json!(d))).collect();
    kfam_testenv::python_lines(SCRIPT, &[sha], &root().join("generated/python"), &input)
}

#[test]
fn admission_names_the_key_at_fault_in_rust_c_and_python() {
    let (sha, cases) = cases();
    let docs: Vec<String> = cases.iter().map(|(d, _)| d.clone()).collect();
    let py = python(&docs, &sha);
    for ((doc, expected), py) in cases.iter().zip(&py) {
        assert_eq!(rust(doc, &sha), *expected, "Rust");
        assert_eq!(c(doc, &sha), *expected, "C");
        assert_eq!(py, expected, "Python");
    }
}

#[test]
fn the_c_message_is_truncated_safely() {
    let (sha, cases) = cases();
    let doc = &cases[0].0;
    let sha = CString::new(sha).expect("sha");
    let mut buf = [0x7f as c_char; 9];
    let mut needed = 0usize;
    // SAFETY: as above.
    let status = unsafe {
        kfam_catalog::c_abi::admit_message(
            doc.as_ptr().cast(),
            doc.len(),
            sha.as_ptr(),
            buf.as_mut_ptr(),
            buf.len(),
            &mut needed,
        )
    };
    assert_eq!(
        status,
        kfam_catalog::ABI.status_code(kfam_runtime::Status::InvalidArgument)
    );
    assert_eq!(buf[8], 0);
    assert_eq!(needed, cases[0].1.len());
}

/// A refused capability query names the family, platform and mode, in the
/// same words in Rust and Python.
#[test]
fn capability_refusals_name_family_platform_and_mode() {
    use kfam_catalog::CATALOG;
    use kfam_catalog::{execution_modes, platforms};
    use kfam_runtime::Contract;
    let queries = [
        (
            "add_bf16_1024",
            platforms::A2A3,
            execution_modes::SIM,
            Contract::Kernel,
        ),
        (
            "add_bf16_1024",
            platforms::XDNA2,
            execution_modes::ONBOARD,
            Contract::Program,
        ),
        (
            "no_such_family",
            platforms::A5,
            execution_modes::SIM,
            Contract::Kernel,
        ),
        (
            "matmul_bf16_64x64x64",
            platforms::XDNA2,
            execution_modes::ONBOARD,
            Contract::Kernel,
        ),
    ];
    let mut script =
        String::from("import kfam\nP, M, C = kfam.Platform, kfam.ExecutionMode, kfam.Contract\n");
    let mut expected = Vec::new();
    for (family, platform, mode, contract) in queries {
        let refused = CATALOG
            .capability(family, platform, mode, contract)
            .expect_err("refused");
        let text = refused.to_string();
        assert!(text.contains(family), "{text}");
        let name = CString::new(family).expect("name");
        let (status, c) = c_message(|buf, cap, needed| unsafe {
            kfam_catalog::c_abi::capability_message(
                name.as_ptr(),
                platform.code(),
                mode.code(),
                contract.code(),
                buf,
                cap,
                needed,
            )
        });
        assert_eq!(c, text, "C");
        assert_eq!(
            status,
            kfam_catalog::ABI.status_code(refused.outcome.status())
        );
        expected.push(text);
        script.push_str(&format!(
            "try:\n    kfam.capability({family:?}, P({}), M({}), C({}))\nexcept kfam.CapabilityError as e:\n    print(e)\n",
            platform.code(),
            mode.code(),
            contract.code()
        ));
    }
    assert_eq!(
        expected[0],
        "no_profile: family `add_bf16_1024` has no profile for platform `a2a3` in `sim` mode"
    );
    let out = kfam_testenv::python()
        .env(
            "PYTHONPATH",
            kfam_testenv::search_path(&[&root().join("generated/python")]),
        )
        .args(["-c", &script])
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let python: Vec<String> = String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(python, expected);
}

/// `kfam_validate_call_message` for what only C can pass: a malformed
/// descriptor, a family record of another manifest revision, more
/// descriptors than any family takes; and the buffer rules.
#[test]
fn the_c_call_message_covers_what_only_c_can_pass() {
    use kfam_catalog::c_abi::{
        find_family as kfam_find_family, validate_call as kfam_validate_call,
        validate_call_message as kfam_validate_call_message,
    };
    use kfam_runtime::ffi::{CCallError, CTensorArg, Opaque};
    use kfam_runtime::{CallRule, DType, Status, StorageFormat};
    let name = CString::new("add_bf16_1024").expect("name");
    let mut family: *const Opaque = std::ptr::null();
    // SAFETY: valid pointers.
    assert_eq!(unsafe { kfam_find_family(name.as_ptr(), &mut family) }, 0);
    let shape = [1024i64];
    let arg = |dtype: DType, storage: u64| CTensorArg {
        struct_size: std::mem::size_of::<CTensorArg>() as u32,
        dtype: dtype.code(),
        format: StorageFormat::Nd.code(),
        rank: 1,
        shape: shape.as_ptr(),
        strides: std::ptr::null(),
        storage_offset: 0,
        storage_bytes: 2048,
        storage,
        device_index: 0,
    };
    let message = |tensors: &[CTensorArg]| {
        c_message(|buf, cap, needed| unsafe {
            kfam_validate_call_message(
                family,
                tensors.as_ptr(),
                tensors.len(),
                std::ptr::null(),
                0,
                buf,
                cap,
                needed,
            )
        })
    };
    let invalid = kfam_catalog::ABI.status_code(Status::InvalidArgument);

    // The same status and words as kfam_validate_call and CallError::explain.
    let refused = [
        arg(DType::Bf16, 1),
        arg(DType::Fp16, 2),
        arg(DType::Bf16, 3),
    ];
    let mut err = CCallError {
        struct_size: std::mem::size_of::<CCallError>() as u32,
        rule: 0,
        param_index: 0,
        symbol_index: 0,
        other_param_index: 0,
    };
    // SAFETY: valid pointers and counts.
    let status =
        unsafe { kfam_validate_call(family, refused.as_ptr(), 3, std::ptr::null(), 0, &mut err) };
    assert_eq!((status, err.rule), (invalid, CallRule::DType.code()));
    assert_eq!(
        message(&refused),
        (
            invalid,
            "argument 1 (`rhs`): dtype: dtype fp16, expected bf16".to_owned()
        )
    );
    let ok = [
        arg(DType::Bf16, 1),
        arg(DType::Bf16, 2),
        arg(DType::Bf16, 3),
    ];
    assert_eq!(message(&ok), (0, "ok".to_owned()));

    let mut unknown = ok;
    unknown[1].dtype = 9999;
    assert_eq!(
        message(&unknown),
        (
            invalid,
            "malformed call: a tensor descriptor has an unknown dtype or format code (descriptor 1)"
                .to_owned()
        )
    );
    let many = vec![ok[0]; 300];
    assert_eq!(
        message(&many),
        (
            invalid,
            "arg_count: `add_bf16_1024` takes 3 tensors and 0 scalars, 300 and 0 were passed"
                .to_owned()
        )
    );
    let (status, text) = c_message(|buf, cap, needed| unsafe {
        kfam_validate_call_message(
            std::ptr::null(),
            ok.as_ptr(),
            3,
            std::ptr::null(),
            0,
            buf,
            cap,
            needed,
        )
    });
    assert_eq!(
        (status, text.as_str()),
        (invalid, "malformed call: the family record is NULL")
    );

    // Only the length, then a truncated copy that is still NUL-terminated.
    let mut needed = 0usize;
    // SAFETY: NULL with a capacity of 0 is allowed.
    let status = unsafe {
        kfam_validate_call_message(
            family,
            refused.as_ptr(),
            3,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            0,
            &mut needed,
        )
    };
    assert_eq!((status, needed), (invalid, 52));
    let mut small = [0x7f as c_char; 9];
    // SAFETY: `small` holds 9 bytes.
    unsafe {
        kfam_validate_call_message(
            family,
            refused.as_ptr(),
            3,
            std::ptr::null(),
            0,
            small.as_mut_ptr(),
            small.len(),
            std::ptr::null_mut(),
        )
    };
    let got: Vec<u8> = small.iter().map(|&b| b as u8).collect();
    assert_eq!(&got, b"argument\0");
    // NULL with a capacity: refused, nothing written.
    // SAFETY: the function must not write through NULL.
    let status = unsafe {
        kfam_validate_call_message(
            family,
            refused.as_ptr(),
            3,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            8,
            &mut needed,
        )
    };
    assert_eq!(status, invalid);
}
