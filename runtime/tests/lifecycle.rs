//! The kernel context's lifecycle vectors (`tests/conformance/lifecycle/`,
//! see docs/runtime.md) through the Rust API: every step must return exactly
//! its expected status. Every mismatch is listed at once. Also the
//! concurrency test: threads preparing and launching on one context and on
//! several, with a counting launcher.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::support::root;
use kfam_catalog::CATALOG;
use kfam_catalog::{execution_modes, platforms};
use kfam_runtime::context::{Launch, Launcher, Refusal};
use kfam_runtime::{
    Context, Contract, Family, OwnedTensorArg, ParamKind, ScalarValue, Status, StorageFormat,
    TensorArg,
};
use serde_json::Value;

/// Counts launches and returns a fixed status.
struct Counting {
    n: AtomicUsize,
    returns: i32,
}

impl Launcher for Counting {
    fn launch(&self, _call: &Launch<'_>) -> i32 {
        self.n.fetch_add(1, Ordering::SeqCst);
        self.returns
    }
}

/// A valid call of `family`: every dynamic extent 2, contiguous, each tensor
/// in its own storage, scalars at their lower bound.
fn valid_args(family: &Family) -> (Vec<OwnedTensorArg>, Vec<ScalarValue>) {
    let mut tensors = Vec::new();
    let mut scalars = Vec::new();
    for (i, p) in family.params.iter().enumerate() {
        if p.kind == ParamKind::Tensor {
            let shape: Vec<i64> = p.shape.iter().map(|&d| if d < 0 { 2 } else { d }).collect();
            let mut strides = vec![1i64; shape.len()];
            for k in (0..shape.len().saturating_sub(1)).rev() {
                strides[k] = strides[k + 1] * shape[k + 1];
            }
            tensors.push(OwnedTensorArg {
                dtype: p.dtype,
                shape,
                strides,
                storage_offset: 0,
                storage_bytes: 1 << 32,
                storage: (i as u64 + 1) << 40,
                format: StorageFormat::Nd,
                device_index: 0,
            });
        } else {
            scalars.push(ScalarValue::Float(1.0));
        }
    }
    (tensors, scalars)
}

fn document(step: &Value) -> (Vec<u8>, String) {
    let Some(name) = step["document"].as_str() else {
        return (Vec::new(), "0".repeat(64));
    };
    let path = root().join(format!(
        "generated/schema/examples/{name}.compiled_meta.json"
    ));
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let sha = doc["artifact"]["sha256"].as_str().unwrap().to_owned();
    if let Some(patch) = step["patch"].as_object() {
        for (k, v) in patch {
            doc[k] = v.clone();
        }
    }
    let sha = step["sha256"].as_str().map(str::to_owned).unwrap_or(sha);
    (serde_json::to_vec(&doc).unwrap(), sha)
}

fn status_of<T>(r: &Result<T, Refusal>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(e) => e.status.as_str(),
    }
}

/// Run one case; the mismatches, each naming the step.
fn run_case(case: &Value) -> Vec<String> {
    let name = case["name"].as_str().unwrap();
    let limit = case["max_prepared"]
        .as_u64()
        .map_or(CATALOG.abi.max_prepared as usize, |n| n as usize);
    let returns = case["launcher_returns"].as_i64().unwrap_or(0) as i32;
    let launcher = Arc::new(Counting {
        n: AtomicUsize::new(0),
        returns,
    });
    let ctx = Context::with_limit(&CATALOG, limit);
    let mut errors = Vec::new();
    for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
        let op = step["op"].as_str().unwrap();
        let before = launcher.n.load(Ordering::SeqCst);
        let got: String = match op {
            "init" => {
                let platform = kfam_catalog::CATALOG
                    .targets
                    .platform(step["platform"].as_str().unwrap())
                    .unwrap();
                let mode = kfam_catalog::CATALOG
                    .targets
                    .execution_mode(step["execution_mode"].as_str().unwrap())
                    .unwrap();
                let contract = Contract::parse(step["contract"].as_str().unwrap()).unwrap();
                let generation = step["generation"].as_u64();
                status_of(&ctx.init(platform, mode, contract, launcher.clone(), generation))
                    .to_owned()
            }
            "generation" => ctx.latched().map_or_else(
                |e| e.status.as_str().to_owned(),
                |id| id.generation.to_string(),
            ),
            "supported" => status_of(&ctx.supported(step["family"].as_str().unwrap())).to_owned(),
            "prepare" => {
                let (json, sha) = document(step);
                let r = ctx.prepare(&json, &sha);
                match (&r, step["callable"].as_u64()) {
                    (Ok(id), Some(want)) if *id != want => format!("callable {id}"),
                    _ => status_of(&r).to_owned(),
                }
            }
            "launch" => {
                let callable = step["callable"].as_u64().unwrap();
                let family = ctx_family(&ctx, callable);
                let (tensors, scalars) = match (step["args"].as_str(), family) {
                    (Some("valid"), Some(f)) => valid_args(f),
                    _ => (Vec::new(), Vec::new()),
                };
                let args: Vec<TensorArg<'_>> = tensors.iter().map(|t| t.as_arg()).collect();
                let stream = step["stream"].as_u64().unwrap();
                match ctx.launch(callable, &args, &scalars, stream) {
                    Ok(s) if s == returns && launcher.n.load(Ordering::SeqCst) == before + 1 => {
                        "launcher".to_owned()
                    }
                    Ok(s) => format!("launcher returned {s}"),
                    Err(e) => e.status.as_str().to_owned(),
                }
            }
            "close" => {
                ctx.close();
                "ok".to_owned()
            }
            other => panic!("{name}: unknown op {other}"),
        };
        let want = match &step["expect"] {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        if got != want {
            errors.push(format!(
                "{name} step {i} ({op}): expected {want}, got {got}"
            ));
        }
        if op != "launch" && launcher.n.load(Ordering::SeqCst) != before {
            errors.push(format!("{name} step {i} ({op}) launched"));
        }
    }
    let want = case["launches"].as_u64().unwrap() as usize;
    let got = launcher.n.load(Ordering::SeqCst);
    if got != want {
        errors.push(format!("{name}: expected {want} launches, got {got}"));
    }
    errors
}

/// The family a callable id was prepared for: the vectors prepare only
/// documents named after their family, so the catalog answers by id order.
fn ctx_family(ctx: &Context, callable: u64) -> Option<&'static Family> {
    ctx.family_of(callable)
}

/// The same vectors through the C ABI (`kfam_context_*`), called from Rust
/// with a C launcher: every step of every case, with the same statuses.
/// A case's own `max_prepared` goes through `kfam_context_new_with`, an
/// init with a `generation` through `kfam_context_init_generation`.
#[test]
fn lifecycle_vectors_through_the_c_abi() {
    use kfam_catalog::c_abi::{
        context_close as kfam_context_close, context_free as kfam_context_free,
        context_generation as kfam_context_generation, context_init as kfam_context_init,
        context_init_generation as kfam_context_init_generation,
        context_launch as kfam_context_launch, context_new as kfam_context_new,
        context_new_with as kfam_context_new_with, context_prepare as kfam_context_prepare,
        context_supported as kfam_context_supported,
    };
    use kfam_runtime::ffi::{CContextOptions, CScalarArg, CTensorArg};
    use std::ffi::{c_void, CString};

    unsafe extern "C" fn count(
        user: *mut c_void,
        _callable: u64,
        _generation: u64,
        _t: *const CTensorArg,
        _nt: usize,
        _s: *const CScalarArg,
        _ns: usize,
        _stream: u64,
    ) -> i32 {
        let c = &*(user as *const Counting);
        c.n.fetch_add(1, Ordering::SeqCst);
        c.returns
    }
    let name_of = |code: i32| {
        Status::ALL
            .iter()
            .find(|&&s| kfam_catalog::ABI.status_code(s) == code)
            .map_or(code.to_string(), |s| s.as_str().to_owned())
    };
    let path = root().join("tests/conformance/lifecycle/lifecycle.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut errors = Vec::new();
    for case in v["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let returns = case["launcher_returns"].as_i64().unwrap_or(0) as i32;
        let launcher = Counting {
            n: AtomicUsize::new(0),
            returns,
        };
        let user = &launcher as *const Counting as *mut c_void;
        let mut ctx = std::ptr::null_mut();
        match case["max_prepared"].as_u64() {
            Some(limit) => {
                let options = CContextOptions {
                    struct_size: size_of::<CContextOptions>() as u32,
                    max_prepared: u32::try_from(limit).unwrap(),
                };
                assert_eq!(unsafe { kfam_context_new_with(&options, &mut ctx) }, 0);
            }
            None => assert_eq!(unsafe { kfam_context_new(&mut ctx) }, 0),
        }
        let mut prepared: Vec<&'static Family> = Vec::new();
        for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
            let op = step["op"].as_str().unwrap();
            let before = launcher.n.load(Ordering::SeqCst);
            let got = match op {
                "init" => {
                    let code = |k: &str| -> i32 {
                        let s = step[k].as_str().unwrap();
                        match k {
                            "platform" => kfam_catalog::CATALOG.targets.platform(s).unwrap().code(),
                            "execution_mode" => kfam_catalog::CATALOG
                                .targets
                                .execution_mode(s)
                                .unwrap()
                                .code(),
                            _ => Contract::parse(s).unwrap().code(),
                        }
                    };
                    let (platform, mode, contract) =
                        (code("platform"), code("execution_mode"), code("contract"));
                    name_of(unsafe {
                        match step["generation"].as_u64() {
                            Some(g) => kfam_context_init_generation(
                                ctx,
                                platform,
                                mode,
                                contract,
                                g,
                                Some(count),
                                user,
                            ),
                            None => kfam_context_init(
                                ctx,
                                platform,
                                mode,
                                contract,
                                0,
                                Some(count),
                                user,
                            ),
                        }
                    })
                }
                "generation" => {
                    let mut g = 0u64;
                    match unsafe { kfam_context_generation(ctx, &mut g) } {
                        0 => g.to_string(),
                        st => name_of(st),
                    }
                }
                "supported" => {
                    let f = CString::new(step["family"].as_str().unwrap()).unwrap();
                    name_of(unsafe { kfam_context_supported(ctx, f.as_ptr()) })
                }
                "prepare" => {
                    let (json, sha) = document(step);
                    let sha = CString::new(sha).unwrap();
                    let mut id = 0u64;
                    let st = unsafe {
                        kfam_context_prepare(
                            ctx,
                            json.as_ptr().cast(),
                            json.len(),
                            sha.as_ptr(),
                            &mut id,
                        )
                    };
                    if st == 0 {
                        let fam = step["document"]
                            .as_str()
                            .unwrap()
                            .split('.')
                            .next()
                            .unwrap();
                        let f = kfam_catalog::CATALOG.find(fam).unwrap();
                        if id as usize > prepared.len() {
                            prepared.push(f);
                        }
                    }
                    match step["callable"].as_u64() {
                        Some(want) if st == 0 && id != want => format!("callable {id}"),
                        _ => name_of(st),
                    }
                }
                "launch" => {
                    let callable = step["callable"].as_u64().unwrap();
                    let family = usize::try_from(callable)
                        .ok()
                        .and_then(|c| c.checked_sub(1))
                        .and_then(|c| prepared.get(c).copied());
                    let (tensors, scalars) = match (step["args"].as_str(), family) {
                        (Some("valid"), Some(f)) => valid_args(f),
                        _ => (Vec::new(), Vec::new()),
                    };
                    let ct: Vec<CTensorArg> = tensors
                        .iter()
                        .map(|t| CTensorArg {
                            struct_size: size_of::<CTensorArg>() as u32,
                            dtype: t.dtype.code(),
                            format: t.format.code(),
                            rank: t.shape.len() as u32,
                            shape: t.shape.as_ptr(),
                            strides: t.strides.as_ptr(),
                            storage_offset: t.storage_offset,
                            storage_bytes: t.storage_bytes,
                            storage: t.storage,
                            device_index: t.device_index,
                        })
                        .collect();
                    assert!(scalars.is_empty(), "{name}: the vectors launch no scalars");
                    let stream = step["stream"].as_u64().unwrap();
                    let st = unsafe {
                        kfam_context_launch(
                            ctx,
                            callable,
                            ct.as_ptr(),
                            ct.len(),
                            std::ptr::null(),
                            0,
                            stream,
                        )
                    };
                    if launcher.n.load(Ordering::SeqCst) == before + 1 && st == returns {
                        "launcher".to_owned()
                    } else {
                        name_of(st)
                    }
                }
                "close" => name_of(unsafe { kfam_context_close(ctx) }),
                other => panic!("{name}: unknown op {other}"),
            };
            let want = match &step["expect"] {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            if got != want {
                errors.push(format!(
                    "{name} step {i} ({op}): expected {want}, got {got}"
                ));
            }
        }
        let want = case["launches"].as_u64().unwrap() as usize;
        if launcher.n.load(Ordering::SeqCst) != want {
            errors.push(format!("{name}: expected {want} launches"));
        }
        assert_eq!(unsafe { kfam_context_free(ctx) }, 0);
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn lifecycle_vectors() {
    let path = root().join("tests/conformance/lifecycle/lifecycle.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = v["cases"].as_array().unwrap();
    let mut errors = Vec::new();
    let mut statuses = std::collections::BTreeSet::new();
    for case in cases {
        errors.extend(run_case(case));
        for s in case["steps"].as_array().unwrap() {
            if let Some(e) = s["expect"].as_str() {
                statuses.insert(e.to_owned());
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // Every status an entry can return, except `internal` (a caught panic).
    for s in Status::ALL.iter().filter(|s| **s != Status::Internal) {
        assert!(statuses.contains(s.as_str()), "no vector expects {s}");
    }
}

const SILU_SIM: &str = "silu_bf16.a2a3_sim";
const SWIGLU_SIM: &str = "swiglu_fused_bf16.a2a3_sim";

fn doc(name: &str) -> (Vec<u8>, String) {
    document(&serde_json::json!({ "document": name }))
}

#[test]
fn concurrent_prepare_and_launch() {
    const THREADS: usize = 8;
    const LAUNCHES: usize = 200;
    let docs = [doc(SILU_SIM), doc(SWIGLU_SIM)];
    let launcher = Arc::new(Counting {
        n: AtomicUsize::new(0),
        returns: 0,
    });
    // Two contexts shared by every thread, and one per thread.
    let shared: Vec<Arc<Context>> = (0..2).map(|_| Arc::new(Context::new(&CATALOG))).collect();
    for c in &shared {
        c.init(
            platforms::A2A3,
            execution_modes::SIM,
            Contract::Kernel,
            launcher.clone(),
            None,
        )
        .unwrap();
    }
    let ids = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (docs, shared, launcher, ids) = (&docs, &shared, &launcher, &ids);
            s.spawn(move || {
                let own = Context::new(&CATALOG);
                own.init(
                    platforms::A2A3,
                    execution_modes::SIM,
                    Contract::Kernel,
                    launcher.clone(),
                    None,
                )
                .unwrap();
                let ctxs = [&*shared[0], &*shared[1], &own];
                for i in 0..LAUNCHES {
                    let ctx = ctxs[(t + i) % 3];
                    let (json, sha) = &docs[(t + i) % 2];
                    let id = ctx.prepare(json, sha).unwrap();
                    if !std::ptr::eq(ctx, &own) {
                        ids.lock().unwrap().push((((t + i) % 3), sha.clone(), id));
                    }
                    let f = ctx.family_of(id).unwrap();
                    let (tensors, scalars) = valid_args(f);
                    let args: Vec<_> = tensors.iter().map(|t| t.as_arg()).collect();
                    assert_eq!(ctx.launch(id, &args, &scalars, i as u64), Ok(0));
                }
                own.close();
            });
        }
    });
    assert_eq!(launcher.n.load(Ordering::SeqCst), THREADS * LAUNCHES);
    // One id per artifact per context, whatever thread prepared it.
    let ids = ids.into_inner().unwrap();
    for (c, sha, id) in &ids {
        assert!(ids
            .iter()
            .filter(|(c2, s2, _)| c2 == c && s2 == sha)
            .all(|(_, _, id2)| id2 == id));
    }
    for c in &shared {
        assert_eq!(c.prepared(), 2);
        c.close();
    }
}

#[test]
fn generations_count_from_the_process_counter() {
    let l: Arc<dyn Launcher> = Arc::new(|_: &Launch<'_>| 0);
    let (a, b) = (Context::new(&CATALOG), Context::new(&CATALOG));
    let ga = a
        .init(
            platforms::A2A3,
            execution_modes::SIM,
            Contract::Kernel,
            l.clone(),
            None,
        )
        .unwrap();
    let gb = b
        .init(
            platforms::A2A3,
            execution_modes::SIM,
            Contract::Kernel,
            l,
            None,
        )
        .unwrap();
    assert!(ga >= 1 && gb > ga);
}

/// `close` racing preparations: whatever interleaving, once close returned
/// and the preparers finished, the context holds nothing, and a preparation
/// that completed after close failed `INVALID_STATE`.
#[test]
fn close_during_preparation_leaves_nothing() {
    let docs = [doc(SILU_SIM), doc(SWIGLU_SIM)];
    let launcher: Arc<dyn Launcher> = Arc::new(|_: &Launch<'_>| 0);
    for round in 0..200 {
        let ctx = Context::new(&CATALOG);
        ctx.init(
            platforms::A2A3,
            execution_modes::SIM,
            Contract::Kernel,
            launcher.clone(),
            None,
        )
        .unwrap();
        std::thread::scope(|s| {
            for t in 0..2 {
                let (ctx, docs) = (&ctx, &docs);
                s.spawn(move || {
                    for i in 0..4 {
                        let (json, sha) = &docs[(t + i + round) % 2];
                        match ctx.prepare(json, sha) {
                            Ok(_) => {}
                            Err(r) => {
                                assert_eq!(r.status, kfam_runtime::Status::InvalidState, "{r}")
                            }
                        }
                    }
                });
            }
            s.spawn(|| ctx.close());
        });
        assert_eq!(ctx.prepared(), 0, "round {round}");
        let (json, sha) = &docs[0];
        assert_eq!(
            ctx.prepare(json, sha).unwrap_err().status,
            kfam_runtime::Status::InvalidState
        );
    }
}
